/*
 * test_tc_model.c - the tensor-core reference on the host (no GPU needed):
 * operand rounding against hand-checked bit patterns, the MMA accumulation
 * model on hand-worked cases, the strategy's row split and tree order, and
 * the error-bound check.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tc_model.h"
#include "tc_round.h"

static float bits(uint32_t u) { return tc_f32_from_bits(u); }

static void test_f16_rounding(void **state)
{
    (void)state;
    assert_int_equal(tc_f32_to_f16(1.0f), 0x3c00);
    assert_int_equal(tc_f32_to_f16(-2.0f), 0xc000);
    assert_int_equal(tc_f32_to_f16(0.1f), 0x2e66);
    assert_int_equal(tc_f32_to_f16(65504.0f), 0x7bff);
    assert_int_equal(tc_f32_to_f16(65519.99f), 0x7bff);
    assert_int_equal(tc_f32_to_f16(65520.0f), 0x7c00); /* tie, 0x7bff odd: to inf */
    assert_int_equal(tc_f32_to_f16(1e6f), 0x7c00);
    assert_int_equal(tc_f32_to_f16(-INFINITY), 0xfc00);
    uint16_t nan = tc_f32_to_f16(NAN);
    assert_true((nan & 0x7c00) == 0x7c00 && (nan & 0x3ff) != 0);
    /* ties to even among normals */
    assert_int_equal(tc_f32_to_f16(1.0f + ldexpf(1, -11)), 0x3c00);
    assert_int_equal(tc_f32_to_f16(1.0f + 3 * ldexpf(1, -11)), 0x3c02);
    assert_int_equal(tc_f32_to_f16(1.0f + ldexpf(1, -11) + ldexpf(1, -20)), 0x3c01);
    /* subnormals (unit 2^-24) */
    assert_int_equal(tc_f32_to_f16(ldexpf(1, -24)), 0x0001);
    assert_int_equal(tc_f32_to_f16(ldexpf(1, -25)), 0x0000);   /* tie to even 0 */
    assert_int_equal(tc_f32_to_f16(-ldexpf(1, -25)), 0x8000);
    assert_int_equal(tc_f32_to_f16(ldexpf(1, -25) + ldexpf(1, -35)), 0x0001);
    assert_int_equal(tc_f32_to_f16(3 * ldexpf(1, -25)), 0x0002); /* tie, 1 odd: up */
    assert_int_equal(tc_f32_to_f16(ldexpf(1, -14)), 0x0400);
    assert_int_equal(tc_f32_to_f16(ldexpf(1, -14) - ldexpf(1, -25)), 0x0400); /* 1023.5 units */
    assert_int_equal(tc_f32_to_f16(ldexpf(1, -40)), 0x0000);
    /* back to fp32, exactly */
    assert_true(tc_f16_to_f32(0x0001) == ldexpf(1, -24));
    assert_true(tc_f16_to_f32(0x03ff) == 1023 * ldexpf(1, -24));
    assert_true(tc_f16_to_f32(0x7bff) == 65504.0f);
    assert_true(tc_f16_to_f32(0x3c01) == 1.0f + ldexpf(1, -10));
    assert_true(isinf(tc_f16_to_f32(0x7c00)));
    assert_true(signbit(tc_f16_to_f32(0x8000)) && tc_f16_to_f32(0x8000) == 0.0f);
    /* every fp16 value survives the round trip */
    for (uint32_t h = 0; h < 0x10000; h++) {
        if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff))
            continue;
        assert_int_equal(tc_f32_to_f16(tc_f16_to_f32((uint16_t)h)), h);
    }
}

