/*
 * plan.c - SpMM plans: check the operands once, choose the backend and the
 * strategy (and say why), run the backend's preprocessing; then execute
 * as often as needed.
 */
#include "config.h"
#include "loom_internal.h"
#include "select_tc.h"
#include "select_plan.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

loom_status loom_plan_options_init(loom_plan_options *opts)
{
    if (!opts)
        return loom__error(LOOM_ERR_NULL_POINTER, "loom_plan_options_init: opts is NULL");
    memset(opts, 0, sizeof *opts);
    opts->backend = LOOM_BACKEND_AUTO;
    opts->selector = LOOM_SELECT_AUTO;
    return loom_strategy_design(0, &opts->strategy);
}

static loom_status check_plan(const loom_plan *plan, const char *fn)
{
    if (!plan)
        return loom__error(LOOM_ERR_NULL_POINTER, "%s: plan is NULL", fn);
    if (plan->magic != LOOM_MAGIC_PLAN)
        return loom__error(LOOM_ERR_INVALID_OBJECT,
                           "%s: plan is not a live loom_plan (freed or uninitialised)", fn);
    return LOOM_SUCCESS;
}

/* X is K x N and Y is M x N, all of A's dtype and memory. */
static loom_status check_shapes(const loom_csr *A, const loom_dense *X, const loom_dense *Y,
                                const char *fn)
{
    if (X->rows != A->cols)
        return loom__error(LOOM_ERR_DIMENSION_MISMATCH,
                           "%s: X has %" PRId64 " rows but A has %" PRId64 " columns", fn, X->rows,
                           A->cols);
    if (Y->rows != A->rows)
        return loom__error(LOOM_ERR_DIMENSION_MISMATCH,
                           "%s: Y has %" PRId64 " rows but A has %" PRId64 " rows", fn, Y->rows, A->rows);
    if (X->cols != Y->cols)
        return loom__error(LOOM_ERR_DIMENSION_MISMATCH,
                           "%s: X has %" PRId64 " columns but Y has %" PRId64, fn, X->cols, Y->cols);
    if (X->dtype != A->dtype || Y->dtype != A->dtype)
        return loom__error(LOOM_ERR_INVALID_ARGUMENT, "%s: A is %s, X is %s and Y is %s; all must match",
                           fn, loom_dtype_name(A->dtype), loom_dtype_name(X->dtype),
                           loom_dtype_name(Y->dtype));
    if (X->memory != A->memory || Y->memory != A->memory)
        return loom__error(LOOM_ERR_INVALID_ARGUMENT,
                           "%s: A, X and Y must all be in the same memory (host or device)", fn);
    return LOOM_SUCCESS;
}

/* The backend a plan runs on: the options', else the context's, else the
 * best available for where the operands live. */
static loom_status choose_backend(const loom_context *ctx, const loom_csr *A,
                                  const loom_plan_options *opts, const loom_backend **out)
{
    loom_backend_id id = opts->backend != LOOM_BACKEND_AUTO ? opts->backend : ctx->backend;
    if (id == LOOM_BACKEND_AUTO) {
        /* f16/bf16 values in host memory: only the reference has tensor-core
         * strategies on the host (the OpenMP backend has none) */
        const bool half = A->dtype == LOOM_F16 || A->dtype == LOOM_BF16;
        if (A->memory == LOOM_MEMORY_DEVICE)
            id = LOOM_BACKEND_CUDA;
        else if (!half && loom_backend_available(LOOM_BACKEND_OPENMP) == LOOM_SUCCESS)
            id = LOOM_BACKEND_OPENMP;
        else
            id = LOOM_BACKEND_REFERENCE;
    }
    const loom_backend *b = loom__backend(id);
    if (!b)
        return loom__error(LOOM_ERR_INVALID_ARGUMENT, "backend id %d is not a backend", (int)id);
    loom_status st = b->probe();
    if (st != LOOM_SUCCESS)
        return st;
    *out = b;
    return LOOM_SUCCESS;
}

