/*
 * select_rules.c - the rules selector: the decision procedure of GE-SpMM
 * and DA-SpMM, written down.
 *   K-loop: parallel reduction when N is small (N <= 4): too few columns to
 *           keep lanes busy, so lanes split the row instead.
 *   M-loop: element balance when row lengths are skewed (std/mean above a
 *           threshold, or a row far longer than the mean), else row balance.
 *   N-loop: follow the layout of X and Y, so the inner loop is contiguous.
 * The thresholds are a first fit; the selection work refits them on
 * loom's own measurements.
 */
#include "config.h"
#include "loom_internal.h"

#include <stdio.h>

#define PR_MAX_N 4
#define EB_MIN_CV 1.0
#define EB_MIN_MAX_OVER_MEAN 32.0

static int lanes_for_mean(double mean)
{
    int w = 2;
    while (w < LOOM_LANES_MAX && w < mean)
        w *= 2;
    return w;
}

void loom__select_rules(const loom_features *f, int64_t n, loom_layout layout, loom_backend_id backend,
                        loom_strategy *s, char *why, size_t len)
{
    bool pr = n <= PR_MAX_N;
    bool skewed = f->row_cv > EB_MIN_CV || f->max_over_mean > EB_MIN_MAX_OVER_MEAN;
    loom_strategy_design(0, s);
    s->kloop = pr ? LOOM_K_PR : LOOM_K_SR;
    s->mloop = skewed ? LOOM_M_EB : LOOM_M_RB;
    s->nloop = layout == LOOM_ROW_MAJOR ? LOOM_N_RM : LOOM_N_CM;
    /* Lanes: a GPU group matches the typical row length (GE-SpMM's
     * sub-warps); a CPU keeps one SIMD register's width. */
    s->lanes = backend == LOOM_BACKEND_CUDA ? lanes_for_mean(f->row_mean) : 8;
    s->chunk = backend == LOOM_BACKEND_CUDA ? 8 * (int64_t)s->lanes : 256;
    if (s->chunk % s->lanes)
        s->chunk = s->lanes * 32;
    snprintf(why, len,
             "rules: N = %lld %s %d, so %s reduction; row length std/mean = %.2f and max/mean = "
             "%.1f %s (thresholds %.1f, %.0f), so %s balance; X and Y are %s, so the %s N-loop",
             (long long)n, pr ? "<=" : ">", PR_MAX_N, pr ? "parallel (PR)" : "sequential (SR)",
             f->row_cv, f->max_over_mean, skewed ? "are skewed" : "are even", EB_MIN_CV,
             EB_MIN_MAX_OVER_MEAN, skewed ? "element (EB)" : "row (RB)",
             layout == LOOM_ROW_MAJOR ? "row-major" : "column-major",
             layout == LOOM_ROW_MAJOR ? "RM" : "CM");
}
