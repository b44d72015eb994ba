#!/bin/bash
# wait until the VM's CPUs are idle (>= 95% idle over 3 s), up to $1 seconds (default 600)
lim=${1:-600}; t0=$(date +%s)
while :; do
  a=($(head -1 /proc/stat)); sleep 3; b=($(head -1 /proc/stat))
  idle=$(( (b[4]+b[5]) - (a[4]+a[5]) )); tot=0
  for i in 1 2 3 4 5 6 7 8; do tot=$((tot + b[i] - a[i])); done
  pct=$(( 100 * idle / (tot>0?tot:1) ))
  [ $pct -ge 95 ] && { echo "quiet ($pct% idle)" >&2; exit 0; }
  [ $(( $(date +%s) - t0 )) -ge $lim ] && { echo "NOT quiet ($pct% idle) after ${lim}s" >&2; exit 1; }
done
