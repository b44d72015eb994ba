/*
 * omp_relabel.c - N = 1 on inputs whose x exceeds the L2: A's columns
 * relabeled so that the entries of x that most non-zeros read are packed
 * together and the columns no non-zero reads are dropped, and x gathered
 * into that order (a pass over the kept columns) before each product.
 *
 * On power-law inputs (R-MAT) the SpMV's time was x's gather misses: the
 * hot columns lie apart, one to a cache line, and two thirds of the
 * columns are empty, so the lines the product touches span most of x
 * (6.2 of 8 MiB at scale 21, 12 of 16 at 22) against a 1 MiB L2.
 * Relabeled, x' is a third of x and its first quarter-L2 holds the
 * hottest columns.
 *
 * The bits do not change: each non-zero keeps its place in its row and
 * meets the same value of x (x'[new(c)] == x[c]), so every row's sequence
 * of operations (order_rb_sr.h and the others) is the reference's; only
 * the address each value of x is read from moves.
 *
 * The order: the hot columns (the most read ones, as many as fill a
 * quarter of the L2) first, by degree, highest first; then the other
 * non-empty columns in A's order, so cold columns keep their neighbours
 * and the gather reads most of x in one ascending run.  (Measured on the
 * Zen 4 VM, bench/results/cpu-2026-11-25-spmv-floor: as fast as or faster
 * than a full order by degree class, floor(log2(degree)), which splits
 * neighbouring cold columns between classes, and than dropping the empty
 * columns alone; the hot group by degree rather than in A's order gained
 * 2% on R-MAT s21.)
 */
#include "config.h"
#include "loom_internal.h"
#include "omp_relabel.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void omp_relabel_free(omp_relabel *r)
{
    loom__free(r->src);
    loom__free(r->cols);
    loom__free(r->xp);
    memset(r, 0, sizeof *r);
}

/* The sum of the m largest of v[0..n), without sorting all of v: values
 * below HIST_CAP go to a histogram, the few above it (at most total /
 * HIST_CAP of them) are sorted. */
#define HIST_CAP 65536

