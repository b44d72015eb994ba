#!/bin/sh
# check_spills.sh - fail when ptxas reported a register spill or a stack
# frame in any kernel (the logs of nvcc -Xptxas -v), naming the kernels.
# Usage: check_spills.sh LOG...
status=0
for log in "$@"; do
    if [ ! -f "$log" ]; then
        echo "check_spills: $log is missing (build the CUDA objects first)" >&2
        status=1
        continue
    fi
    kernels=`grep -c "Compiling entry function" "$log"`
    bad=`awk '/Compiling entry function/ {fn=$0} /spill stores/ && ($1 != 0 || $5 != 0 || $9 != 0) {print fn; print "    " $0}' "$log"`
    if [ -n "$bad" ]; then
        echo "check_spills: $log: kernels with a stack frame or spills:" >&2
        echo "$bad" >&2
        status=1
    else
        echo "check_spills: $log: $kernels kernel compilations, no spills, no stack frames"
    fi
done
exit $status
