cd /work/main
t() { LOOM_OMP_ISA=$1 ./tools/loom spmm /work/shared/data/bench/$2.mtx.gz -n $3 -b openmp -d $4 -t $5 -r 30 2>&1 | grep -i 'time:' | awk '{print $2}'; }
for c in "citeseer_allx 8 eb-rm-sr:chunk=4096 f64" "citeseer_allx 8 rb-rm-sr f64" "MIT8 8 eb-rm-sr:chunk=4096 f64" "MIT8 8 rb-rm-sr f64" "citeseer_allx 16 rb-rm-sr f64" "MIT8 16 rb-rm-sr f32" "citeseer_allx 16 rb-rm-sr f32" "MIT8 64 rb-rm-sr f32" "citeseer_allx 64 rb-rm-sr f64"; do
 set -- $c; echo "$c avx512 $(t avx512 $1 $2 $3 $4) avx2 $(t avx2 $1 $2 $3 $4)"
done
