#!/bin/sh
# wait until no compiler runs for 5 s
q=0
while [ $q -lt 5 ]; do
  if pgrep -f "cc1|cicc|ptxas|nvcc|fatbinary|ld |collect2|cudafe" >/dev/null; then q=0; else q=$((q+1)); fi
  sleep 1
done
