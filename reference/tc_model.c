/*
 * tc_model.c - the tensor-core SpMM strategy in plain C (see tc_model.h for
 * the five steps), the MMA accumulation model, and the error bound used
 * where the model is not calibrated for the device.
 */
#include "tc_model.h"
#include "tc_round.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ the model */

void tc_model_default(tc_mma_model *m)
{
    memset(m, 0, sizeof *m);
    m->kind = TC_ACC_SEQUENTIAL;
    m->group = 1;
    m->align_bits = 0;
    m->align = TC_RZ;
    m->final = TC_RNE;
}

void tc_model_conservative(tc_mma_model *m, int k)
{
    tc_model_default(m);
    m->kind = TC_ACC_FUSED;
    m->group = k;
    m->align_bits = 20;
    m->align = TC_RD;
    m->final = TC_RZ;
}

static const char *mode_name(tc_round_mode r)
{
    return r == TC_RNE ? "rne" : r == TC_RZ ? "rz" : "rd";
}

void tc_model_format(const tc_mma_model *m, char *buf, size_t len)
{
    if (m->kind == TC_ACC_SEQUENTIAL)
        snprintf(buf, len, "sequential");
    else
        snprintf(buf, len, "fused group=%d align_bits=%d align=%s final=%s", m->group,
                 m->align_bits, mode_name(m->align), mode_name(m->final));
}

static int parse_mode(const char *s, tc_round_mode *r)
{
    if (!strncmp(s, "rne", 3))
        *r = TC_RNE;
    else if (!strncmp(s, "rz", 2))
        *r = TC_RZ;
    else if (!strncmp(s, "rd", 2))
        *r = TC_RD;
    else
        return -1;
    return 0;
}

int tc_model_parse(const char *text, tc_mma_model *m)
{
    tc_mma_model t;
    tc_model_default(&t);
    while (*text == ' ' || *text == '\t')
        text++;
    if (!strncmp(text, "sequential", 10)) {
        *m = t;
        return 0;
    }
    char align[8], final[8];
    if (sscanf(text, "fused group=%d align_bits=%d align=%7s final=%7s", &t.group, &t.align_bits,
               align, final) != 4)
        return -1;
    if (t.group < 1 || t.group > 16 || t.align_bits < 1 || t.align_bits > 56 ||
        parse_mode(align, &t.align) || parse_mode(final, &t.final) || t.align == TC_RNE)
        return -1;
    t.kind = TC_ACC_FUSED;
    *m = t;
    return 0;
}

static const char *precision_name(tc_precision p)
{
    return p == TC_PREC_F16 ? "f16" : p == TC_PREC_BF16 ? "bf16" : p == TC_PREC_TF32 ? "tf32" : "none";
}

int tc_model_load(const char *path, tc_precision precision, int k, tc_mma_model *m)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[512], device[128] = "", key[32];
    int found = -1;
    snprintf(key, sizeof key, "%s k%d:", precision_name(precision), k);
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = 0;
        if (!strncmp(line, "device:", 7)) {
            const char *d = line + 7;
            while (*d == ' ')
                d++;
            snprintf(device, sizeof device, "%.127s", d);
        } else if (!strncmp(line, key, strlen(key)) && found != 0) {
            tc_mma_model t;
            if (tc_model_parse(line + strlen(key), &t) == 0) {
                *m = t;
                found = 0;
            }
        }
    }
    fclose(f);
    if (found == 0) {
        m->calibrated = 1;
        snprintf(m->device, sizeof m->device, "%s", device);
    }
    return found;
}

/* S * 2^e2 (S an exact integer) rounded to fp32 with mode r. */
static float round_scaled_to_f32(int64_t S, int e2, tc_round_mode r)
{
    if (S == 0)
        return 0.0f;
    int neg = S < 0;
    uint64_t u = neg ? (uint64_t)0 - (uint64_t)S : (uint64_t)S;
    int msb = 63;
    while (!(u >> msb))
        msb--;
    int q = msb + e2 - 23; /* weight of the last kept bit of a 24-bit significand */
    if (q < -149)
        q = -149;          /* fp32 subnormals: a fixed quantum */
    if (q > e2) {
        int sh = q - e2;
        uint64_t keep = sh >= 64 ? 0 : u >> sh;
        uint64_t rem = sh >= 64 ? u : u - (keep << sh);
        if (r == TC_RNE) {
            uint64_t half = sh >= 65 ? 0 : (uint64_t)1 << (sh - 1);
            if (sh <= 64 && (rem > half || (rem == half && (keep & 1u))))
                keep++;
        } else if (r == TC_RD && neg && rem != 0) {
            keep++;
        }
        u = keep;
        e2 = q;
    }
    double v = ldexp((double)u, e2);
    if (v > FLT_MAX) {
        if (r == TC_RNE || (r == TC_RD && neg))
            v = INFINITY;
        else
            v = FLT_MAX;
    }
    return (float)(neg ? -v : v);
}