static void test_bf16_rounding(void **state)
{
    (void)state;
    assert_int_equal(tc_f32_to_bf16(1.0f), 0x3f80);
    assert_int_equal(tc_f32_to_bf16(0.1f), 0x3dcd);
    assert_int_equal(tc_f32_to_bf16(1.0f + ldexpf(1, -8)), 0x3f80);     /* tie to even */
    assert_int_equal(tc_f32_to_bf16(1.0f + 3 * ldexpf(1, -8)), 0x3f82); /* tie, odd: up */
    assert_int_equal(tc_f32_to_bf16(1.0f + ldexpf(1, -8) + ldexpf(1, -20)), 0x3f81);
    assert_int_equal(tc_f32_to_bf16(FLT_MAX), 0x7f80);                 /* overflow to inf */
    assert_int_equal(tc_f32_to_bf16(bits(0x7f7f7fffu)), 0x7f7f);
    assert_int_equal(tc_f32_to_bf16(bits(0x00018000u)), 0x0002);       /* subnormal tie, odd: up */
    assert_int_equal(tc_f32_to_bf16(bits(0x00008000u)), 0x0000);       /* tie to even 0 */
    assert_int_equal(tc_f32_to_bf16(bits(0x80008001u)), 0x8001);
    assert_int_equal(tc_f32_to_bf16(-INFINITY), 0xff80);
    assert_true(isnan(tc_bf16_to_f32(tc_f32_to_bf16(NAN))));
    assert_true(tc_bf16_to_f32(0x3f81) == 1.0f + ldexpf(1, -7));
}

static void test_tf32_rounding(void **state)
{
    (void)state;
    assert_true(tc_round_tf32(1.0f + ldexpf(1, -11)) == 1.0f);                      /* tie to even */
    assert_true(tc_round_tf32(1.0f + 3 * ldexpf(1, -11)) == 1.0f + ldexpf(1, -9));  /* tie, odd: up */
    assert_true(tc_round_tf32(1.0f + ldexpf(1, -11) + ldexpf(1, -20)) == 1.0f + ldexpf(1, -10));
    assert_true(tc_round_tf32(-1.0f - ldexpf(1, -11) - ldexpf(1, -20)) == -1.0f - ldexpf(1, -10));
    assert_true(isinf(tc_round_tf32(FLT_MAX)));
    assert_true(tc_round_tf32(bits(0x00001000u)) == 0.0f);          /* subnormal tie to even */
    assert_true(tc_round_tf32(bits(0x00003000u)) == bits(0x00004000u));
    assert_true(isnan(tc_round_tf32(NAN)));
    assert_true(tc_round_tf32(0.1f) == bits(0x3dccc000u)); /* 0x3dcccccd: low 13 bits 0x0ccd < tie */
}

static tc_mma_model fused(int group, int F, tc_round_mode align, tc_round_mode final)
{
    tc_mma_model m;
    tc_model_default(&m);
    m.kind = TC_ACC_FUSED;
    m.group = group;
    m.align_bits = F;
    m.align = align;
    m.final = final;
    return m;
}

