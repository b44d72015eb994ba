/*
 * omp_sell.h - sliced copies of A for the OpenMP backend's N = 1 RB+SR
 * kernel (rows in vector lanes, SELL-C-sigma), made and raced at plan time
 * (omp_sell.c).
 */
#ifndef LOOM_OMP_SELL_H
#define LOOM_OMP_SELL_H

#include "loom.h"
#include "omp_kernels.h"
#include "omp_topology.h"

#include <stddef.h>
#include <stdint.h>

/* A sliced copy of A for N = 1 RB+SR, rows in vector lanes (the layout is
 * described at ompk_args; h == 0: none). */
typedef struct omp_sell {
    int h;
    int64_t slices;
    int64_t *ptr, *part, *rows;
    int32_t *len, *min, *cols, *rows32;
    void *vals;
    uint64_t *empty;
    int64_t *empty_part;
    /* The sorted copy: rows sorted inside windows of `window` rows;
     * win_slice (windows + 1): each window's first slice; win_part (parts
     * + 1, NULL when the windows are too few to share out): each part's
     * first window. */
    int64_t window, windows;
    int64_t *win_slice, *win_part;
    size_t bytes;
} omp_sell;

#define OMP_SELL_API __attribute__((visibility("hidden")))

/* Vector lanes of the kernels for this instruction set and dtype (0: the
 * portable kernels, which have no gather and keep the CSR path). */
OMP_SELL_API int omp_sell_height(omp_isa isa, loom_dtype dtype);
/* Make the sliced copies worth a try for A (h lanes; the sorted copy's
 * windows sized from l2, the L2 of one core), race them against the
 * CSR kernel spmm, with A's arrays and the work split (threads, parts,
 * row_part, interleave) as `work` gives them, and leave the winner in *out
 * (h == 0: CSR won). */
OMP_SELL_API loom_status omp_sell_choose(omp_sell *out, const loom_csr *A, size_t es, int h,
                                         size_t l2, ompk_spmm_fn spmm, const ompk_args *work);
/* Point the kernel's arguments at a sliced copy (NULL or h == 0: the CSR
 * kernel). */
OMP_SELL_API void omp_sell_args(ompk_args *g, const omp_sell *s);
OMP_SELL_API void omp_sell_free(omp_sell *s);

#endif
