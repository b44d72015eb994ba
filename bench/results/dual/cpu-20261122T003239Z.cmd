./bench/dual_bench all --reps 5
