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
 * Past that K the resident kernel holds X in strips of 32 columns (up to
 * 2904 rows on an H200), which beat the tiles form on the DLMC layers of
 * sparsity 0.95 and 0.98 there (512 x 2048, 1000 x 2048, 256 x 2304 at
 * N = 256-512: 512 x 2048 at 0.95 and N = 256 13.1 against 14.1 us) but
 * not at 0.9 (14.7 against 16.8), so there the tiles form needs a density
 * of 0.075: the plan's pick against the best form over those layers goes
 * from 0.953 to 0.987 (bench/results/tc/run-2026-11-29-h200-s42,
 * tiles_rule.py; in-sample).
 */
#ifndef LOOM_SELECT_TC_H
#define LOOM_SELECT_TC_H

#include <stdint.h>

#define LOOM_TC_TILES_MIN_N 256       /* columns of X */
#define LOOM_TC_TILES_MIN_DENSITY 0.04 /* nnz / (M K) */
#define LOOM_TC_TILES_MIN_DENSITY_NARROW 0.075 /* ... where K fits the narrower strips */
#define LOOM_TC_TILES_MIN_WORK 8e6     /* nnz * N: the products */
#define LOOM_TC_TILES_MIN_WORK_SHORT_K 2e8 /* ... where K fits the resident strips */
#define LOOM_TC_RESIDENT_MAX_K 768     /* the rows form's resident-strip kernel fits, where the
                                        * device does not say (an H200 holds up to 1613) */
#define LOOM_TC_RESIDENT_MAX_K_NARROW 1382 /* ... in strips of 32 columns: the same shared memory
                                            * at 80 bytes a row, not 144 (an H200: 2904) */
#define LOOM_TC_TILES_MAX_M 8192       /* rows: past this the dense MMA work dominates */

/* The largest K the resident-strip kernel holds in strips of 64 columns
 * (max_k) and of 32 (max_k_narrow): the device's answer
 * (loom__device_info.tc_resident_max_k, _narrow), or the defaults above
 * where it has none (0). */
typedef struct loom__tc_bounds {
    int64_t max_k, max_k_narrow;
} loom__tc_bounds;
static inline loom__tc_bounds loom__tc_resident_bounds(int64_t device_max_k, int64_t device_max_k_narrow)
{
    loom__tc_bounds b;
    b.max_k = device_max_k > 0 ? device_max_k : LOOM_TC_RESIDENT_MAX_K;
    b.max_k_narrow = device_max_k_narrow > 0 ? device_max_k_narrow : LOOM_TC_RESIDENT_MAX_K_NARROW;
    return b;
}

/* b: loom__tc_resident_bounds's answer for the device. */
static inline int loom__tc_prefer_tiles(int64_t m, int64_t k, int64_t nnz, int64_t n, loom__tc_bounds b)
{
    if (m <= 0 || k <= 0)
        return 0;
    const double density = (double)nnz / ((double)m * (double)k);
    const double min_work = k <= b.max_k ? LOOM_TC_TILES_MIN_WORK_SHORT_K : LOOM_TC_TILES_MIN_WORK;
    const double min_density =
        k > b.max_k && k <= b.max_k_narrow ? LOOM_TC_TILES_MIN_DENSITY_NARROW : LOOM_TC_TILES_MIN_DENSITY;
    return n >= LOOM_TC_TILES_MIN_N && m <= LOOM_TC_TILES_MAX_M && density >= min_density &&
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
