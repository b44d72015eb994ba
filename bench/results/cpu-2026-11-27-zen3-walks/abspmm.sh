#!/bin/bash
# A/B of two builds' loom spmm (openmp backend) in alternating rounds; prints
# matrix,dtype,N,design,A_ms,B_ms (min over rounds)
ROUNDS=${ROUNDS:-3}
for m in $MATS; do for t in $DTYPES; do for n in $NS; do
  for r in $(seq $ROUNDS); do for v in ${VARIANTS:-A B}; do
    out=$(/tmp/wt$v/tools/loom spmm /tmp/$m.mtx -n $n -t $t -b openmp ${DESIGN:+-d $DESIGN} -r 20 2>&1)
    ms=$(echo "$out" | awk '/^time:/{print $2}'); d=$(echo "$out" | awk '/^plan:/{print $3}')
    ok=$(echo "$out" | awk '/^reference:/{print $2}')
    echo "$m,$t,$n,$v,$d,$ms,$ok"
  done; done
done; done; done