static void test_model_hand_cases(void **state)
{
    (void)state;
    tc_mma_model seq;
    tc_model_default(&seq);
    const double u24 = ldexp(1, -24);
    /* sequential: 1 + 2^-24 is a tie (to 1), twice */
    double p1[4] = {1, u24, u24, 0};
    assert_true(tc_mma_element(&seq, 0.0f, p1, 4) == 1.0f);
    /* fused over 4 with enough bits: the exact sum 1 + 2^-23 is representable */
    tc_mma_model f = fused(4, 30, TC_RZ, TC_RNE);
    assert_true(tc_mma_element(&f, 0.0f, p1, 4) == 1.0f + ldexpf(1, -23));
    /* groups of 2: (0 + 1 + 2^-24) -> 1 (RNE tie), then (1 + 2^-24 + 0) -> 1 */
    f = fused(2, 30, TC_RZ, TC_RNE);
    assert_true(tc_mma_element(&f, 0.0f, p1, 4) == 1.0f);
    /* alignment: {1, -1, 2^-j} keeps 2^-j iff j <= F */
    for (int j = 20; j <= 28; j++) {
        double p[4] = {1, -1, ldexp(1, -j), 0};
        f = fused(4, 24, TC_RZ, TC_RZ);
        float want = j <= 24 ? ldexpf(1, -j) : 0.0f;
        assert_true(tc_mma_element(&f, 0.0f, p, 4) == want);
        /* a negative small term: toward zero loses it, toward -inf keeps a unit */
        double n[4] = {1, -1, -ldexp(1, -j), 0};
        float want_rz = j <= 24 ? -ldexpf(1, -j) : 0.0f;
        float want_rd = j <= 24 ? -ldexpf(1, -j) : -ldexpf(1, -24);
        assert_true(tc_mma_element(&f, 0.0f, n, 4) == want_rz);
        f = fused(4, 24, TC_RD, TC_RZ);
        assert_true(tc_mma_element(&f, 0.0f, n, 4) == want_rd);
    }
    /* final rounding: 1 + 0.75 * 2^-23 is 1 + 2^-23 under RNE and 1 under RZ */
    double p2[2] = {1, 3 * ldexp(1, -25)};
    f = fused(2, 40, TC_RZ, TC_RNE);
    assert_true(tc_mma_element(&f, 0.0f, p2, 2) == 1.0f + ldexpf(1, -23));
    f = fused(2, 40, TC_RZ, TC_RZ);
    assert_true(tc_mma_element(&f, 0.0f, p2, 2) == 1.0f);
    /* c takes part in the alignment: c = 2^10 swamps a product of 2^-20 at F = 24 */
    double p3[2] = {ldexp(1, -20), 0};
    f = fused(2, 24, TC_RZ, TC_RZ);
    assert_true(tc_mma_element(&f, 1024.0f, p3, 2) == 1024.0f);
    f = fused(2, 40, TC_RZ, TC_RZ);
    assert_true(tc_mma_element(&f, 1024.0f, p3, 2) == 1024.0f);           /* 2^-30 relative: RZ drops it */
    assert_true(tc_mma_element(&f, 1.0f, p3, 2) == 1.0f + ldexpf(1, -20));
    /* subnormal fp32 results: 2^-140 + 2^-149 exact; 2^-150 alone: RNE tie to 0 */
    double p4[2] = {ldexp(1, -140), ldexp(1, -149)};
    f = fused(2, 20, TC_RZ, TC_RNE);
    assert_true(tc_mma_element(&f, 0.0f, p4, 2) == ldexpf(1, -140) + ldexpf(1, -149));
    double p5[2] = {ldexp(1, -150), 0};
    assert_true(tc_mma_element(&f, 0.0f, p5, 2) == 0.0f);
    /* infinities propagate */
    double p6[2] = {INFINITY, 1};
    assert_true(isinf(tc_mma_element(&f, 0.0f, p6, 2)));
}

static void test_model_text(void **state)
{
    (void)state;
    tc_mma_model m = fused(8, 25, TC_RZ, TC_RZ), back;
    char line[128];
    tc_model_format(&m, line, sizeof line);
    assert_string_equal(line, "fused group=8 align_bits=25 align=rz final=rz");
    assert_int_equal(tc_model_parse(line, &back), 0);
    assert_int_equal(back.group, 8);
    assert_int_equal(back.align_bits, 25);
    assert_int_equal(back.final, TC_RZ);
    assert_int_equal(tc_model_parse("fused group=0 align_bits=25 align=rz final=rz", &back), -1);
    assert_int_equal(tc_model_parse("nonsense", &back), -1);

    char path[] = "/tmp/loom-tc-model-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fprintf(f, "# loom tc model\ndevice: Test GPU\nf16 k16: fused group=16 align_bits=26 align=rz final=rz\n"
               "# bf16 k16: no model matched\ntf32 k8: sequential\n");
    fclose(f);
    assert_int_equal(tc_model_load(path, TC_PREC_F16, 16, &back), 0);
    assert_int_equal(back.kind, TC_ACC_FUSED);
    assert_int_equal(back.group, 16);
    assert_int_equal(back.align_bits, 26);
    assert_int_equal(back.calibrated, 1);
    assert_string_equal(back.device, "Test GPU");
    assert_int_equal(tc_model_load(path, TC_PREC_BF16, 16, &back), -1);
    assert_int_equal(tc_model_load(path, TC_PREC_TF32, 8, &back), 0);
    assert_int_equal(back.kind, TC_ACC_SEQUENTIAL);
    remove(path);
    assert_int_equal(tc_model_load(path, TC_PREC_F16, 16, &back), -1);
}