/* One fused step: c and n products as one multi-term addition (tc_model.h). */
static float fused_step(const tc_mma_model *m, float c, const double *p, int n)
{
    double t[17];
    int count = 0, special = 0;
    t[count++] = c;
    for (int i = 0; i < n; i++)
        t[count++] = p[i];
    int E = -100000;
    for (int i = 0; i < count; i++) {
        if (isinf(t[i]) || isnan(t[i]))
            special = 1;
        else if (t[i] != 0) {
            int e;
            frexp(t[i], &e); /* |t| = f * 2^e, f in [0.5, 1): leading bit 2^(e-1) */
            if (e - 1 > E)
                E = e - 1;
        }
    }
    if (special) { /* infinities and NaN propagate as in IEEE */
        double s = 0;
        for (int i = 0; i < count; i++)
            s += t[i];
        return (float)s;
    }
    if (E == -100000)
        return 0.0f;
    const int F = m->align_bits;
    int64_t S = 0;
    for (int i = 0; i < count; i++) {
        /* exact: a power-of-two scaling, |s| < 2^(F+1) <= 2^57 */
        double s = ldexp(t[i], F - E);
        S += (int64_t)(m->align == TC_RD ? floor(s) : trunc(s));
    }
    return round_scaled_to_f32(S, E - F, m->final);
}

float tc_mma_element(const tc_mma_model *m, float c, const double *prod, int k)
{
    if (m->kind == TC_ACC_SEQUENTIAL) {
        /* fl32(d + p): d has 24 bits and p at most 22 (a product of two
         * fp16/tf32 values; 16 for bf16).  When their exponents are within
         * 29 of each other the double sum is exact and the cast rounds once;
         * otherwise the smaller is below a quarter ulp of the larger (which
         * is an fp32 value, or d is 0 and the cast rounds p once), so the
         * cast gives the larger either way: no double rounding. */
        float d = c;
        for (int t = 0; t < k; t++)
            d = (float)((double)d + prod[t]);
        return d;
    }
    float d = c;
    for (int t0 = 0; t0 < k; t0 += m->group)
        d = fused_step(m, d, prod + t0, m->group < k - t0 ? m->group : k - t0);
    return d;
}

/* ------------------------------------------------------------ operands */

size_t tc_value_size(tc_value vt)
{
    return vt == TC_VAL_F32 ? 4 : 2;
}

double tc_load(const void *base, int64_t index, tc_value vt)
{
    if (vt == TC_VAL_F32)
        return ((const float *)base)[index];
    uint16_t h = ((const uint16_t *)base)[index];
    return vt == TC_VAL_F16 ? tc_f16_to_f32(h) : tc_bf16_to_f32(h);
}

void tc_store(void *base, int64_t index, tc_value vt, float v)
{
    if (vt == TC_VAL_F32)
        ((float *)base)[index] = v;
    else
        ((uint16_t *)base)[index] = vt == TC_VAL_F16 ? tc_f32_to_f16(v) : tc_f32_to_bf16(v);
}

static double round_to_precision(float v, tc_precision prec)
{
    switch (prec) {
    case TC_PREC_F16: return tc_f16_to_f32(tc_f32_to_f16(v));
    case TC_PREC_BF16: return tc_bf16_to_f32(tc_f32_to_bf16(v));
    case TC_PREC_TF32: return tc_round_tf32(v);
    default: return v;
    }
}

double tc_operand(const void *base, int64_t index, tc_value vt, tc_precision prec)
{
    return round_to_precision((float)tc_load(base, index, vt), prec);
}

int tc_row_parts(int64_t len, int k, int64_t *groups_per_part)
{
    int64_t groups = (len + k - 1) / k;
    int P = 1;
    while (P < groups && P < TC_PARTS_MAX)
        P *= 2;
    *groups_per_part = groups ? (groups + P - 1) / P : 0;
    return P;
}

int tc_row_segments(int64_t len, int k)
{
    const int64_t groups = (len + k - 1) / k;
    if (groups <= TC_SEGMENT_GROUPS)
        return 1;
    const int64_t need = (groups + TC_SEGMENT_GROUPS - 1) / TC_SEGMENT_GROUPS;
    int B = 1;
    while (B < need && B < TC_SEGMENTS_MAX)
        B *= 2;
    return B;
}

