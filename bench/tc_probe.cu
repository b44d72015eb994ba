/*
 * tc_probe.cu - measure how this GPU's mma.sync adds products, and fit the
 * accumulation model of reference/tc_model.h to it.
 *
 * For each MMA shape the tensor-core SpMM uses (fp16/bf16 m16n8k16 and
 * m16n8k8, tf32 m16n8k8 and m16n8k4) it runs crafted dot products:
 *   - {1, -1, +-2^-j} for every j: how many bits below the largest term
 *     survive the alignment, and whether the cut is toward zero or -inf;
 *   - 1 and -1 at positions t, u with a small term at v: which positions
 *     share one fused addition (the group);
 *   - c = 1 plus products just past half an ulp: RZ or RNE at the end;
 *   - large c with small products: whether c joins the alignment;
 *   and thousands of random ones (random signs, exponents, cancellation).
 * Each case fills every row of A with the same vector a, every column of B
 * with the same vector b and all of C with c, so each of the 128 outputs is
 * c + sum_t a_t b_t; they must all agree.
 *
 * Then every candidate model (sequential IEEE; fused with group 1..k,
 * align_bits 16..48, cut RZ/RD, final RZ/RNE) is run over all cases on the
 * host; a shape's model is written only when it reproduces every case bit
 * for bit.  Output (stdout and the file given, default
 * bench/results/tc/model.txt):
 *     device: NVIDIA H100 80GB HBM3
 *     f16 k16: fused group=.. align_bits=.. align=.. final=..
 * which tc_model_load() reads.
 *
 * Usage: tc_probe [output-file] [random-cases]
 *        tc_probe --selftest "fused group=8 align_bits=25 align=rz final=rz" [random-cases]
 * (the second needs no GPU: the given model plays the device, and the fit
 * must recover it or one that agrees on every case).
 */
#include <cuda_runtime.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_args.h"
#include "tc_mma.cuh"
#include "tc_model.h"
#include "tc_round.h"

