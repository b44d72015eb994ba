/*
 * synthetic_inputs.h - the generated SpMV inputs of the CPU benchmark
 * (bench/cpu_bench.c) and of the A/B harness kept with its results, float:
 *   bench_band_matrix: rows x rows, per_row entries a row within a band of
 *     4096 columns around the diagonal (the regular case, larger than the
 *     LLC at 2^20 rows);
 *   bench_rmat_matrix: R-MAT, 2^scale square, edge_factor * 2^scale edges
 *     drawn (the irregular case; threads only speed up the drawing).
 * On failure they print why and exit: they are a benchmark's inputs.
 */
#ifndef LOOM_BENCH_SYNTHETIC_INPUTS_H
#define LOOM_BENCH_SYNTHETIC_INPUTS_H

#include <stdint.h>

#include <loom.h>

loom_csr *bench_band_matrix(loom_context *ctx, int64_t rows, int per_row);
loom_csr *bench_rmat_matrix(loom_context *ctx, int scale, int edge_factor, int threads);

#endif
