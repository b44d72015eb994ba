OMP_NUM_THREADS=2 nice -n -20 ./bench/dual_bench spgemm --reps 3 --threads 2   (build VM: AMD EPYC Zen 4, 2 cores, AVX-512; OpenBLAS 0.3.21; commit after 908d27a)