static void test_row_parts(void **state)
{
    (void)state;
    int64_t G;
    assert_int_equal(tc_row_parts(0, 8, &G), 1);
    assert_int_equal(G, 0);
    assert_int_equal(tc_row_parts(8, 8, &G), 1);
    assert_int_equal(G, 1);
    assert_int_equal(tc_row_parts(9, 8, &G), 2);
    assert_int_equal(tc_row_parts(16, 8, &G), 2);
    assert_int_equal(tc_row_parts(17, 8, &G), 4);
    assert_int_equal(tc_row_parts(32, 8, &G), 4);
    assert_int_equal(tc_row_parts(33, 8, &G), 8);
    assert_int_equal(tc_row_parts(64, 8, &G), 8);
    assert_int_equal(G, 1);
    assert_int_equal(tc_row_parts(65, 8, &G), 8);
    assert_int_equal(G, 2);
    assert_int_equal(tc_row_parts(100, 16, &G), 8); /* 7 groups: the last part is empty */
    assert_int_equal(G, 1);
}

/* Long rows' segments (tc_model.h step 4): a row of more than 64 groups is
 * cut into a power of two of segments of balanced group counts. */
static void test_row_segments(void **state)
{
    (void)state;
    assert_int_equal(TC_SEGMENT_GROUPS, 64);
    assert_int_equal(tc_row_segments(0, 16), 1);
    assert_int_equal(tc_row_segments(1024, 16), 1); /* 64 groups */
    assert_int_equal(tc_row_segments(1025, 16), 2); /* 65 */
    assert_int_equal(tc_row_segments(128 * 16, 16), 2);
    assert_int_equal(tc_row_segments(128 * 16 + 1, 16), 4); /* 129 groups: 3 segments' worth, rounded up */
    assert_int_equal(tc_row_segments(513, 8), 2);
    assert_int_equal(tc_row_segments((int64_t)1 << 30, 4), TC_SEGMENTS_MAX);
    /* the spans tile the row in order, groups whole but for the row's last */
    const int64_t lens[4] = {1025, 2049, 5000, 123457};
    for (int t = 0; t < 4; t++)
        for (int k = 4; k <= 16; k *= 2) {
            const int B = tc_row_segments(lens[t], k);
            int64_t at = 0, first, count;
            for (int b = 0; b < B; b++) {
                tc_segment_span(lens[t], k, B, b, &first, &count);
                assert_int_equal(first, at);
                assert_true(first % k == 0 && count > 0);
                at += count;
            }
            assert_int_equal(at, lens[t]);
        }
    /* 65 groups: 32 and 33 */
    int64_t first, count;
    tc_segment_span(65 * 4, 4, 2, 0, &first, &count);
    assert_true(first == 0 && count == 128);
    tc_segment_span(65 * 4, 4, 2, 1, &first, &count);
    assert_true(first == 128 && count == 132);
}

/* A 2 x 3 matrix (row 1 empty) times a 3 x 2 X, tf32 k4: every operand and
 * partial sum is exact, so the hand result is the result. */
