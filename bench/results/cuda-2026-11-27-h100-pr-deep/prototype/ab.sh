#!/bin/bash
# one call: A/B of RB+PR deep (B) against HEAD (A) with gpu_ab_run.sh, then memcheck of B's quick suite
cd "$(dirname "$0")/../.."
R=$PWD/.devrun
T0=$(date +%s)
ONLY="${ONLY:-rajat01,facebook,Groebner,mbeacxc,projection_g3,final_dense,adder_dcop,soc-Slashdot,email-Enron,astro-ph,citeseer_adj,bcsstk13}" \
RMAT=, NS="${NS:-1,2,4,8}" ROUNDS="${ROUNDS:-2}" BUD="${BUD:-10}" OUT=$OUT bash bench/gpu_ab_run.sh
echo "ab done at $(( $(date +%s) - T0 ))s"
cd /tmp/B && LOOM_CUDA_TEST_QUICK=1 timeout 200 ./libtool --mode=execute compute-sanitizer \
    --tool memcheck --report-api-errors no --error-exitcode 9 tests/test_cuda > "$OUT/memcheck.log" 2>&1
echo "memcheck rc=$? at $(( $(date +%s) - T0 ))s"; grep -h "ERROR SUMMARY" "$OUT/memcheck.log"; tail -3 "$OUT/memcheck.log"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$OUT/device.txt"