static int cmp_desc(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

static int64_t sum_of_largest(const int64_t *v, int64_t n, int64_t m, bool *ok)
{
    int64_t *hist = loom__calloc(HIST_CAP, sizeof *hist), big = 0;
    for (int64_t i = 0; i < n; i++)
        big += v[i] >= HIST_CAP;
    int64_t *top = loom__malloc(((size_t)big + 1) * sizeof *top);
    *ok = hist && top;
    int64_t sum = 0;
    if (*ok) {
        for (int64_t i = 0, k = 0; i < n; i++) {
            if (v[i] >= HIST_CAP)
                top[k++] = v[i];
            else
                hist[v[i]]++;
        }
        qsort(top, (size_t)big, sizeof *top, cmp_desc);
        for (int64_t i = 0; i < big && m > 0; i++, m--)
            sum += top[i];
        for (int64_t d = HIST_CAP - 1; d > 0 && m > 0; d--) {
            const int64_t take = hist[d] < m ? hist[d] : m;
            sum += take * d;
            m -= take;
        }
    }
    loom__free(hist);
    loom__free(top);
    return sum;
}

/* The hot group: columns read by at least d_hot non-zeros, d_hot the
 * least degree whose columns (with all hotter ones) fit in `budget`
 * bytes.  hist: columns per degree, degrees >= HIST_CAP in the last
 * entry (always hot: they fit, or the matrix has over 2^16 * budget / es
 * non-zeros in them). */
static int64_t hot_degree(const int64_t *hist, size_t budget, size_t es)
{
    const int64_t fit = (int64_t)(budget / es);
    int64_t hot = 0, d_hot = HIST_CAP;
    for (int64_t d = HIST_CAP; d >= 1; d--) {
        if (hot + hist[d] > fit)
            break;
        hot += hist[d];
        d_hot = d;
    }
    return d_hot;
}

/* The hot group's share of the L2: the other three quarters hold the
 * stream of A, y's lines being written, and the colder columns. */
#define RELABEL_HOT_SHARE 4

/* The relabeling pays where x exceeds the L2 and, relabeled, x' either
 * takes at most half the bytes of the lines of x the product touches
 * (empty columns dropped: R-MAT s21 6.2 -> 2.6 MiB), or the L2's worth
 * of x's hottest entries would miss at most half as often (hot columns
 * that lay one to a line, packed).  Where neither holds there is nothing to gain
 * and the gather to pay: on the band (x read in order, every column used)
 * relabeling made the SpMV 1.4x slower. */
#define RELABEL_GAIN 0.5

loom_status omp_relabel_plan(omp_relabel *r, const loom_csr *A, size_t es, size_t l2,
                             const char *l2_source, int force, int threads)
{
    memset(r, 0, sizeof *r);
    const int64_t cols = A->cols, nnz = A->nnz;
    const int32_t *ci = A->col_indices;
    r->budget = l2;
    if (force == 0) {
        snprintf(r->why, sizeof r->why, "columns as they lie (relabeling turned off)");
        return LOOM_SUCCESS;
    }
    if (force < 0 && (size_t)cols * es <= l2) {
        snprintf(r->why, sizeof r->why, "columns as they lie: x (%zu KiB) fits in the L2 (%zu KiB, %s)",
                 (size_t)cols * es >> 10, l2 >> 10, l2_source);
        return LOOM_SUCCESS;
    }
    if (nnz == 0 || cols == 0 || cols > INT32_MAX) {
        snprintf(r->why, sizeof r->why, "columns as they lie (nothing to relabel)");
        return LOOM_SUCCESS;
    }
    const int64_t per_line = 64 / (int64_t)es, lines = (cols + per_line - 1) / per_line;
    int64_t *deg = loom__calloc((size_t)cols, sizeof *deg);
    int64_t *line = loom__calloc((size_t)lines, sizeof *line);
    int64_t *hist = loom__calloc(HIST_CAP + 1, sizeof *hist);
    int32_t *new_of = loom__malloc((size_t)cols * sizeof *new_of);
    bool ok = deg && line && hist && new_of;
    loom_status st = LOOM_SUCCESS;
    if (!ok)
        goto oom;
    for (int64_t k = 0; k < nnz; k++)
        deg[ci[k]]++;
    int64_t kp = 0, hot = 0, touched = 0;
    for (int64_t c = 0; c < cols; c++) {
        line[c / per_line] += deg[c];
        hist[deg[c] < HIST_CAP ? deg[c] : HIST_CAP]++;
        kp += deg[c] > 0;
    }
    for (int64_t l = 0; l < lines; l++)
        touched += line[l] > 0;
    const int64_t d_hot = hot_degree(hist, l2 / RELABEL_HOT_SHARE, es);
    for (int64_t c = 0; c < cols; c++)
        hot += deg[c] >= d_hot;
    r->src = loom__malloc((size_t)kp * sizeof *r->src);
    if (!r->src)
        goto oom;
    /* Hot columns by degree, highest first (a counting sort over hist;
     * ties in A's order), so the most read share the L1 too; then the
     * others in A's order. */
    int64_t *pos = loom__calloc(HIST_CAP + 1, sizeof *pos);
    if (!pos)
        goto oom;
    for (int64_t d = HIST_CAP, at = 0; d >= d_hot; d--) {
        pos[d] = at;
        at += hist[d];
    }
    for (int64_t c = 0, w = hot; c < cols; c++) {
        const int64_t j = deg[c] >= d_hot ? pos[deg[c] < HIST_CAP ? deg[c] : HIST_CAP]++
                          : deg[c] > 0    ? w++
                                          : -1;
        new_of[c] = (int32_t)j;
        if (j >= 0)
            r->src[j] = (int32_t)c;
    }
    loom__free(pos);
    /* The shares of x's reads that an L2's worth of x would take: its
     * hottest lines as the columns lie, its first columns relabeled. */
    const int64_t budget_cols = (int64_t)(l2 / es), budget_lines = (int64_t)(l2 / 64);
    int64_t after = 0;
    for (int64_t j = 0; j < kp && j < budget_cols; j++)
        after += deg[r->src[j]];
    const int64_t before = sum_of_largest(line, lines, budget_lines, &ok);
    if (!ok)
        goto oom;
    r->hot_before = (double)before / (double)nnz;
    r->hot_after = (double)after / (double)nnz;
    const size_t bytes_before = (size_t)touched * 64, bytes_after = (size_t)kp * es;
    const bool smaller = (double)bytes_after <= RELABEL_GAIN * (double)bytes_before;
    const bool fewer_misses = 1.0 - r->hot_after <= RELABEL_GAIN * (1.0 - r->hot_before);
    const bool pays = (size_t)cols * es > l2 && (smaller || fewer_misses);
    snprintf(r->why, sizeof r->why,
             "%s: x' %zu KiB against %zu KiB of x's lines read; the L2's worth (%zu KiB, %s) "
             "of x' takes %.0f%% of the reads, of x %.0f%%; hot: %lld columns of >= %lld reads%s",
             force > 0 ? "columns relabeled (forced)"
             : pays    ? "columns relabeled (hot first, empty ones dropped)"
                       : "columns as they lie",
             bytes_after >> 10, bytes_before >> 10, l2 >> 10, l2_source, 100 * r->hot_after,
             100 * r->hot_before, (long long)hot, (long long)d_hot,
             force > 0 || pays ? "" : " (relabeling needs x' at most half the bytes, or half the misses)");
    if (force < 0 && !pays) {
        loom__free(r->src);
        r->src = NULL;
        goto done;
    }
    r->kp = kp;
    r->cols = loom__malloc_huge((size_t)nnz * sizeof *r->cols);
    r->xp = loom__malloc_huge((size_t)kp * es);
    if (!r->cols || !r->xp)
        goto oom;
    int32_t *out = r->cols;
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
    for (int64_t k = 0; k < nnz; k++)
        out[k] = new_of[ci[k]];
    /* First touch of x' by the gather's split. */
    char *xp = r->xp;
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
    for (int64_t j = 0; j < kp; j++)
        memset(xp + (size_t)j * es, 0, es);
    r->bytes = (size_t)kp * (sizeof *r->src + es) + (size_t)nnz * sizeof *r->cols;
    goto done;
oom:
    st = loom__error(LOOM_ERR_OUT_OF_MEMORY, "openmp: out of memory for the relabeled columns");
    omp_relabel_free(r);
done:
    loom__free(deg);
    loom__free(line);
    loom__free(hist);
    loom__free(new_of);
    return st;
}

void omp_relabel_gather(const omp_relabel *r, const void *x, int64_t xs, size_t es, int threads)
{
    const int64_t kp = r->kp;
    const int32_t *src = r->src;
    if (es == sizeof(float)) {
        const float *xf = x;
        float *d = r->xp;
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
        for (int64_t j = 0; j < kp; j++)
            d[j] = xf[(int64_t)src[j] * xs];
    } else {
        const double *xd = x;
        double *d = r->xp;
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
        for (int64_t j = 0; j < kp; j++)
            d[j] = xd[(int64_t)src[j] * xs];
    }
}