/* What selection knows of the machine the plan runs on: the host CPU, and
 * for a backend with a device_info slot (CUDA) the accelerator's SMs, L2
 * and memory bandwidth; x_over_llc and y_over_llc are then relative to the
 * GPU's L2 (loom__feature_vector).  Should the device not answer, those
 * stay 0 and the plan is selected as if on the host's caches. */
static void plan_device_info(const loom_plan *p, loom__device_info *dev)
{
    loom__cpu_info(p->ctx.threads, dev);
    if (p->backend->id == LOOM_BACKEND_REFERENCE)
        dev->threads = 1;
    if (p->backend->device_info && p->backend->device_info(dev) != LOOM_SUCCESS) {
        dev->sms = 0;
        dev->gpu_l2_kb = dev->mem_bw_gbs = 0;
        loom__clear_error();
    }
    if (p->backend->id == LOOM_BACKEND_CUDA)
        snprintf(dev->id, sizeof dev->id, "cuda:%s", "device0");
}

static loom_status choose_rules(loom_plan *p, const char *prefix, char *why, size_t len)
{
    char rules_why[1024];
    loom__select_rules(&p->features, p->n, p->y_layout, p->backend->id, &p->strategy, rules_why,
                       sizeof rules_why);
    snprintf(why, len, "%s%s", prefix, rules_why);
    return LOOM_SUCCESS;
}

/* f16 and bf16 values run only on tensor cores: auto and rules pick the
 * form and k (select_tc.h); operands of the values' own type. */
static void choose_tensor_cores(loom_plan *p, const char *prefix, char *why, size_t len)
{
    const loom_features *f = &p->features;
    loom__device_info dev;
    plan_device_info(p, &dev);
    const loom__tc_bounds bounds = loom__tc_resident_bounds(dev.tc_resident_max_k, dev.tc_resident_max_k_narrow);
    loom_strategy s;
    loom_strategy_design(0, &s); /* rb-rm-sr, then the TC K-loop */
    s.kloop = LOOM_K_TC;
    s.tc_precision = p->dtype == LOOM_F16 ? LOOM_TC_F16 : LOOM_TC_BF16;
    const bool tiles = loom__tc_prefer_tiles(f->rows, f->cols, f->nnz, p->n, bounds);
    s.tc_form = tiles ? LOOM_TC_TILES : LOOM_TC_ROWS;
    s.tc_k = tiles ? 16 : loom__tc_rows_k(f->rows, f->nnz);
    p->strategy = s;
    snprintf(why, len,
             "%s%s values run on tensor cores; the %s form, since %s (tiles where N >= %d, "
             "M <= %d, density >= %.2f and nnz * N >= %.0e, or %.1e where K <= %" PRId64 ", or density "
             ">= %.3f where K <= %" PRId64 ": X's rows would be gathered many times over); k = %d%s",
             prefix, loom_dtype_name(p->dtype), tiles ? "tiles" : "rows",
             tiles ? "N, the density and the work are all large enough"
                   : "N, the density or the work is too small (or M too large) for dense tiles to pay",
             LOOM_TC_TILES_MIN_N, LOOM_TC_TILES_MAX_M, LOOM_TC_TILES_MIN_DENSITY, LOOM_TC_TILES_MIN_WORK,
             LOOM_TC_TILES_MIN_WORK_SHORT_K, bounds.max_k, LOOM_TC_TILES_MIN_DENSITY_NARROW, bounds.max_k_narrow,
             s.tc_k,
             s.tc_k == 8 ? " (short rows: a mean under 8 non-zeros)" : "");
}

