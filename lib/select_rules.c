/*
 * select_rules.c - the rules selector: the decision procedure of GE-SpMM
 * and DA-SpMM, written down.
 *   K-loop: parallel reduction when N is small (N <= 4): too few columns to
 *           keep lanes busy, so lanes split the row instead.
 *   M-loop: element balance when row lengths are skewed (std/mean above a
 *           threshold, or a row far longer than the mean), else row balance.
 *   N-loop: follow the layout of X and Y, so the inner loop is contiguous.
 * The papers' thresholds stay for the reference backend.  The others'
 * were refitted on loom's own measurements (bench/select_eval.py, tables
 * in bench/results/selection/):
 *   - OpenMP (38 matrices, N = 1..256, 2 threads): neither PR nor EB paid
 *     for itself at any tested threshold, so its rules always say RB and
 *     SR (held out: 0.943 of the oracle against 0.668 with the papers'
 *     thresholds);
 *   - CUDA (H100, 38 matrices, N = 1..512): PR up to N = 8, EB where
 *     std/mean > 3 or max/mean > 64, and the designs' speed options as the
 *     benchmark's candidates have them (VDL, and CSC under SR; EB+SR in
 *     chunks of 128): held out 0.881 of the oracle, against 0.830 for the
 *     papers' thresholds with the same designs and 0.668 for the rules
 *     before the refit (as gpu_bench timed them);
 *   - CUDA again (H100, 2026-11-26), after EB+SR at N <= 2 became the
 *     8-lane narrow walk: under EB, SR at N <= 2 where A has at least
 *     300000 non-zeros (chunks of 128 against the best EB+PR, N = 1 and
 *     2: R-MAT 1e6-1e8 0.55-0.92 of its time, soc-Slashdot 0.83-0.86,
 *     email-Enron 0.95), PR below that (the skewed
 *     graphs of 11K-180K non-zeros: 1.05-1.15x slower under SR;
 *     bench/results/cuda-2026-11-26-n1-deep/);
 *   - and (H100, 2026-11-27) at N = 4, where EB+SR became the narrow walk
 *     too: the same rule up to N = 4 (chunks of 128 against the best
 *     EB+PR at N = 4: R-MAT 1e6 and 1e7 0.60-0.67 of its time,
 *     soc-Slashdot 0.78, email-Enron 0.96; 1.06-1.08x slower on the
 *     skewed graphs under 300000 non-zeros;
 *     bench/results/cuda-2026-11-27-h100-narrow-n4/);
 *   - and (H100, 2026-11-27) after SR's wide walks reached N = 5..7:
 *     SR under EB from N = 3 whatever A's size, at N <= 2 from 300000
 *     non-zeros, and EB from std/mean > 2 (the grid's refit).  On the 38
 *     matrices at N = 1..512 with N = 3, 5, 6, 7 and 12 added
 *     (bench/results/selection/README.md, "wide walks from N = 5"): 0.879
 *     of the oracle against 0.826 for the rules before (N = 5..8:
 *     0.75-0.91 against 0.57-0.81).
 * Refit again when a backend's kernels change.
 */
#include "config.h"
#include "loom_internal.h"

#include <stdio.h>
#include <string.h>

typedef struct rule_thresholds {
    const char *name;            /* in the explanation */
    int64_t pr_max_n;            /* PR when N <= this */
    double eb_min_cv;            /* EB when std/mean > this ... */
    double eb_min_max_over_mean; /* ... or max/mean > this */
    int64_t sr_eb_min_n;         /* but SR under EB from this N on ... */
    int64_t sr_eb_min_nnz;       /* ... and below it where A has at least this many non-zeros */
} rule_thresholds;

/* A threshold no matrix or N reaches means "never". */
#define NEVER INT64_MAX
static const rule_thresholds papers = {"the papers'", 4, 1.0, 32.0, NEVER, NEVER};
static const rule_thresholds openmp_refit = {"refitted", 0, 1e9, 1e9, NEVER, NEVER};
static const rule_thresholds cuda_refit = {"refitted", 8, 2.0, 64.0, 3, 300000};

/* Sub-warps up to one warp: the papers' rule.  Lanes across warps
 * (RB + PR up to 256) are wide_lanes'. */
static int lanes_for_mean(double mean)
{
    int w = 2;
    while (w < 32 && w < mean)
        w *= 2;
    return w;
}

/*
 * RB + PR lanes across warps where a few long rows would set the time:
 * where the longest row has WIDE_MIN_ROW non-zeros or more, the widest
 * power of two from 32 to 256 that keeps rows x lanes <= WIDE_THREADS
 * (half the threads an H100's 132 multiprocessors hold).  Fitted on
 * bench/results/cuda-2026-11-27-h100-wide-lanes/ (RB + PR at N <= 16, the
 * 40 real inputs): 1.053x the best width's time in geometric mean, against
 * 1.233x for the sub-warp rule alone.  0 where the rule does not apply.
 */
