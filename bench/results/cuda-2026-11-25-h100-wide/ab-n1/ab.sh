# A/B: build two tarballs side by side, test B, time both twice (interleaved), profile B's segments kernel
R=$PWD/.devrun
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
df -h /tmp . | tail -2; touch /tmp/x.c && echo tmp-writable
build() {
    cmp -s $R/$1.tar.gz /tmp/$1.tar.gz && [ -x /tmp/$1/bench/gpu_bench ] && echo reused && return 0
    cp $R/$1.tar.gz /tmp/$1.tar.gz
    rm -rf /tmp/$1 && mkdir -p /tmp/$1 && tar xzf $R/$1.tar.gz -C /tmp/$1 --strip-components=1 && cd /tmp/$1 &&
    ./configure -q "CMOCKA_CFLAGS=-I$R/cmocka/include" "CMOCKA_LIBS=-L$R/cmocka/lib -lcmocka -Wl,-rpath,$R/cmocka/lib" &&
    make -j8 lib/libloom.la bench/gpu_bench tests/test_cuda
}
build A > $OUT/buildA.log 2>&1 & build B > $OUT/buildB.log 2>&1 & wait
echo "built at $(el)s"; tail -n1 $OUT/buildA.log; tail -n1 $OUT/buildB.log
(cd /tmp/B && timeout 100 ./tests/test_cuda > $OUT/testB.log 2>&1; echo "test B rc=$? at $(el)s"; tail -2 $OUT/testB.log)
ONLYARG="--only ${ONLY:-soc-Slashdot,email-Enron,MIT8,bcsstk33,projection_g3,rajat01,wiki-Vote}"; [ "$ONLY" = all ] && ONLYARG=""
ARGS="--data $R/benchdata $ONLYARG --rmat ${RMAT:-1e6,1e7} --n ${NS:-8,16,32,64,128,256,512} --dtypes f32 --budget-ms ${BUD:-10}"
for r in $(seq 1 ${ROUNDS:-2}); do for v in A B; do
    (cd /tmp/$v && timeout 150 ./bench/gpu_bench $ARGS --out $OUT/${v}$r > $OUT/${v}${r}_stdout.txt 2>&1); echo "$v$r rc=$? at $(el)s"
done; done
echo "ncu done at $(el)s"; cd $OUT && tar czf ab.tgz --remove-files $(ls | grep -v ab.tgz); ls -la $OUT