static loom_status choose_strategy(loom_plan *p, const loom_plan_options *opts, const loom_dense *X,
                                   char *why, size_t len)
{
    loom__device_info dev;
    const bool half = p->dtype == LOOM_F16 || p->dtype == LOOM_BF16;
    if (half && (opts->selector == LOOM_SELECT_AUTO || opts->selector == LOOM_SELECT_RULES)) {
        choose_tensor_cores(p, opts->selector == LOOM_SELECT_AUTO ? "auto: " : "", why, len);
        return LOOM_SUCCESS;
    }
    switch (opts->selector) {
    case LOOM_SELECT_FIXED: {
        loom_status st = loom_strategy_check(&opts->strategy);
        if (st != LOOM_SUCCESS)
            return st;
        p->strategy = opts->strategy;
        snprintf(why, len, "fixed: the caller chose this design");
        return LOOM_SUCCESS;
    }
    case LOOM_SELECT_RULES:
        return choose_rules(p, "", why, len);
    case LOOM_SELECT_MODEL:
        plan_device_info(p, &dev);
        return loom__select_model(p, &dev, why, len);
    case LOOM_SELECT_TUNE:
        plan_device_info(p, &dev);
        return loom__select_tune(p, &dev, X, why, len);
    case LOOM_SELECT_AUTO: {
        plan_device_info(p, &dev);
        char model_why[2200];
        if (loom__select_model(p, &dev, model_why, sizeof model_why) == LOOM_SUCCESS) {
            snprintf(why, len, "auto: %s", model_why);
            return LOOM_SUCCESS;
        }
        /* Say why: no model, or a model whose candidates this backend
         * rejects for this plan (loom__select_model skips those). */
        char prefix[400];
        const loom__model *m = loom__model_acquire(p->backend->id, NULL, 0);
        if (m)
            snprintf(prefix, sizeof prefix, "auto: the model cannot choose (%.300s), so the rules decide; ",
                     loom_last_error());
        else
            snprintf(prefix, sizeof prefix, "auto: no trained model for this backend, so the rules decide; ");
        loom__model_release(m);
        loom__clear_error();
        return choose_rules(p, prefix, why, len);
    }
    }
    return loom__error(LOOM_ERR_INVALID_ARGUMENT, "plan options: selector %d is not known",
                       (int)opts->selector);
}

/* Tensor-core strategies and 16-bit values go together, on backends that
 * have them: f16 values with f16 operands, bf16 with bf16, float with any. */
static loom_status check_tensor_cores(const loom_plan *p)
{
    const loom_strategy *s = &p->strategy;
    bool half = p->dtype == LOOM_F16 || p->dtype == LOOM_BF16;
    if (s->kloop != LOOM_K_TC) {
        if (half)
            return loom__error(LOOM_ERR_NOT_SUPPORTED,
                               "%s values run only with tensor-core strategies (rb-rm-tc:f16, ...)",
                               loom_dtype_name(p->dtype));
        return LOOM_SUCCESS;
    }
    if (!p->backend->tensor_cores)
        return loom__error(LOOM_ERR_NOT_SUPPORTED,
                           "backend %s has no tensor-core strategies (the reference and cuda do)",
                           p->backend->name);
    if (p->dtype == LOOM_F64 || (p->dtype == LOOM_F16 && s->tc_precision != LOOM_TC_F16) ||
        (p->dtype == LOOM_BF16 && s->tc_precision != LOOM_TC_BF16))
        return loom__error(LOOM_ERR_NOT_SUPPORTED,
                           "tensor-core operands of this precision cannot take %s values (f16 "
                           "values need f16 operands, bf16 values bf16, float any; f64 none)",
                           loom_dtype_name(p->dtype));
    return LOOM_SUCCESS;
}

