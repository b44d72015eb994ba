# cpu_bench.gp - written by cpu_bench: best peer time / loom time per matrix and N
set terminal svg size 1400,700 dynamic font 'sans,11'
set output '/tmp/b5/cpu_bench.svg'
set datafile separator ','
set title 'loom (OpenMP backend, best fixed design per input) vs the best of librsb, GraphBLAS, Eigen (2 threads, float)'
set ylabel 'best peer time / loom time (> 1: loom faster)'
set logscale y 2
set grid ytics
set xtics rotate by -60 font ',8'
set key outside right
plot 1 notitle lc rgb 'black' dt 2, '/tmp/b5/cpu_bench.csv' using ($6==1 && $16>0 ? $16 : 1/0):xtic(1) every ::1 with points pt 7 ps 0.8 title 'N = 1', '/tmp/b5/cpu_bench.csv' using ($6==4 && $16>0 ? $16 : 1/0):xtic(1) every ::1 with points pt 7 ps 0.8 title 'N = 4', '/tmp/b5/cpu_bench.csv' using ($6==16 && $16>0 ? $16 : 1/0):xtic(1) every ::1 with points pt 7 ps 0.8 title 'N = 16', '/tmp/b5/cpu_bench.csv' using ($6==64 && $16>0 ? $16 : 1/0):xtic(1) every ::1 with points pt 7 ps 0.8 title 'N = 64', '/tmp/b5/cpu_bench.csv' using ($6==256 && $16>0 ? $16 : 1/0):xtic(1) every ::1 with points pt 7 ps 0.8 title 'N = 256'
