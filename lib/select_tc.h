/*
 * select_tc.h - which tensor-core form and MMA depth the rules pick
 * (loom-designs(7)): the tiles form where X's rows would be gathered many
 * times over (wide N, a dense enough A, much gather work), else the rows
 * form (TCA-SpMM), with k = 8 on short rows.  Shared by the rules selector
 * (lib/plan.c) and tc_bench's "auto" column, so the benchmark reports what
 * a plan would pick.
 *
 * Fitted on the H100 records of bench/results/tc/run-2026-11-26-h100-tiles
 * (all 452 DLMC layers, N = 64..512): the tiles form's time is a fixed
 * ~10 us plus the dense work, the rows form's grows with nnz * N.  The one
 * tall layer (33288 x 512) is the reason for the cap on M: there the tiles
 * form's dense MMAs (M*K*N) cost more than the rows form's gathers.
 * Where K is small enough for the rows form's resident-strip kernel (X
 * strips held in shared memory: tc_spmm.cu rx_try; 1613 rows on an H200,
 * as the device reports through loomcu_tc_resident_max_k, 768 where it
 * does not say) the rows form wins on every DLMC layer measured, N = 256
 * to 512, but 1024 x 256 at 0.9 and N = 512 (tiles 1.14x), since that
 * kernel runs one 16-warp block a multiprocessor
 * (bench/results/tc/run-2026-11-29-h200-s41, calls 3 and 4, two machines:
 * 2048 x 512 at 0.9-0.95 and 1024 x 512 at 0.9 went 1.02-1.4x faster than
 * the tiles the earlier bound of 1.6e7 gave them).  So the tiles form
 * takes those K only past a work of 2e8, beyond the measured range
 * (N >= 1024 on the 2048-row layers), where its dense MMAs may amortize.
 */
#ifndef LOOM_SELECT_TC_H
#define LOOM_SELECT_TC_H

#include <stdint.h>

#define LOOM_TC_TILES_MIN_N 256       /* columns of X */
#define LOOM_TC_TILES_MIN_DENSITY 0.04 /* nnz / (M K) */
#define LOOM_TC_TILES_MIN_WORK 8e6     /* nnz * N: the products */
#define LOOM_TC_TILES_MIN_WORK_SHORT_K 2e8 /* ... where K fits the resident strips */
#define LOOM_TC_RESIDENT_MAX_K 768     /* the rows form's resident-strip kernel fits, where the
                                        * device does not say (an H200 holds up to 1613) */
#define LOOM_TC_TILES_MAX_M 8192       /* rows: past this the dense MMA work dominates */

/* The largest K the resident-strip kernel holds: the device's answer
 * (loom__device_info.tc_resident_max_k), or LOOM_TC_RESIDENT_MAX_K where
 * it has none (0). */
static inline int64_t loom__tc_resident_max_k(int64_t device_max_k)
{
    return device_max_k > 0 ? device_max_k : LOOM_TC_RESIDENT_MAX_K;
}

/* resident_max_k: loom__tc_resident_max_k's answer for the device. */
static inline int loom__tc_prefer_tiles(int64_t m, int64_t k, int64_t nnz, int64_t n, int64_t resident_max_k)
{
    if (m <= 0 || k <= 0)
        return 0;
    const double density = (double)nnz / ((double)m * (double)k);
    const double min_work = k <= resident_max_k ? LOOM_TC_TILES_MIN_WORK_SHORT_K : LOOM_TC_TILES_MIN_WORK;
    return n >= LOOM_TC_TILES_MIN_N && m <= LOOM_TC_TILES_MAX_M && density >= LOOM_TC_TILES_MIN_DENSITY &&
           (double)nnz * (double)n >= min_work;
}

/* The rows form's MMA depth: k = 8 where rows are short (a mean under 8
 * non-zeros): fewer padded products per group.  Four H100 records since
 * the kernel's trimming (run-2026-11-26-h100-s20-median to
 * run-2026-11-27-h100-resident) put k = 16 level with k = 8 at a mean of
 * 8-16 and N = 64, 2-3% ahead at 16-32 (the earlier rule kept k = 8 there
 * up to 32 at N <= 64), and 8-20% ahead on longer rows at N >= 128. */
static inline int loom__tc_rows_k(int64_t m, int64_t nnz)
{
    const double mean = m > 0 ? (double)nnz / (double)m : 0;
    return mean < 8 ? 8 : 16;
}

#endif
