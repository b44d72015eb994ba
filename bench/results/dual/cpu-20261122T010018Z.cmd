./bench/dual_bench spgemm --reps 3
