/*
 * omp_kernels.h - what the OpenMP backend's kernels receive, and the kernel
 * entry points: one per instruction set (generic, AVX2, AVX-512) and dtype,
 * all stamped from one template (omp_kernels_impl.h), chosen at plan time.
 *
 * Every kernel reproduces reference/spmm_designs.h bit for bit: each output
 * element gets exactly the floating-point operations of its design, in the
 * same order; threads and vectors only choose which elements are computed
 * where and when.
 */
#ifndef LOOM_OMP_KERNELS_H
#define LOOM_OMP_KERNELS_H

#include "loom.h"

#include <stdint.h>

typedef struct ompk_args {
    /* A, CSR */
    int64_t rows, nnz;
    const int64_t *row_offsets;
    const int32_t *col_indices;
    const void *values;
    /* X: element (k, c) at x[k*x_rs + c*x_cs]; when n > 1, x_cs == 1 (the
     * backend packs column-major X into a row-major scratch first). */
    const void *x;
    int64_t x_rs, x_cs;
    /* Y: element (i, c) at y[i*y_rs + c*y_cs] */
    void *y;
    int64_t y_rs, y_cs;
    int64_t n;
    double alpha, beta;
    /* the strategy's arithmetic parameters */
    loom_mloop mloop;
    loom_kloop kloop;
    int lanes;
    int64_t chunk;
    /* work split: threads asked for; RB: parts+1 row boundaries balanced by
     * non-zeros (plus one per row) */
    int threads;
    int parts;
    const int64_t *row_part;
    /* EB: first row of each chunk (lib/eb_chunks.c) and the carries of rows
     * that cross chunks: per chunk, the piece of its first row when that row
     * began in an earlier chunk, and the piece of its last row when that row
     * goes on into a later chunk (chunks * n reals each). */
    const int64_t *chunk_first_row;
    int64_t chunks;
    void *carry_first, *carry_last;
    /* RB+SR, N = 1, rows in lanes (sliced copy of A made at plan time;
     * sell_h == 0: none, use the CSR arrays).  Slice s holds rows
     * s*h .. s*h+h-1, column-major: entry t of lane l at sell_ptr[s] + t*h + l
     * (values and column indices), for t < the slice's longest row; lanes
     * past a row's length (sell_len) are padding that the kernel never
     * lets into an accumulator.  sell_min: the slice's shortest row.
     * sell_part: parts+1 slice boundaries per thread.  sell_rows: NULL when
     * lane l of slice s is row s*h+l; else rows are sorted by length inside
     * windows (SELL-C-sigma) and lane l of slice s is row sell_rows[s*h+l]
     * (-1: no row).  sell_rows32 (instead of sell_rows): the sorted copy,
     * only the non-empty rows, longest first within each window of
     * sell_window rows, lane l of slice s is row sell_rows32[s*h+l] (-1:
     * none); the empty rows, marked in the
     * bitmap sell_empty (bit i%64 of word i/64), are finished by a separate
     * pass, thread part p taking rows sell_empty_part[p] .. [p+1] (whole
     * words).  Window w (sell_window a multiple of 64) has slices
     * sell_win_slice[w] .. [w+1]; where sell_win_part is not NULL, thread
     * part p takes windows sell_win_part[p] .. [p+1] instead, each
     * window's slices then its empty rows. */
    /* RB+SR: interleave the fma chains of several rows (1; 0: the earlier
     * kernels, for comparison: LOOM_OMP_NO_INTERLEAVE) */
    int interleave;
    int sell_h;
    int64_t sell_slices;
    const int64_t *sell_ptr;
    const int32_t *sell_len, *sell_min, *sell_cols;
    const void *sell_vals;
    const int64_t *sell_part;
    const int64_t *sell_rows;
    const int32_t *sell_rows32;
    const uint64_t *sell_empty;
    const int64_t *sell_empty_part;
    int64_t sell_window;
    const int64_t *sell_win_slice, *sell_win_part;
} ompk_args;

typedef void (*ompk_spmm_fn)(const ompk_args *args);
/* Copy column-major X (rows x n, leading dimension ld) into row-major dst
 * (leading dimension n), in parallel. */
typedef void (*ompk_pack_fn)(const void *src, int64_t rows, int64_t n, int64_t ld, void *dst,
                             int threads);

#define OMPK_DECLARE(isa)                                                                       \
    __attribute__((visibility("hidden"))) void ompk_spmm_##isa##_f32(const ompk_args *args);   \
    __attribute__((visibility("hidden"))) void ompk_spmm_##isa##_f64(const ompk_args *args);   \
    __attribute__((visibility("hidden"))) void ompk_pack_##isa##_f32(                           \
        const void *src, int64_t rows, int64_t n, int64_t ld, void *dst, int threads);          \
    __attribute__((visibility("hidden"))) void ompk_pack_##isa##_f64(                           \
        const void *src, int64_t rows, int64_t n, int64_t ld, void *dst, int threads);

OMPK_DECLARE(generic)
OMPK_DECLARE(avx2)
OMPK_DECLARE(avx512)

#endif