static void write_explanation(loom_plan *p, const char *why)
{
    char name[128] = "?";
    loom_strategy_format(&p->strategy, name, sizeof name);
    const loom_features *f = &p->features;
    snprintf(p->explain, sizeof p->explain,
             "design %s on backend %s, %s, N = %" PRId64 "\n"
             "matrix: %" PRId64 " x %" PRId64 ", %" PRId64 " non-zeros; row length mean %.2f, "
             "std %.2f, max %.0f; %" PRId64 " empty rows\n"
             "why: %s",
             name, p->backend->name, loom_dtype_name(p->dtype), p->n, f->rows, f->cols, f->nnz,
             f->row_mean, f->row_std, f->row_max, f->empty_rows, why);
    if (p->backend->plan_explain) {
        char notes[768] = "";
        p->backend->plan_explain(p, notes, sizeof notes);
        const size_t at = strlen(p->explain);
        if (notes[0])
            snprintf(p->explain + at, sizeof p->explain - at, "\n%s", notes);
    }
}

static void plan_free(loom_plan *p)
{
    if (p->backend && p->backend->plan_release)
        p->backend->plan_release(p);
    loom__free(p->chunk_first_row);
    pthread_mutex_destroy(&p->execute_lock);
    p->magic = LOOM_MAGIC_FREED;
    loom__free(p);
}

loom_status loom_spmm_plan_create(loom_context *ctx, loom_plan **plan, const loom_csr *A,
                                  const loom_dense *X, const loom_dense *Y,
                                  const loom_plan_options *opts)
{
    static const char fn[] = "loom_spmm_plan_create";
    if (!plan)
        return loom__error(LOOM_ERR_NULL_POINTER, "%s: plan is NULL", fn);
    *plan = NULL;
    loom_plan_options defaults;
    if (!opts) {
        loom_plan_options_init(&defaults);
        opts = &defaults;
    }
    loom_status st = loom__check_context(ctx, fn);
    if (st == LOOM_SUCCESS)
        st = loom__check_csr(A, fn);
    /* At plan time only the shapes matter: X and Y may have no data yet. */
    loom_dense xs, ys;
    if (st == LOOM_SUCCESS && (!X || !Y))
        st = loom__error(LOOM_ERR_NULL_POINTER, "%s: X and Y descriptors must not be NULL", fn);
    if (st == LOOM_SUCCESS) {
        xs = *X;
        ys = *Y;
        xs.data = ys.data = (void *)1;
        st = loom__check_dense(&xs, "X", fn);
    }
    if (st == LOOM_SUCCESS)
        st = loom__check_dense(&ys, "Y", fn);
    if (st == LOOM_SUCCESS)
        st = check_shapes(A, X, Y, fn);
    const loom_backend *backend = NULL;
    if (st == LOOM_SUCCESS)
        st = choose_backend(ctx, A, opts, &backend);
    if (st != LOOM_SUCCESS)
        return st;

    loom_plan *p = loom__calloc(1, sizeof *p);
    if (!p)
        return loom__error(LOOM_ERR_OUT_OF_MEMORY, "%s: out of memory", fn);
    p->magic = LOOM_MAGIC_PLAN;
    pthread_mutex_init(&p->execute_lock, NULL);
    p->ctx = *ctx;
    p->A = A;
    p->backend = backend;
    p->dtype = A->dtype;
    p->n = X->cols;
    p->x_layout = X->layout;
    p->y_layout = Y->layout;
    p->x_memory = X->memory;
    p->y_memory = Y->memory;
    loom_csr_features(A, &p->features);

    char why[2304];
    st = choose_strategy(p, opts, X, why, sizeof why);
    if (st == LOOM_SUCCESS)
        st = check_tensor_cores(p);
    if (st == LOOM_SUCCESS)
        st = backend->supports(&p->strategy, p->dtype, A->memory);
    if (st == LOOM_SUCCESS && !p->prepared && p->strategy.mloop == LOOM_M_EB) {
        const int64_t *ro = A->memory == LOOM_MEMORY_HOST ? A->row_offsets : A->host_row_offsets;
        st = loom__eb_chunk_rows(ro, A->rows, A->nnz, p->strategy.chunk, &p->chunk_first_row,
                                 &p->chunks);
    }
    if (st == LOOM_SUCCESS && !p->prepared && backend->plan_prepare)
        st = backend->plan_prepare(p);
    if (st != LOOM_SUCCESS) {
        plan_free(p);
        return st;
    }
    write_explanation(p, why);
    *plan = p;
    return LOOM_SUCCESS;
}