void tc_segment_span(int64_t len, int k, int segments, int b, int64_t *first, int64_t *count)
{
    const int64_t groups = (len + k - 1) / k;
    const int64_t g0 = b * groups / segments, g1 = (b + 1) * groups / segments;
    const int64_t end = g1 * k < len ? g1 * k : len;
    *first = g0 * k;
    *count = end - *first;
}

int tc_tile_parts(int64_t m, int64_t kcols, int k, int64_t *slices_per_part)
{
    const int64_t slices = (kcols + k - 1) / k;
    const int64_t need = (slices + TC_TILE_PART_SLICES - 1) / TC_TILE_PART_SLICES;
    const int64_t row_tiles = (m + 63) / 64;
    int P = 1;
    while (P < need && P < TC_PARTS_MAX && row_tiles * 2 * P <= TC_TILE_PART_TILES)
        P *= 2;
    *slices_per_part = slices ? (slices + P - 1) / P : 0;
    return P;
}

/* ------------------------------------------------------------ the reference */

/* Step 4's halving tree over v[0 .. n-1] (n a power of two), in fp32:
 * for s = n/2 .. 1: v[l] = v[l] + v[l+s].  The parts' sums (both forms)
 * and the segments' meet by the same one. */
static float halving_tree(float *v, int n)
{
    for (int s = n / 2; s >= 1; s /= 2)
        for (int l = 0; l < s; l++)
            v[l] = v[l] + v[l + s];
    return v[0];
}

/* Steps 2-4 for one segment and column c; a[] and cols[] are the segment's
 * rounded values and column indices, xr the rounded X (K x n, row-major). */
static float segment_accumulate(const tc_mma_model *model, int k, const double *a, const int32_t *cols,
                                int64_t len, const double *xr, int64_t n, int64_t c)
{
    int64_t G;
    const int P = tc_row_parts(len, k, &G);
    const int64_t groups = (len + k - 1) / k;
    float part[TC_PARTS_MAX];
    double prod[16];

    for (int p = 0; p < P; p++) {
        float acc = 0.0f;
        for (int64_t g = p * G; g < (p + 1) * G && g < groups; g++) {
            for (int t = 0; t < k; t++) {
                int64_t j = g * k + t;
                prod[t] = j < len ? a[j] * xr[(int64_t)cols[j] * n + c] : 0.0;
            }
            acc = tc_mma_element(model, acc, prod, k);
        }
        part[p] = acc;
    }
    return halving_tree(part, P);
}

/* Step 4 for a whole row: its segments' sums, combined by the halving tree. */
static float row_accumulate(const tc_mma_model *model, int k, const double *a, const int32_t *cols,
                            int64_t len, const double *xr, int64_t n, int64_t c)
{
    const int B = tc_row_segments(len, k);
    float seg[TC_SEGMENTS_MAX];
    for (int b = 0; b < B; b++) {
        int64_t first, count;
        tc_segment_span(len, k, B, b, &first, &count);
        seg[b] = segment_accumulate(model, k, a + first, cols + first, count, xr, n, c);
    }
    return halving_tree(seg, B);
}

/* Steps 2'-4 of the tiles form (tc_model.h) for row i and column c, same
 * arguments plus K; the products of a non-finite x~ come last. */
static float row_accumulate_tiles(const tc_mma_model *model, int k, const double *a, const int32_t *cols,
                                  int64_t len, const double *xr, int64_t n, int64_t c, int64_t m, int64_t kcols)
{
    int64_t G;
    const int P = tc_tile_parts(m, kcols, k, &G);
    const int64_t slices = (kcols + k - 1) / k;
    float part[TC_PARTS_MAX];
    double prod[16];
    int64_t j = 0; /* the row's next non-zero: columns are sorted */

    for (int p = 0; p < P; p++) {
        float acc = 0.0f;
        for (int64_t s = p * G; s < (p + 1) * G && s < slices; s++) {
            for (int t = 0; t < k; t++)
                prod[t] = 0.0;
            for (; j < len && cols[j] < (s + 1) * k; j++) {
                const double x = xr[(int64_t)cols[j] * n + c];
                prod[cols[j] - s * k] = a[j] * (isfinite(x) ? x : 0.0);
            }
            acc = tc_mma_element(model, acc, prod, k);
        }
        part[p] = acc;
    }
    float acc = halving_tree(part, P);
    for (j = 0; j < len; j++) {
        const double x = xr[(int64_t)cols[j] * n + c];
        if (!isfinite(x))
            acc = acc + (float)a[j] * (float)x;
    }
    return acc;
}

