/*
 * dual_gemm_api.c - the dual-side GEMM entry points: validation, the choice
 * of a dual backend, plan and execute.
 */
#include "config.h"
#include "dual_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* The backend a dual operation runs on: the one asked for, else the
 * context's, else the device when C lives there, else openmp, else the
 * reference.  Never silently another than the one explicitly asked for. */
LOOM_INTERNAL loom_status loom__dual_choose(const loom_context *ctx, loom_backend_id asked,
                                            loom_memory memory, const char *fn,
                                            const loom_dual_backend **out)
{
    loom_backend_id id = asked != LOOM_BACKEND_AUTO ? asked : ctx->backend;
    if (id == LOOM_BACKEND_AUTO) {
        if (memory == LOOM_MEMORY_DEVICE)
            id = LOOM_BACKEND_CUDA;
        else
            id = loom__dual_backend(LOOM_BACKEND_OPENMP)->probe() == LOOM_SUCCESS
                     ? LOOM_BACKEND_OPENMP
                     : LOOM_BACKEND_REFERENCE;
        loom__clear_error();
    }
    const loom_dual_backend *b = loom__dual_backend(id);
    if (!b)
        return loom__error(LOOM_ERR_INVALID_ARGUMENT, "%s: backend id %d is not a backend", fn,
                           (int)id);
    loom_status st = b->probe();
    if (st != LOOM_SUCCESS)
        return st;
    if (memory == LOOM_MEMORY_DEVICE && id != LOOM_BACKEND_CUDA)
        return loom__error(LOOM_ERR_NOT_SUPPORTED,
                           "%s: backend %s works on host memory; C is in device memory", fn,
                           b->name);
    *out = b;
    return LOOM_SUCCESS;
}

static loom_status check_plan(const loom_dual_gemm_plan *p, const char *fn)
{
    if (!p)
        return loom__error(LOOM_ERR_NULL_POINTER, "%s: plan is NULL", fn);
    if (p->magic != LOOM_MAGIC_DUAL_PLAN)
        return loom__error(LOOM_ERR_INVALID_OBJECT,
                           "%s: plan is not a live loom_dual_gemm_plan (freed or uninitialised)",
                           fn);
    return LOOM_SUCCESS;
}

LOOM_INTERNAL loom_status loom__dual_check_operands(const loom_bitmap *A, const loom_bitmap *B,
                                                    const loom_dense *C, const char *fn)
{
    loom_status st = loom__check_bitmap(A, fn);
    if (st == LOOM_SUCCESS)
        st = loom__check_bitmap(B, fn);
    if (st == LOOM_SUCCESS)
        st = loom__check_dense(C, "C", fn);
    if (st != LOOM_SUCCESS)
        return st;
    if (A->v.layout != LOOM_BITMAP_COLUMNS)
        return loom__error(LOOM_ERR_INVALID_ARGUMENT,
                           "%s: A must be column-condensed (LOOM_BITMAP_COLUMNS): the outer "
                           "product reads A a column at a time",
                           fn);
    if (B->v.layout != LOOM_BITMAP_ROWS)
        return loom__error(LOOM_ERR_INVALID_ARGUMENT,
                           "%s: B must be row-condensed (LOOM_BITMAP_ROWS): the outer product "
                           "reads B a row at a time",
                           fn);
    if (A->v.cols != B->v.rows || C->rows != A->v.rows || C->cols != B->v.cols)
        return loom__error(LOOM_ERR_DIMENSION_MISMATCH,
                           "%s: A is %" PRId64 " x %" PRId64 ", B %" PRId64 " x %" PRId64
                           ", C %" PRId64 " x %" PRId64 " (need A: M x K, B: K x N, C: M x N)",
                           fn, A->v.rows, A->v.cols, B->v.rows, B->v.cols, C->rows, C->cols);
    if (A->v.dtype != B->v.dtype || C->dtype != A->v.dtype)
        return loom__error(LOOM_ERR_INVALID_ARGUMENT, "%s: dtypes differ (A %s, B %s, C %s)", fn,
                           loom_dtype_name(A->v.dtype), loom_dtype_name(B->v.dtype),
                           loom_dtype_name(C->dtype));
    return LOOM_SUCCESS;
}

