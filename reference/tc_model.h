/*
 * tc_model.h - the tensor-core SpMM strategy (TCA-SpMM) as a summation
 * order, and a model of the MMA unit's accumulation.
 *
 * The strategy, for output element Y(i, c) of row i with L non-zeros and an
 * MMA of depth k (16 or 8 for fp16/bf16 operands, 8 or 4 for tf32):
 *
 *   1. Operands are rounded to the MMA type (RNE, tc_round.h): a~ = rnd(a),
 *      x~ = rnd(x).  Their products are exact (in double, and inside the MMA).
 *   2. The row's non-zeros are cut into g = ceil(L/k) groups of k (the last
 *      padded with zeros).  The row gets P = min(8, 2^ceil(log2 g)) parts
 *      (warps; P = 1 for an empty row); part p owns the contiguous groups
 *      [p*G, min((p+1)*G, g)) with G = ceil(g/P).
 *   3. Each part starts its fp32 accumulator at +0 and, for each of its
 *      groups in order, applies one MMA:  acc = mma(acc, a~_group, x~_group)
 *      - the model below says how the MMA adds k products to acc.
 *   4. The P part sums are combined by the halving tree of order_rb_pr.h in
 *      fp32 (RNE):  for s = P/2 .. 1: part[l] = part[l] + part[l+s].
 *   Long rows (more than TC_SEGMENT_GROUPS groups) first go in segments, so
 *   that several blocks of 8 warps can share one: the row gets B segments,
 *   B the power of two >= ceil(g / TC_SEGMENT_GROUPS) (at most
 *   TC_SEGMENTS_MAX), segment b owning the groups [floor(b g / B),
 *   floor((b+1) g / B)).  Each segment goes through steps 2-4 as a row of
 *   its own (its non-zeros, its groups, its P parts and their tree), and
 *   the B segment sums are combined by the same halving tree.  A row of at
 *   most TC_SEGMENT_GROUPS groups is one segment: steps 2-4 as written.
 *   5. The fp32 result is finished as everywhere in loom, in fp32:
 *        beta == 0: y = alpha*acc, else y = fma(alpha, acc, beta*y_old),
 *      then rounded (RNE) to the storage type of Y.
 *
 * That is the "rows" form (TCA-SpMM).  The "tiles" form cuts K instead of
 * the row: steps 1, 4 and 5 are the same; 2 and 3 become
 *   2'. K is cut into S = ceil(K/k) slices of k columns; slice s holds
 *      columns [s*k, s*k + k).  The row's non-zero of column c sits at slot
 *      c - s*k of its slice; the other slots hold zero products.  K gets
 *      P parts: the power of two >= ceil(S/16), at most 8, and at most
 *      512 / ceil(M/64) rounded down to a power of two (at least 1): a
 *      shape rule, the same P for every row and every N; part p owns the
 *      slices [p*G, min((p+1)*G, S)), G = ceil(S/P).
 *   3'. Each part starts at +0 and applies one MMA per slice it owns, empty
 *      slices included: acc = mma(acc, the slice's k products).  A product
 *      whose X value is Inf or NaN enters the MMA as a~ * 0; after step 4
 *      those products are added one by one in the row's order, in fp32:
 *      acc = acc + a~*x~ (so an Inf in X reaches only the rows that store
 *      a non-zero in its row of X, as in every other loom strategy).
 * On the GPU (tc_tiles.cu) a block runs one part of a 64 x 64 tile of Y as
 * dense MMAs: X's slices are staged in shared memory once for 64 rows, and
 * A's non-zeros are scattered into a zeroed tile.  The MMA work is dense
 * (M*K*N), the X traffic K*N per 64 rows, so it pays for large layers of
 * moderate sparsity, where the rows form gathers nnz*N rows of X.
 *
 * The GPU kernel (backends/cuda/tc_spmm.cu) performs exactly these steps; the
 * only unknown is step 3's inside of the MMA, which NVIDIA does not document.
 * That is what tc_mma_model describes; bench/tc_probe.cu measures it on a
 * device and writes a file that tc_model_load() reads.
 */