/* Step 5: the one final combination, in fp32, then RNE to the storage type. */
static void finish(const tc_problem *p, int64_t i, int64_t c, float acc)
{
    float y32;
    if (p->beta == 0.0f)
        y32 = p->alpha * acc;
    else
        y32 = fmaf(p->alpha, acc, p->beta * (float)tc_load(p->y, i * p->ldy + c, p->vt));
    tc_store(p->y, i * p->ldy + c, p->vt, y32);
}

void tc_reference_spmm(const tc_problem *p, const tc_config *cfg, const tc_mma_model *model)
{
    const int64_t n = p->n;
    double *xr = malloc(sizeof(double) * (size_t)(p->k * n > 0 ? p->k * n : 1));
    if (!xr)
        abort();
    for (int64_t r = 0; r < p->k; r++)
        for (int64_t c = 0; c < n; c++)
            xr[r * n + c] = tc_operand(p->x, r * p->ldx + c, p->vt, cfg->precision);
    for (int64_t i = 0; i < p->m; i++) {
        const int64_t start = p->row_offsets[i], len = p->row_offsets[i + 1] - start;
        double *a = malloc(sizeof(double) * (size_t)(len > 0 ? len : 1));
        if (!a)
            abort();
        for (int64_t j = 0; j < len; j++)
            a[j] = tc_operand(p->values, start + j, p->vt, cfg->precision);
        for (int64_t c = 0; c < n; c++)
            finish(p, i, c,
                   cfg->form == TC_FORM_TILES
                       ? row_accumulate_tiles(model, cfg->k, a, p->col_indices + start, len, xr, n, c, p->m, p->k)
                       : row_accumulate(model, cfg->k, a, p->col_indices + start, len, xr, n, c));
        free(a);
    }
    free(xr);
}

/* ------------------------------------------------------------ the bound */

/*
 * The bound on |Y_gpu(i,c) - Y_exact(i,c)|, Y_exact = alpha*s + beta*y_old
 * with s = sum_j a_j x_j in the ORIGINAL operands, in exact arithmetic.
 *
 * Let p_j = a_j x_j and p~_j = a~_j x~_j (the rounded operands).  Both are
 * exact in double (at most 24 x 24 bits).
 *
 * (a) Operand rounding:  |sum p~ - sum p| <= D := sum |p~_j - p_j|, summed
 *     here in double (each difference and each addition rounds by at most a
 *     relative 2^-53; we inflate by (1 + (L+2) 2^-52)).
 *
 * (b) Accumulation.  Every rounding step of the strategy (an MMA step or a
 *     tree addition) returns its exact input sum with an error of at most
 *     u * (the sum of the absolute values of its inputs) + eta:
 *       sequential fp32 add:        u = 2^-24
 *       fused step of t terms:      each cut term loses < 2^(E-F) <= 2^-F max|term|,
 *                                   so the cut costs < t 2^-F sum|terms|; the final
 *                                   rounding costs 2^-23 (RZ/RD) or 2^-24 (RNE) of
 *                                   the result: u = t 2^-F + u_f (1 + t 2^-F)
 *       tree addition:              u = 2^-24
 *     and eta = 2^-149 covers fp32 subnormal results (absolute).  By induction
 *     over the tree of steps (the running value is one input of the next
 *     step), with n the longest chain of steps from a product to the result,
 *       |acc - sum p~| <= ((1+u)^n - 1) sum|p~| + n eta,  u the largest u.
 *     n = G * ceil(k / group) + log2 P + log2 B (G groups per part of the
 *     longest segment, P parts, B segments; in the tiles form G slices per
 *     part, B = 1).
 *
 * (c) Finish in fp32: y32 = fl(alpha acc) or fl(fma(alpha, acc, fl(beta y_old)))
 *     adds 2^-24 of |alpha acc| (+ 2^-24 |beta y_old| twice for beta != 0) + 2 eta.
 *
 * (d) Storage rounding to fp16 / bf16: u_out |y32| + eta_out (half the
 *     smallest subnormal: 2^-25 for fp16, 2^-134 for bf16; 0 for fp32).
 *
 * (e) s itself is computed in double: |s_double - s| <= (L+1) 2^-53 sum|p|.
 *
 * The total, times (1 + 2^-30), is the bound; Y_gpu passes when
 * |Y_gpu - Y_exact| <= bound, with Y_exact evaluated as alpha*s + beta*y_old
 * in double (its own rounding, 2^-52 |Y_exact|, is added too).
 */