loom_status loom_dual_gemm_plan_create(loom_context *ctx, loom_dual_gemm_plan **plan,
                                       const loom_bitmap *A, const loom_bitmap *B,
                                       const loom_dense *C, loom_backend_id backend)
{
    const char *fn = "loom_dual_gemm_plan_create";
    loom_status st = loom__check_context(ctx, fn);
    if (st != LOOM_SUCCESS)
        return st;
    if (!plan)
        return loom__error(LOOM_ERR_NULL_POINTER, "%s: plan is NULL", fn);
    if ((st = loom__dual_check_operands(A, B, C, fn)) != LOOM_SUCCESS)
        return st;
    const loom_dual_backend *b;
    if ((st = loom__dual_choose(ctx, backend, C->memory, fn, &b)) != LOOM_SUCCESS)
        return st;
    if (!b->gemm)
        return loom__error(LOOM_ERR_NOT_SUPPORTED, "%s: backend %s has no dual-side GEMM", fn,
                           b->name);
    loom_dual_gemm_plan *p = loom__calloc(1, sizeof *p);
    if (!p)
        return loom__error(LOOM_ERR_OUT_OF_MEMORY, "%s: out of memory", fn);
    p->magic = LOOM_MAGIC_DUAL_PLAN;
    p->ctx = *ctx;
    p->A = A;
    p->B = B;
    p->backend = b;
    p->dtype = C->dtype;
    p->m = A->v.rows;
    p->k = A->v.cols;
    p->n = B->v.cols;
    p->c_memory = C->memory;
    if (b->gemm_prepare && (st = b->gemm_prepare(p)) != LOOM_SUCCESS) {
        p->magic = LOOM_MAGIC_FREED;
        loom__free(p);
        return st;
    }
    double da = p->m && p->k ? (double)A->v.nnz / ((double)p->m * (double)p->k) : 0;
    double db = p->k && p->n ? (double)B->v.nnz / ((double)p->k * (double)p->n) : 0;
    snprintf(p->explain, sizeof p->explain,
             "dual-side GEMM %" PRId64 " x %" PRId64 " x %" PRId64 " (%s) on backend %s: "
             "outer product over k in increasing order, 32x32 warp tiles, density A %.4g, "
             "B %.4g%s%s",
             p->m, p->n, p->k, loom_dtype_name(p->dtype), b->name, da, db,
             p->path[0] ? "; " : "", p->path);
    *plan = p;
    return LOOM_SUCCESS;
}

loom_status loom_dual_gemm_execute(loom_dual_gemm_plan *plan, double alpha, double beta,
                                   loom_dense *C)
{
    const char *fn = "loom_dual_gemm_execute";
    loom_status st = check_plan(plan, fn);
    if (st == LOOM_SUCCESS)
        st = loom__check_dense(C, "C", fn);
    if (st == LOOM_SUCCESS)
        st = loom__check_bitmap(plan->A, fn);
    if (st == LOOM_SUCCESS)
        st = loom__check_bitmap(plan->B, fn);
    if (st != LOOM_SUCCESS)
        return st;
    if (C->rows != plan->m || C->cols != plan->n || C->dtype != plan->dtype ||
        C->memory != plan->c_memory)
        return loom__error(LOOM_ERR_DIMENSION_MISMATCH,
                           "%s: C (%" PRId64 " x %" PRId64 ", %s, %s memory) is not the C the "
                           "plan was made for (%" PRId64 " x %" PRId64 ", %s, %s memory)",
                           fn, C->rows, C->cols, loom_dtype_name(C->dtype),
                           C->memory == LOOM_MEMORY_HOST ? "host" : "device", plan->m, plan->n,
                           loom_dtype_name(plan->dtype),
                           plan->c_memory == LOOM_MEMORY_HOST ? "host" : "device");
    return plan->backend->gemm(plan, alpha, beta, C);
}

loom_status loom_dual_gemm_plan_destroy(loom_dual_gemm_plan **plan)
{
    if (!plan)
        return loom__error(LOOM_ERR_NULL_POINTER, "loom_dual_gemm_plan_destroy: plan is NULL");
    if (!*plan)
        return LOOM_SUCCESS;
    loom_status st = check_plan(*plan, "loom_dual_gemm_plan_destroy");
    if (st != LOOM_SUCCESS)
        return st;
    if ((*plan)->backend->gemm_release)
        (*plan)->backend->gemm_release(*plan);
    (*plan)->magic = LOOM_MAGIC_FREED;
    loom__free(*plan);
    *plan = NULL;
    return LOOM_SUCCESS;
}

const char *loom_dual_gemm_plan_explain(const loom_dual_gemm_plan *plan)
{
    if (!plan || plan->magic != LOOM_MAGIC_DUAL_PLAN)
        return "(not a live loom_dual_gemm_plan)";
    return plan->explain;
}