#define CHECK(x)                                                                                  \
    do {                                                                                          \
        cudaError_t e_ = (x);                                                                     \
        if (e_ != cudaSuccess) {                                                                  \
            fprintf(stderr, "tc_probe: %s: %s\n", #x, cudaGetErrorString(e_));                   \
            exit(2);                                                                              \
        }                                                                                         \
    } while (0)

/* Bits of an operand value (already exactly of the type). */
template <int PREC> __device__ uint32_t op_bits(float v)
{
    if (PREC == TC_PREC_F16)
        return tc_f32_to_f16(v);
    if (PREC == TC_PREC_BF16)
        return tc_f32_to_bf16(v);
    return tc_f32_bits(v);
}

/* One warp per case: A rows = a, B columns = b, C = c; out[case*128 + i] = D. */
template <int PREC, int K>
__global__ void probe_kernel(const float *a, const float *b, const float *c, float *out, int cases)
{
    const int w = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
    if (w >= cases)
        return;
    const float *av = a + (size_t)w * K, *bv = b + (size_t)w * K;
    const int q = lane & 3;
    uint32_t A[4] = {0, 0, 0, 0}, B[2] = {0, 0};
    if (PREC == TC_PREC_TF32) {
        A[0] = A[1] = op_bits<PREC>(av[q]);
        B[0] = op_bits<PREC>(bv[q]);
        if (K == 8) {
            A[2] = A[3] = op_bits<PREC>(av[q + 4]);
            B[1] = op_bits<PREC>(bv[q + 4]);
        }
    } else {
        A[0] = A[1] = op_bits<PREC>(av[2 * q]) | (op_bits<PREC>(av[2 * q + 1]) << 16);
        B[0] = op_bits<PREC>(bv[2 * q]) | (op_bits<PREC>(bv[2 * q + 1]) << 16);
        if (K == 16) {
            A[2] = A[3] = op_bits<PREC>(av[2 * q + 8]) | (op_bits<PREC>(av[2 * q + 9]) << 16);
            B[1] = op_bits<PREC>(bv[2 * q + 8]) | (op_bits<PREC>(bv[2 * q + 9]) << 16);
        }
    }
    float d[4] = {c[w], c[w], c[w], c[w]};
    loomtc::mma<PREC, K>::run(d, A, B);
    for (int i = 0; i < 4; i++)
        out[(size_t)w * 128 + lane * 4 + i] = d[i];
}

struct shape {
    tc_precision prec;
    int k;
    const char *name;
};

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next_u64(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
static double uniform01(void) { return (double)(next_u64() >> 11) / 9007199254740992.0; }

static float round_to(tc_precision p, float v)
{
    if (p == TC_PREC_F16)
        return tc_f16_to_f32(tc_f32_to_f16(v));
    if (p == TC_PREC_BF16)
        return tc_bf16_to_f32(tc_f32_to_bf16(v));
    return tc_round_tf32(v);
}

/* A power of two as a product a*b of two representable values. */
static void split_pow2(tc_precision p, int e, float *a, float *b)
{
    int ea = e / 2, eb = e - ea;
    *a = round_to(p, ldexpf(1, ea));
    *b = round_to(p, ldexpf(1, eb));
}

typedef struct cases {
    int n, k;
    float *a, *b, *c;
} cases;

static void add_case(cases *cs, const float *a, const float *b, float c)
{
    memcpy(cs->a + (size_t)cs->n * cs->k, a, sizeof(float) * cs->k);
    memcpy(cs->b + (size_t)cs->n * cs->k, b, sizeof(float) * cs->k);
    cs->c[cs->n++] = c;
}

static void build_cases(cases *cs, tc_precision p, int k, int random_cases)
{
    float a[16], b[16];
    const int min_exp = p == TC_PREC_F16 ? -24 : -60; /* keep products' halves representable */
    /* alignment and cut direction: {1, -1, +-2^-j} at positions 0, 1, 2 */
    for (int j = 1; j <= (p == TC_PREC_F16 ? 46 : 60); j++)
        for (int s = -1; s <= 1; s += 2) {
            for (int t = 0; t < k; t++)
                a[t] = b[t] = 0;
            a[0] = b[0] = 1;
            a[1] = -1;
            b[1] = 1;
            split_pow2(p, -j, &a[2], &b[2]);
            a[2] *= s;
            add_case(cs, a, b, 0.0f);
            /* the same with c as the big term */
            a[0] = b[0] = 0;
            a[1] = b[1] = 0;
            add_case(cs, a, b, 1.0f);
        }
    /* groups: 1 at t, -1 at u, a small term at v */
    for (int t = 0; t < k; t++)
        for (int u = 0; u < k; u++)
            for (int v = 0; v < k; v++) {
                if (t == u || u == v || t == v)
                    continue;
                for (int t2 = 0; t2 < k; t2++)
                    a[t2] = b[t2] = 0;
                a[t] = b[t] = 1;
                a[u] = -1;
                b[u] = 1;
                split_pow2(p, -30 > min_exp ? -30 : min_exp + 2, &a[v], &b[v]);
                add_case(cs, a, b, 0.0f);
            }
    /* final rounding: c = 1 plus 0.75 and 0.5 and 0.25 ulp, either sign */
    for (int num = 1; num <= 7; num++)
        for (int s = -1; s <= 1; s += 2) {
            for (int t = 0; t < k; t++)
                a[t] = b[t] = 0;
            a[0] = round_to(p, s * num * ldexpf(1, -14));
            b[0] = ldexpf(1, -12);
            add_case(cs, a, b, 1.0f);
        }
    /* random: signs, exponents over a wide range, frequent cancellation */
    for (int r = 0; r < random_cases; r++) {
        const int span = (int)(uniform01() * 30) + 1;
        for (int t = 0; t < k; t++) {
            float va = (float)((1 + uniform01()) * ldexp(1, (int)(uniform01() * span) - span / 2));
            float vb = (float)((1 + uniform01()) * ldexp(1, (int)(uniform01() * span) - span / 2));
            if (next_u64() & 1)
                va = -va;
            if (uniform01() < 0.1)
                va = 0;
            a[t] = round_to(p, va);
            b[t] = round_to(p, vb);
        }
        float c = (float)((1 + uniform01()) * ldexp(1, (int)(uniform01() * span) - span / 2));
        if (next_u64() & 1)
            c = -c;
        if (uniform01() < 0.2)
            c = 0;
        if (uniform01() < 0.3 && k >= 2) { /* cancel the first product against c */
            c = (float)(-(double)a[0] * b[0]);
        }
        if (c == 0)
            c = 0.0f; /* never -0: the kernels' accumulators start at +0 */
        add_case(cs, a, b, c);
    }
}

/* --selftest: a model stands in for the GPU, to check on any machine that
 * the cases tell the candidates apart and the fit finds it (or an equivalent). */
static const tc_mma_model *selftest_model;

static int run_shape(const shape *sh, int random_cases, FILE *out, const char *device)
{
    const int k = sh->k;
    const int max_cases = 200 + 2 * 61 + k * k * k + 14 + random_cases;
    cases cs = {0, k, (float *)malloc(sizeof(float) * k * max_cases),
                (float *)malloc(sizeof(float) * k * max_cases), (float *)malloc(sizeof(float) * max_cases)};
    build_cases(&cs, sh->prec, k, random_cases);

    float *res = (float *)malloc(sizeof(float) * 128 * cs.n);
    if (selftest_model) {
        double pr[16];
        for (int i = 0; i < cs.n; i++) {
            for (int t = 0; t < k; t++)
                pr[t] = (double)cs.a[(size_t)i * k + t] * cs.b[(size_t)i * k + t];
            float d = tc_mma_element(selftest_model, cs.c[i], pr, k);
            for (int e = 0; e < 128; e++)
                res[(size_t)i * 128 + e] = d;
        }
    } else {
        float *da, *db, *dc, *dout;
        CHECK(cudaMalloc(&da, sizeof(float) * k * cs.n));
        CHECK(cudaMalloc(&db, sizeof(float) * k * cs.n));
        CHECK(cudaMalloc(&dc, sizeof(float) * cs.n));
        CHECK(cudaMalloc(&dout, sizeof(float) * 128 * cs.n));
        CHECK(cudaMemcpy(da, cs.a, sizeof(float) * k * cs.n, cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(db, cs.b, sizeof(float) * k * cs.n, cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(dc, cs.c, sizeof(float) * cs.n, cudaMemcpyHostToDevice));
        const int blocks = (cs.n * 32 + 255) / 256;
        if (sh->prec == TC_PREC_F16 && k == 16) probe_kernel<TC_PREC_F16, 16><<<blocks, 256>>>(da, db, dc, dout, cs.n);
        if (sh->prec == TC_PREC_F16 && k == 8) probe_kernel<TC_PREC_F16, 8><<<blocks, 256>>>(da, db, dc, dout, cs.n);
        if (sh->prec == TC_PREC_BF16 && k == 16) probe_kernel<TC_PREC_BF16, 16><<<blocks, 256>>>(da, db, dc, dout, cs.n);
        if (sh->prec == TC_PREC_BF16 && k == 8) probe_kernel<TC_PREC_BF16, 8><<<blocks, 256>>>(da, db, dc, dout, cs.n);
        if (sh->prec == TC_PREC_TF32 && k == 8) probe_kernel<TC_PREC_TF32, 8><<<blocks, 256>>>(da, db, dc, dout, cs.n);
        if (sh->prec == TC_PREC_TF32 && k == 4) probe_kernel<TC_PREC_TF32, 4><<<blocks, 256>>>(da, db, dc, dout, cs.n);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpy(res, dout, sizeof(float) * 128 * cs.n, cudaMemcpyDeviceToHost));
        cudaFree(da);
        cudaFree(db);
        cudaFree(dc);
        cudaFree(dout);
    }
    int inconsistent = 0;
    for (int i = 0; i < cs.n; i++)
        for (int e = 1; e < 128; e++)
            if (tc_f32_bits(res[(size_t)i * 128 + e]) != tc_f32_bits(res[(size_t)i * 128]))
                inconsistent++;

    /* Fit: try every candidate on every case. */
    double prod[16];
    tc_mma_model best;
    tc_model_default(&best);
    int best_miss = cs.n + 1, matching = 0, first_miss_case = -1;
    tc_mma_model cand;
    for (int kind = 0; kind < 2; kind++)
        for (int group = 1; group <= (kind ? k : 1); group *= 2)
            for (int F = (kind ? 16 : 0); F <= (kind ? 48 : 0); F++)
                for (int al = TC_RZ; al <= (kind ? TC_RD : TC_RZ); al++)
                    for (int fi = TC_RNE; fi <= (kind ? TC_RZ : TC_RNE); fi++) {
                        tc_model_default(&cand);
                        if (kind) {
                            cand.kind = TC_ACC_FUSED;
                            cand.group = group;
                            cand.align_bits = F;
                            cand.align = (tc_round_mode)al;
                            cand.final = (tc_round_mode)fi;
                        }
                        int miss = 0, fm = -1;
                        for (int i = 0; i < cs.n && miss <= best_miss; i++) {
                            for (int t = 0; t < k; t++)
                                prod[t] = (double)cs.a[(size_t)i * k + t] * cs.b[(size_t)i * k + t];
                            float m = tc_mma_element(&cand, cs.c[i], prod, k);
                            if (tc_f32_bits(m) != tc_f32_bits(res[(size_t)i * 128])) {
                                if (fm < 0)
                                    fm = i;
                                miss++;
                            }
                        }
                        if (miss == 0)
                            matching++;
                        if (miss < best_miss) {
                            best_miss = miss;
                            best = cand;
                            first_miss_case = fm;
                        }
                    }
    char line[160];
    tc_model_format(&best, line, sizeof line);
    printf("%s (%s) on %s: %d cases, %d inconsistent outputs; best model \"%s\" misses %d; %d candidate(s) match all\n",
           sh->name, k == 16 ? "m16n8k16" : k == 8 ? "m16n8k8" : "m16n8k4", device, cs.n, inconsistent,
           line, best_miss, matching);
    if (best_miss == 0 && inconsistent == 0) {
        fprintf(out, "%s k%d: %s\n", sh->name, k, line);
    } else {
        fprintf(out, "# %s k%d: no model matched (best: %s, %d of %d cases missed)\n", sh->name, k,
                line, best_miss, cs.n);
        if (first_miss_case >= 0) {
            int i = first_miss_case;
            printf("  first missed case: c = %a, products:", cs.c[i]);
            for (int t = 0; t < k; t++)
                printf(" %a", (double)cs.a[(size_t)i * k + t] * cs.b[(size_t)i * k + t]);
            for (int t = 0; t < k; t++)
                prod[t] = (double)cs.a[(size_t)i * k + t] * cs.b[(size_t)i * k + t];
            printf("\n  gpu %a, model %a\n", res[(size_t)i * 128], tc_mma_element(&best, cs.c[i], prod, k));
        }
    }
    free(cs.a);
    free(cs.b);
    free(cs.c);
    free(res);
    return best_miss == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--selftest")) {
        if (argc < 3) {
            fprintf(stderr, "tc_probe: --selftest needs a model, e.g. --selftest \"fused group=8 align_bits=25 "
                            "align=rz final=rz\" [random-cases]\n");
            return 2;
        }
        static tc_mma_model m;
        if (tc_model_parse(argv[2], &m)) {
            fprintf(stderr, "tc_probe: cannot parse model \"%s\"\n", argv[2]);
            return 2;
        }
        selftest_model = &m;
        const int random_cases = argc > 3 ? count_arg("tc_probe", "RANDOM", argv[3], 1, 100000000) : 3000;
        if (random_cases < 0)
            return 2;
        const shape shapes[] = {{TC_PREC_F16, 16, "f16"}, {TC_PREC_BF16, 8, "bf16"}, {TC_PREC_TF32, 8, "tf32"}};
        int failed = 0;
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
            if (m.kind == TC_ACC_SEQUENTIAL || shapes[s].k % m.group == 0)
                failed += run_shape(&shapes[s], random_cases, stdout, "selftest");
        return failed ? 1 : 0;
    }
    const char *path = argc > 1 ? argv[1] : "bench/results/tc/model.txt";
    const int random_cases = argc > 2 ? count_arg("tc_probe", "RANDOM", argv[2], 1, 100000000) : 3000;
    if (random_cases < 0)
        return 2;
    int dev_count = 0;
    if (cudaGetDeviceCount(&dev_count) != cudaSuccess || dev_count == 0) {
        printf("SKIP: no CUDA device\n");
        return 77;
    }
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    FILE *out = fopen(path, "w");
    if (!out) {
        fprintf(stderr, "tc_probe: cannot write %s\n", path);
        return 2;
    }
    fprintf(out, "# loom tensor-core accumulation model, fitted by tc_probe (%d random cases per shape)\n",
            random_cases);
    fprintf(out, "# format: see reference/tc_model.h (tc_model_parse); read by tc_model_load()\n");
    fprintf(out, "device: %s\n", prop.name);
    fprintf(out, "sm: %d%d\n", prop.major, prop.minor);
    const shape shapes[] = {{TC_PREC_F16, 16, "f16"},  {TC_PREC_F16, 8, "f16"},
                            {TC_PREC_BF16, 16, "bf16"}, {TC_PREC_BF16, 8, "bf16"},
                            {TC_PREC_TF32, 8, "tf32"},  {TC_PREC_TF32, 4, "tf32"}};
    int failed = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        failed += run_shape(&shapes[s], random_cases, out, prop.name);
    fclose(out);
    printf("wrote %s (%d shape(s) without a bit-exact model)\n", path, failed);
    return 0;
}
