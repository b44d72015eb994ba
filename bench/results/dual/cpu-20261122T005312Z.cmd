./bench/dual_bench im2col --reps 9