#define WIDE_MIN_ROW 64.0
#define WIDE_THREADS ((int64_t)1 << 17)
static int wide_lanes(const loom_features *f)
{
    if (f->row_max < WIDE_MIN_ROW || f->rows * 64 > WIDE_THREADS)
        return 0;
    int w = 64;
    while (w < LOOM_LANES_MAX && f->rows * (w * 2) <= WIDE_THREADS)
        w *= 2;
    return w;
}

/* The CUDA designs as the refit scored them (the benchmark's candidates):
 * PR with a group of lanes matching the mean row length (GE-SpMM's
 * sub-warps; under EB at least 8, in chunks of 64 for 8 lanes and 256
 * for more) and VDL; SR with VDL and CSC, EB+SR in chunks of 128. */
static void cuda_options(const loom_features *f, loom_strategy *s)
{
    s->techniques = LOOM_TECH_VDL;
    if (s->kloop == LOOM_K_PR) {
        s->lanes = lanes_for_mean(f->row_mean);
        const int wide = s->mloop == LOOM_M_RB ? wide_lanes(f) : 0;
        if (wide > s->lanes)
            s->lanes = wide;
        if (s->mloop == LOOM_M_EB) {
            s->lanes = s->lanes < 8 ? 8 : s->lanes;
            s->chunk = s->lanes == 8 ? 64 : 256;
        }
    } else {
        s->techniques |= LOOM_TECH_CSC;
        s->chunk = 128;
    }
}

void loom__select_rules(const loom_features *f, int64_t n, loom_layout layout, loom_backend_id backend,
                        loom_strategy *s, char *why, size_t len)
{
    const rule_thresholds *t = backend == LOOM_BACKEND_OPENMP ? &openmp_refit
                               : backend == LOOM_BACKEND_CUDA ? &cuda_refit
                                                              : &papers;
    bool skewed = f->row_cv > t->eb_min_cv || f->max_over_mean > t->eb_min_max_over_mean;
    bool sr_eb = skewed && (n >= t->sr_eb_min_n || f->nnz >= t->sr_eb_min_nnz);
    bool pr_n = n <= t->pr_max_n;
    bool pr = pr_n && !sr_eb;
    loom_strategy_design(0, s);
    s->kloop = pr ? LOOM_K_PR : LOOM_K_SR;
    s->mloop = skewed ? LOOM_M_EB : LOOM_M_RB;
    s->nloop = layout == LOOM_ROW_MAJOR ? LOOM_N_RM : LOOM_N_CM;
    if (backend == LOOM_BACKEND_CUDA) {
        cuda_options(f, s);
    } else {
        /* A CPU keeps one SIMD register's width of lanes. */
        s->lanes = 8;
        s->chunk = 256;
    }
    char k_why[200];
    if (sr_eb && pr_n && n >= t->sr_eb_min_n)
        snprintf(k_why, sizeof k_why,
                 "N = %lld <= %lld but the rows are skewed and N >= %lld, so sequential (SR)",
                 (long long)n, (long long)t->pr_max_n, (long long)t->sr_eb_min_n);
    else if (sr_eb && pr_n)
        snprintf(k_why, sizeof k_why,
                 "N = %lld <= %lld but the rows are skewed and A has %lld >= %lld non-zeros, so "
                 "sequential (SR)",
                 (long long)n, (long long)t->pr_max_n, (long long)f->nnz,
                 (long long)t->sr_eb_min_nnz);
    else
        snprintf(k_why, sizeof k_why, "N = %lld %s %lld, so %s", (long long)n,
                 pr_n ? "<=" : ">", (long long)t->pr_max_n, pr ? "parallel (PR)" : "sequential (SR)");
    snprintf(why, len,
             "rules (%s thresholds): %s reduction; row length std/mean = "
             "%.2f and max/mean = %.1f %s (thresholds %.3g, %.3g), so %s balance; Y is %s, so "
             "the %s N-loop",
             t->name, k_why, f->row_cv, f->max_over_mean,
             skewed ? "are skewed" : "are even", t->eb_min_cv, t->eb_min_max_over_mean,
             skewed ? "element (EB)" : "row (RB)",
             layout == LOOM_ROW_MAJOR ? "row-major" : "column-major",
             layout == LOOM_ROW_MAJOR ? "RM" : "CM");
    if (s->kloop == LOOM_K_PR && s->lanes > 32) {
        size_t used = strlen(why);
        snprintf(why + used, len - used,
                 "; the longest row has %.0f >= %.0f non-zeros and there are only %lld rows, so "
                 "%d lanes a row (%d warps)",
                 f->row_max, WIDE_MIN_ROW, (long long)f->rows, s->lanes, s->lanes / 32);
    }
}
