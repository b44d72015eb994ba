/* fuzz_csr_plan.c - libFuzzer target: CSR validation, plan creation and
 * execution on the reference, with structure, strategy and shapes taken
 * from the input.  Invalid input must give an error, never a crash. */
#include <loom.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct reader {
    const uint8_t *p;
    size_t left;
} reader;

static uint32_t take(reader *r, unsigned bytes)
{
    uint32_t v = 0;
    for (unsigned i = 0; i < bytes && r->left; i++, r->left--)
        v = v << 8 | *r->p++;
    return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static loom_context *ctx;
    if (!ctx && loom_context_create(&ctx) != LOOM_SUCCESS)
        return 0;
    reader r = {data, size};
    int64_t rows = take(&r, 1) % 40, cols = take(&r, 1) % 40, nnz = take(&r, 1) % 200;
    int64_t n = take(&r, 1) % 9;
    int design = (int)take(&r, 1) % LOOM_DESIGN_COUNT;
    int64_t *ro = malloc(sizeof *ro * (size_t)(rows + 1));
    int32_t *ci = malloc(sizeof *ci * (size_t)(nnz + 1));
    float *v = malloc(sizeof *v * (size_t)(nnz + 1));
    /* Offsets and indices straight from the input: often invalid, on purpose. */
    for (int64_t i = 0; i <= rows; i++)
        ro[i] = (int64_t)(int8_t)take(&r, 1) + (i * nnz) / (rows ? rows : 1);
    for (int64_t j = 0; j < nnz; j++) {
        ci[j] = (int32_t)(int8_t)take(&r, 1);
        v[j] = (float)(int8_t)take(&r, 1) / 8.0f;
    }
    loom_csr *A = NULL;
    if (loom_csr_create(ctx, &A, rows, cols, nnz, LOOM_F32, ro, ci, v) == LOOM_SUCCESS) {
        float *x = calloc((size_t)(cols * n) + 1, sizeof *x);
        float *y = calloc((size_t)(rows * n) + 1, sizeof *y);
        loom_dense X, Y;
        loom_dense_init(&X, cols, n, n ? n : 1, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST, x);
        loom_dense_init(&Y, rows, n, n ? n : 1, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST, y);
        loom_plan_options opts;
        loom_plan_options_init(&opts);
        opts.backend = LOOM_BACKEND_REFERENCE;
        opts.selector = LOOM_SELECT_FIXED;
        loom_strategy_design(design, &opts.strategy);
        opts.strategy.lanes = 1 << (take(&r, 1) % 7);       /* 1..64: some invalid */
        opts.strategy.chunk = (int64_t)(int8_t)take(&r, 1); /* some invalid */
        loom_plan *plan = NULL;
        if (loom_spmm_plan_create(ctx, &plan, A, &X, &Y, &opts) == LOOM_SUCCESS) {
            loom_spmm_execute(plan, 1.0, &X, 0.5, &Y);
            loom_plan_destroy(&plan);
        }
        free(x);
        free(y);
        loom_csr_destroy(&A);
    }
    free(ro);
    free(ci);
    free(v);
    return 0;
}