static void test_reference_small(void **state)
{
    (void)state;
    int64_t ro[3] = {0, 3, 3};
    int32_t ci[3] = {0, 1, 2};
    float val[3] = {1, 2, 3};
    float x[6] = {1, 10, 100, 1000, 0.5f, 0.25f};
    float y[4] = {7, 7, 7, 7};
    tc_problem p = {2, 3, 2, ro, ci, val, TC_VAL_F32, x, 2, y, 2, 2.0f, 0.0f};
    tc_config cfg = {TC_PREC_TF32, 4, TC_FORM_ROWS};
    tc_mma_model m;
    tc_model_default(&m);
    tc_reference_spmm(&p, &cfg, &m);
    assert_true(y[0] == 405.0f && y[1] == 4021.5f);
    assert_true(y[2] == 0.0f && y[3] == 0.0f);
    /* beta: y = fma(alpha, acc, beta * y_old) */
    float y2[4] = {1, 1, 1, 1};
    p.y = y2;
    p.beta = 1.0f;
    tc_reference_spmm(&p, &cfg, &m);
    assert_true(y2[0] == 406.0f && y2[1] == 4022.5f && y2[2] == 1.0f);
    /* fp16 storage: 0.1 is rounded once, on storage */
    uint16_t hv[3], hx[6], hy[4] = {0};
    for (int i = 0; i < 3; i++)
        hv[i] = tc_f32_to_f16(val[i]);
    for (int i = 0; i < 6; i++)
        hx[i] = tc_f32_to_f16(x[i]);
    tc_problem h = {2, 3, 2, ro, ci, hv, TC_VAL_F16, hx, 2, hy, 2, 1.0f, 0.0f};
    tc_config c16 = {TC_PREC_F16, 16, TC_FORM_ROWS};
    tc_reference_spmm(&h, &c16, &m);
    assert_int_equal(hy[0], tc_f32_to_f16(202.5f));
    assert_int_equal(hy[1], tc_f32_to_f16(2010.75f));
}

/* 17 non-zeros at k = 8: groups {0..7}, {8..15}, {16} on parts 0, 1, 2 (3 is
 * empty); the tree adds (p0 + p2) + (p1 + p3).  With p0 = 1, p1 = 2^-24,
 * p2 = -1 that is 2^-24, where left to right would give 0. */
static void test_reference_tree_order(void **state)
{
    (void)state;
    int64_t ro[2] = {0, 17};
    int32_t ci[17];
    float val[17] = {0}, x[17], y[1];
    for (int j = 0; j < 17; j++) {
        ci[j] = j;
        x[j] = 1;
    }
    val[0] = 1;
    val[8] = ldexpf(1, -24);
    val[16] = -1;
    tc_problem p = {1, 17, 1, ro, ci, val, TC_VAL_F32, x, 1, y, 1, 1.0f, 0.0f};
    tc_config cfg = {TC_PREC_TF32, 8, TC_FORM_ROWS};
    tc_mma_model m;
    tc_model_default(&m);
    tc_reference_spmm(&p, &cfg, &m);
    assert_true(y[0] == ldexpf(1, -24));
}

/* 65 groups at k = 4 (260 non-zeros): two segments, groups 0-31 (8 parts
 * of 4) and 32-64 (8 parts of 5).  Group 0 holds 1, group 32 -1 and group
 * 42 2^-24: segment 1 adds -1 (its part 0) and 2^-24 (its part 2) exactly,
 * so the row is 1 + (-1 + 2^-24) = 2^-24.  One segment of 8 parts of 9
 * groups would meet 1 + 2^-24 first (parts 0 and 4), which rounds to 1,
 * and give 0. */
static void test_reference_segment_order(void **state)
{
    (void)state;
    enum { L = 260 };
    int64_t ro[2] = {0, L};
    int32_t ci[L];
    float val[L] = {0}, x[L], y[1];
    for (int j = 0; j < L; j++) {
        ci[j] = j;
        x[j] = 1;
    }
    val[0] = 1;
    val[32 * 4] = -1;
    val[42 * 4] = ldexpf(1, -24);
    tc_problem p = {1, L, 1, ro, ci, val, TC_VAL_F32, x, 1, y, 1, 1.0f, 0.0f};
    tc_config cfg = {TC_PREC_TF32, 4, TC_FORM_ROWS};
    tc_mma_model m;
    tc_model_default(&m);
    tc_reference_spmm(&p, &cfg, &m);
    assert_true(y[0] == ldexpf(1, -24));
}