/* Do the bytes of X and Y overlap?  Y is written while X is read. */
static bool operands_overlap(const loom_dense *X, const loom_dense *Y)
{
    if (X->memory != Y->memory || X->rows == 0 || X->cols == 0 || Y->rows == 0 || Y->cols == 0)
        return false;
    size_t es = loom_dtype_size(X->dtype);
    const char *x0 = X->data, *y0 = Y->data;
    const char *x1 = x0 + (loom__dense_offset(X, X->rows - 1, X->cols - 1) + 1) * es;
    const char *y1 = y0 + (loom__dense_offset(Y, Y->rows - 1, Y->cols - 1) + 1) * es;
    return x0 < y1 && y0 < x1;
}

loom_status loom_spmm_execute(loom_plan *plan, double alpha, const loom_dense *X, double beta,
                              loom_dense *Y)
{
    static const char fn[] = "loom_spmm_execute";
    loom_status st = check_plan(plan, fn);
    if (st == LOOM_SUCCESS)
        st = loom__check_dense(X, "X", fn);
    if (st == LOOM_SUCCESS)
        st = loom__check_dense(Y, "Y", fn);
    if (st == LOOM_SUCCESS)
        st = loom__check_csr(plan->A, fn);
    if (st == LOOM_SUCCESS)
        st = check_shapes(plan->A, X, Y, fn);
    if (st != LOOM_SUCCESS)
        return st;
    if (X->cols != plan->n || X->layout != plan->x_layout || Y->layout != plan->y_layout)
        return loom__error(LOOM_ERR_DIMENSION_MISMATCH,
                           "%s: the plan was made for N = %" PRId64 " with X %s and Y %s; got N = %" PRId64
                           " with X %s and Y %s",
                           fn, plan->n, plan->x_layout == LOOM_ROW_MAJOR ? "row-major" : "column-major",
                           plan->y_layout == LOOM_ROW_MAJOR ? "row-major" : "column-major", X->cols,
                           X->layout == LOOM_ROW_MAJOR ? "row-major" : "column-major",
                           Y->layout == LOOM_ROW_MAJOR ? "row-major" : "column-major");
    if (operands_overlap(X, Y))
        return loom__error(LOOM_ERR_INVALID_ARGUMENT,
                           "%s: X and Y overlap in memory; Y must not alias X", fn);
    if (Y->rows == 0 || Y->cols == 0)
        return LOOM_SUCCESS;
    pthread_mutex_lock(&plan->execute_lock);
    st = plan->backend->spmm(plan, alpha, X, beta, Y);
    pthread_mutex_unlock(&plan->execute_lock);
    return st;
}

loom_status loom_plan_destroy(loom_plan **plan)
{
    if (!plan)
        return loom__error(LOOM_ERR_NULL_POINTER, "loom_plan_destroy: plan is NULL");
    if (!*plan)
        return LOOM_SUCCESS;
    loom_status st = check_plan(*plan, "loom_plan_destroy");
    if (st != LOOM_SUCCESS)
        return st;
    plan_free(*plan);
    *plan = NULL;
    return LOOM_SUCCESS;
}

loom_status loom_plan_strategy(const loom_plan *plan, loom_strategy *s, loom_backend_id *backend)
{
    loom_status st = check_plan(plan, "loom_plan_strategy");
    if (st != LOOM_SUCCESS)
        return st;
    if (s)
        *s = plan->strategy;
    if (backend)
        *backend = plan->backend->id;
    return LOOM_SUCCESS;
}

const char *loom_plan_explain(const loom_plan *plan)
{
    if (check_plan(plan, "loom_plan_explain") != LOOM_SUCCESS)
        return "(not a valid plan)";
    return plan->explain;
}