#ifndef LOOM_REFERENCE_TC_MODEL_H
#define LOOM_REFERENCE_TC_MODEL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TC_VIS __attribute__((visibility("hidden")))

/* Storage type of A, X and Y (proposed public names: LOOM_F32, LOOM_F16, LOOM_BF16). */
typedef enum tc_value { TC_VAL_F32 = 0, TC_VAL_F16 = 1, TC_VAL_BF16 = 2 } tc_value;

/* MMA operand precision (proposed: LOOM_TC_F16 / LOOM_TC_BF16 / LOOM_TC_TF32). */
typedef enum tc_precision { TC_PREC_NONE = 0, TC_PREC_F16 = 1, TC_PREC_BF16 = 2, TC_PREC_TF32 = 3 } tc_precision;

/* How the products are cut into MMAs (above): groups of a row's non-zeros
 * (rows, TCA-SpMM) or slices of K's columns (tiles). */
typedef enum tc_form { TC_FORM_ROWS = 0, TC_FORM_TILES = 1 } tc_form;

/* The strategy's arithmetic parameters: operand precision, MMA depth k, form. */
typedef struct tc_config {
    tc_precision precision;
    int k; /* 16 or 8 (fp16/bf16: m16n8k16, m16n8k8); 8 or 4 (tf32: m16n8k8, m16n8k4) */
    tc_form form;
} tc_config;

#define TC_PARTS_MAX 8
/* Rows form: a row of more groups than this is cut into segments (step 4). */
#ifndef TC_SEGMENT_GROUPS
#define TC_SEGMENT_GROUPS 64
#endif
#define TC_SEGMENTS_MAX 1024
/* Tiles form: K gets parts until each holds at most this many slices, and
 * while M's 64-row tiles times the parts stay within TC_TILE_PART_TILES. */
#define TC_TILE_PART_SLICES 16
#define TC_TILE_PART_TILES 512

/* How one MMA output element d = c + sum_{t<k} p_t is formed (c fp32, p_t
 * exact products).
 *
 * TC_ACC_SEQUENTIAL: IEEE fp32, one RNE addition per product, in k order:
 *     d = c; for t: d = fl32(d + p_t)
 * TC_ACC_FUSED: the products are taken `group` at a time; each step adds the
 *     running value and `group` products as one multi-term addition:
 *       E    = exponent of the largest |term| (the leading bit's weight 2^E)
 *       each term is cut to a multiple of 2^(E - align_bits): toward zero
 *            (sign-magnitude truncation) or toward -inf (two's complement)
 *       the cut terms are summed exactly, and the sum is rounded to fp32
 *            (RZ or RNE).
 *   This is the shape of the behaviour measured on Volta..Hopper tensor cores
 *   (Fasi, Higham, Mikaitis, Pranesh 2021; later H100 studies); the probe
 *   fits group, align_bits and the two rounding choices. */
typedef enum tc_acc_kind { TC_ACC_SEQUENTIAL = 0, TC_ACC_FUSED = 1 } tc_acc_kind;
typedef enum tc_round_mode { TC_RNE = 0, TC_RZ = 1, TC_RD = 2 } tc_round_mode;

typedef struct tc_mma_model {
    tc_acc_kind kind;
    int group;            /* FUSED: products per step (divides k) */
    int align_bits;       /* FUSED: bits kept below the largest term's leading bit (<= 56) */
    tc_round_mode align;  /* FUSED: TC_RZ (toward zero) or TC_RD (toward -inf) when cutting */
    tc_round_mode final;  /* FUSED: TC_RZ or TC_RNE when rounding the step's sum to fp32 */
    int calibrated;       /* 1 when fitted on a device (bit-exact is then the check) */
    char device[128];     /* the device it was fitted on, or "" */
} tc_mma_model;