/* Tiles form: K's parts, and the slice order.  One row with columns 0, 5
 * and 17 and values 1, -1, 2^-30, X = 1, k = 8, under a fused model that
 * keeps 20 bits below the largest term: the rows form adds all three in one
 * MMA step, where 2^-30 is cut away (0); the tiles form has slices {0, 5},
 * {} and {17}, and 2^-30 meets only the running 0 (2^-30). */
static void test_reference_tiles(void **state)
{
    (void)state;
    int64_t G;
    assert_int_equal(tc_tile_parts(1, 40, 16, &G), 1);
    assert_int_equal(G, 3);
    assert_int_equal(tc_tile_parts(1, 256, 16, &G), 1); /* 16 slices */
    assert_int_equal(tc_tile_parts(1, 257, 16, &G), 2);
    assert_int_equal(G, 9);
    assert_int_equal(tc_tile_parts(512, 2048, 16, &G), 8);
    assert_int_equal(G, 16);
    assert_int_equal(tc_tile_parts(512, 1 << 20, 16, &G), 8); /* at most 8 parts */
    assert_int_equal(tc_tile_parts(128 * 64, 2048, 16, &G), 4); /* 128 row tiles: 512 / 128 parts */
    assert_int_equal(G, 32);
    assert_int_equal(tc_tile_parts(33288, 512, 16, &G), 1);   /* 521 row tiles */
    assert_int_equal(tc_tile_parts(1, 0, 16, &G), 1);
    assert_int_equal(G, 0);

    int64_t ro[2] = {0, 3};
    int32_t ci[3] = {0, 5, 17};
    float val[3] = {1.0f, -1.0f, ldexpf(1, -30)}, x[40], y[1];
    for (int j = 0; j < 40; j++)
        x[j] = 1;
    tc_problem p = {1, 40, 1, ro, ci, val, TC_VAL_F32, x, 1, y, 1, 1.0f, 0.0f};
    tc_mma_model m;
    tc_model_conservative(&m, 8);
    tc_config rows = {TC_PREC_TF32, 8, TC_FORM_ROWS}, tiles = {TC_PREC_TF32, 8, TC_FORM_TILES};
    tc_reference_spmm(&p, &rows, &m);
    assert_true(y[0] == 0.0f);
    tc_reference_spmm(&p, &tiles, &m);
    assert_true(y[0] == ldexpf(1, -30));
}

/* Tiles form, Inf and NaN in X: only the rows that store a non-zero in that
 * row of X see them; a stored 0 times Inf is NaN, as IEEE says. */
static void test_reference_tiles_nonfinite(void **state)
{
    (void)state;
    /* 3 x 20; row 0 uses column 2 (Inf), row 1 columns 1 and 3, row 2 column 2 with value 0 */
    int64_t ro[4] = {0, 2, 4, 5};
    int32_t ci[5] = {2, 7, 1, 3, 2};
    float val[5] = {3, 1, 2, 4, 0};
    float x[20], y[3];
    for (int j = 0; j < 20; j++)
        x[j] = 1;
    x[2] = INFINITY;
    tc_problem p = {3, 20, 1, ro, ci, val, TC_VAL_F32, x, 1, y, 1, 1.0f, 0.0f};
    tc_config tiles = {TC_PREC_F16, 16, TC_FORM_TILES};
    tc_mma_model m;
    tc_model_conservative(&m, 16);
    tc_reference_spmm(&p, &tiles, &m);
    assert_true(isinf(y[0]) && y[0] > 0);
    assert_true(y[1] == 6.0f); /* the same slice as the Inf, untouched */
    assert_true(isnan(y[2]));
    x[2] = NAN;
    tc_reference_spmm(&p, &tiles, &m);
    assert_true(isnan(y[0]) && y[1] == 6.0f);
}