double tc_element_bound(const tc_problem *p, const tc_config *cfg, const tc_mma_model *model,
                        int64_t i, int64_t c, double y_old, double *exact)
{
    const int64_t start = p->row_offsets[i], len = p->row_offsets[i + 1] - start;
    const int k = cfg->k;
    double s = 0, sum_abs = 0, sum_abs_r = 0, D = 0;
    for (int64_t j = start; j < start + len; j++) {
        int64_t xi = (int64_t)p->col_indices[j] * p->ldx + c;
        double a = tc_load(p->values, j, p->vt), x = tc_load(p->x, xi, p->vt);
        double ar = tc_operand(p->values, j, p->vt, cfg->precision);
        double xr = tc_operand(p->x, xi, p->vt, cfg->precision);
        s += a * x;
        sum_abs += fabs(a * x);
        sum_abs_r += fabs(ar * xr);
        D += fabs(ar * xr - a * x);
    }
    const double L = (double)len;
    const double inflate = 1 + (L + 2) * ldexp(1, -52);
    D *= inflate;
    sum_abs *= inflate;
    sum_abs_r *= inflate;

    /* rows form: the longest segment's chain (parts grow with the segment),
     * then the segments' tree */
    int64_t G;
    const int B = cfg->form == TC_FORM_TILES ? 1 : tc_row_segments(len, k);
    const int64_t seg_groups = ((len + k - 1) / k + B - 1) / B;
    const int P = cfg->form == TC_FORM_TILES ? tc_tile_parts(p->m, p->k, k, &G) : tc_row_parts(seg_groups * k, k, &G);
    int log2P = 0;
    while ((1 << log2P) < P * B)
        log2P++;
    double u = ldexp(1, -24);
    int steps_per_group = k;
    if (model->kind == TC_ACC_FUSED) {
        const int t = model->group + 1;
        const double cut = t * ldexp(1, -model->align_bits);
        const double uf = model->final == TC_RNE ? ldexp(1, -24) : ldexp(1, -23);
        const double us = cut + uf * (1 + cut);
        if (us > u)
            u = us;
        steps_per_group = (k + model->group - 1) / model->group;
    }
    const double eta = ldexp(1, -149);
    const double n = (double)G * steps_per_group + log2P;
    const double gamma = pow(1 + u, n) - 1;
    const double e_acc = D + gamma * sum_abs_r + n * eta;

    const double u32 = ldexp(1, -24);
    const double alpha = p->alpha, beta = p->beta;
    const double aa = fabs(alpha), by = beta == 0 ? 0 : fabs(beta * y_old);
    double e32 = aa * e_acc + u32 * aa * (fabs(s) + e_acc) + 2 * eta;
    if (beta != 0)
        e32 += 2 * u32 * by * (1 + u32) + eta;
    const double y_exact = alpha * s + (beta == 0 ? 0 : beta * y_old);
    double u_out = 0, eta_out = 0;
    if (p->vt == TC_VAL_F16) {
        u_out = ldexp(1, -11);
        eta_out = ldexp(1, -25);
    } else if (p->vt == TC_VAL_BF16) {
        u_out = ldexp(1, -8);
        eta_out = ldexp(1, -134);
    }
    double bound = e32 + u_out * (fabs(y_exact) + e32) + eta_out;
    bound += (L + 1) * ldexp(1, -53) * aa * sum_abs + ldexp(1, -52) * fabs(y_exact);
    *exact = y_exact;
    return bound * (1 + ldexp(1, -30));
}

void tc_bound_check(const tc_problem *p, const tc_config *cfg, const tc_mma_model *model,
                    const void *y_old, const void *y_gpu, tc_check_result *r)
{
    memset(r, 0, sizeof *r);
    r->first_row = r->first_col = -1;
    for (int64_t i = 0; i < p->m; i++)
        for (int64_t c = 0; c < p->n; c++) {
            const int64_t at = i * p->ldy + c;
            double exact, yo = y_old ? tc_load(y_old, at, p->vt) : 0;
            double bound = tc_element_bound(p, cfg, model, i, c, yo, &exact);
            double got = tc_load(y_gpu, at, p->vt);
            double err = fabs(got - exact);
            int ok;
            if (isnan(exact) || isinf(exact) || isinf(got) || isnan(got))
                ok = (isnan(exact) && isnan(got)) || got == exact;
            else
                ok = err <= bound;
            if (bound > 0 && err / bound > r->max_ratio && !isnan(err))
                r->max_ratio = err / bound;
            r->checked++;
            if (!ok) {
                if (r->failed == 0) {
                    r->first_row = i;
                    r->first_col = c;
                    r->first_got = got;
                    r->first_exact = exact;
                    r->first_bound = bound;
                }
                r->failed++;
            }
        }
}