/* IEEE fp32 sequential with RNE (not calibrated). */
TC_VIS void tc_model_default(tc_mma_model *m);
/* For the bound check on a device with no calibrated model: one fused step
 * of all k products keeping only 20 bits below the largest term, cut toward
 * -inf, then RZ - coarser than any tensor core measured so far (Volta to
 * Hopper keep at least 24), so its bound also covers the unknown device. */
TC_VIS void tc_model_conservative(tc_mma_model *m, int k);
/* One line, e.g. "fused group=8 align_bits=25 align=rz final=rz". */
TC_VIS void tc_model_format(const tc_mma_model *m, char *buf, size_t len);
/* Parse the line tc_model_format writes (0 on success, -1 on a bad line). */
TC_VIS int tc_model_parse(const char *text, tc_mma_model *m);
/* Load the model of `precision` and depth k from a probe file (see
 * bench/results/tc/README): 0 found, -1 no such file or no entry. */
TC_VIS int tc_model_load(const char *path, tc_precision precision, int k, tc_mma_model *m);

/* One MMA output element: c plus the k products prod[0..k-1] (exact doubles). */
TC_VIS float tc_mma_element(const tc_mma_model *m, float c, const double *prod, int k);

/* A row of len non-zeros: its segment count B (step 4; 1 for a row of at
 * most TC_SEGMENT_GROUPS groups), and segment b's non-zeros, [*first,
 * *first + *count) of the row's. */
TC_VIS int tc_row_segments(int64_t len, int k);
TC_VIS void tc_segment_span(int64_t len, int k, int segments, int b, int64_t *first, int64_t *count);
/* The parts (step 2) of a segment of len non-zeros (the row itself when it
 * is one segment): P, and groups per part G. */
TC_VIS int tc_row_parts(int64_t len, int k, int64_t *groups_per_part);
/* Tiles form (step 2'): P for an M x K matrix, and slices per part G. */
TC_VIS int tc_tile_parts(int64_t m, int64_t kcols, int k, int64_t *slices_per_part);

/* Operand rounding (step 1) of one stored value; value type and precision. */
TC_VIS double tc_operand(const void *base, int64_t index, tc_value vt, tc_precision prec);
/* Load a stored value as double (exact) and store an fp32 as the value type (RNE). */
TC_VIS double tc_load(const void *base, int64_t index, tc_value vt);
TC_VIS void tc_store(void *base, int64_t index, tc_value vt, float v);
TC_VIS size_t tc_value_size(tc_value vt);

/* The problem, all row-major host arrays (Y(i,c) = y[i*ldy + c]). */
typedef struct tc_problem {
    int64_t m, k, n;
    const int64_t *row_offsets;
    const int32_t *col_indices;
    const void *values;
    tc_value vt;
    const void *x;
    int64_t ldx;
    void *y;
    int64_t ldy;
    float alpha, beta;
} tc_problem;

/* The reference: Y = alpha*A*X + beta*Y by steps 1-5 with the given model. */
TC_VIS void tc_reference_spmm(const tc_problem *p, const tc_config *cfg, const tc_mma_model *model);

/*
 * The bound check, for devices the model is not calibrated on.  For each
 * output element it computes, in double, the exact result with the original
 * operands and a rigorous bound on |Y_gpu - Y_exact| (tc_model.c derives it).
 * y_old holds Y before the call (NULL when beta == 0), y_gpu after.
 */
typedef struct tc_check_result {
    int64_t checked, failed;
    int64_t first_row, first_col; /* first failure, -1 if none */
    double first_got, first_exact, first_bound;
    double max_ratio;             /* max |err| / bound (<= 1 passes) */
} tc_check_result;

TC_VIS void tc_bound_check(const tc_problem *p, const tc_config *cfg, const tc_mma_model *model,
                           const void *y_old, const void *y_gpu, tc_check_result *r);
/* The bound for one element (exposed for tests): see tc_model.c. */
TC_VIS double tc_element_bound(const tc_problem *p, const tc_config *cfg, const tc_mma_model *model,
                               int64_t i, int64_t c, double y_old, double *exact);

#ifdef __cplusplus
}
#endif

#endif