static uint64_t rng = 88172645463325252ull;
static double uniform(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0 * 2 - 1;
}

/* The reference under two different models stays within the bound; a
 * corrupted element is caught. */
static void test_bound_check(void **state)
{
    (void)state;
    enum { M = 20, K = 50, N = 13 };
    int64_t ro[M + 1];
    int32_t ci[M * K];
    float val[M * K], x[K * N], y0[M * N], y[M * N];
    int64_t nnz = 0;
    for (int i = 0; i < M; i++) {
        ro[i] = nnz;
        for (int j = 0; j < K; j++)
            if (i == 3 || (i != 5 && uniform() > 0.2)) { /* row 5 empty, row 3 full */
                ci[nnz] = j;
                val[nnz++] = (float)(uniform() * 100);
            }
    }
    ro[M] = nnz;
    for (int i = 0; i < K * N; i++)
        x[i] = (float)uniform();
    for (int i = 0; i < M * N; i++)
        y0[i] = (float)uniform();
    tc_config cfgs[4] = {{TC_PREC_TF32, 8, TC_FORM_ROWS}, {TC_PREC_F16, 16, TC_FORM_ROWS},
                         {TC_PREC_BF16, 8, TC_FORM_ROWS}, {TC_PREC_F16, 16, TC_FORM_TILES}};
    tc_mma_model models[3];
    tc_model_default(&models[0]);
    models[1] = fused(8, 24, TC_RZ, TC_RZ);
    tc_model_conservative(&models[2], 8);
    for (int c = 0; c < 4; c++)
        for (int mi = 0; mi < 3; mi++)
            for (int b = 0; b < 2; b++) {
                memcpy(y, y0, sizeof y);
                tc_problem p = {M, K, N, ro, ci, val, TC_VAL_F32, x, N, y, N, 1.5f, b ? 0.5f : 0.0f};
                tc_model_default(&models[0]);
                tc_mma_model *mm = &models[mi];
                if (mi == 2)
                    tc_model_conservative(mm, cfgs[c].k);
                if (mi >= 1 && cfgs[c].k < mm->group)
                    continue;
                tc_reference_spmm(&p, &cfgs[c], mm);
                tc_check_result r;
                tc_bound_check(&p, &cfgs[c], mm, b ? y0 : NULL, y, &r);
                assert_int_equal(r.checked, M * N);
                assert_int_equal(r.failed, 0);
                assert_true(r.max_ratio <= 1.0);
                /* the conservative bound covers results of every model */
                tc_mma_model coarse;
                tc_model_conservative(&coarse, cfgs[c].k);
                tc_bound_check(&p, &cfgs[c], &coarse, b ? y0 : NULL, y, &r);
                assert_int_equal(r.failed, 0);
                y[7] += 1e4f; /* far outside any bound (sum |a||x| < 2500) */
                tc_bound_check(&p, &cfgs[c], mm, b ? y0 : NULL, y, &r);
                assert_int_equal(r.failed, 1);
                assert_int_equal(r.first_row, 0);
                assert_int_equal(r.first_col, 7);
            }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_f16_rounding),
        cmocka_unit_test(test_bf16_rounding),
        cmocka_unit_test(test_tf32_rounding),
        cmocka_unit_test(test_model_hand_cases),
        cmocka_unit_test(test_model_text),
        cmocka_unit_test(test_row_parts),
        cmocka_unit_test(test_reference_small),
        cmocka_unit_test(test_reference_tree_order),
        cmocka_unit_test(test_row_segments),
        cmocka_unit_test(test_reference_segment_order),
        cmocka_unit_test(test_reference_tiles),
        cmocka_unit_test(test_reference_tiles_nonfinite),
        cmocka_unit_test(test_bound_check),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
