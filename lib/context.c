/*
 * context.c - the context: which backend plans use, how many threads, which
 * CUDA stream.  Plans copy these settings when they are made.
 */
#include "config.h"
#include "loom_internal.h"

loom_status loom__check_context(const loom_context *ctx, const char *fn)
{
    if (!ctx)
        return loom__error(LOOM_ERR_NULL_POINTER, "%s: context is NULL", fn);
    if (ctx->magic != LOOM_MAGIC_CONTEXT)
        return loom__error(LOOM_ERR_INVALID_OBJECT,
                           "%s: context is not a live loom_context (freed or uninitialised)", fn);
    return LOOM_SUCCESS;
}

loom_status loom_context_create(loom_context **ctx)
{
    if (!ctx)
        return loom__error(LOOM_ERR_NULL_POINTER, "loom_context_create: ctx is NULL");
    *ctx = NULL;
    loom_context *c = loom__calloc(1, sizeof *c);
    if (!c)
        return loom__error(LOOM_ERR_OUT_OF_MEMORY, "loom_context_create: out of memory");
    c->magic = LOOM_MAGIC_CONTEXT;
    c->backend = LOOM_BACKEND_AUTO;
    *ctx = c;
    return LOOM_SUCCESS;
}

loom_status loom_context_destroy(loom_context **ctx)
{
    if (!ctx)
        return loom__error(LOOM_ERR_NULL_POINTER, "loom_context_destroy: ctx is NULL");
    if (!*ctx)
        return LOOM_SUCCESS;
    loom_status st = loom__check_context(*ctx, "loom_context_destroy");
    if (st != LOOM_SUCCESS)
        return st;
    (*ctx)->magic = LOOM_MAGIC_FREED;
    loom__free(*ctx);
    *ctx = NULL;
    return LOOM_SUCCESS;
}

loom_status loom_context_set_backend(loom_context *ctx, loom_backend_id id)
{
    loom_status st = loom__check_context(ctx, "loom_context_set_backend");
    if (st != LOOM_SUCCESS)
        return st;
    if (id != LOOM_BACKEND_AUTO) {
        st = loom_backend_available(id);
        if (st != LOOM_SUCCESS)
            return st;
    }
    ctx->backend = id;
    return LOOM_SUCCESS;
}

loom_status loom_context_get_backend(const loom_context *ctx, loom_backend_id *id)
{
    loom_status st = loom__check_context(ctx, "loom_context_get_backend");
    if (st != LOOM_SUCCESS)
        return st;
    if (!id)
        return loom__error(LOOM_ERR_NULL_POINTER, "loom_context_get_backend: id is NULL");
    *id = ctx->backend;
    return LOOM_SUCCESS;
}

loom_status loom_context_set_threads(loom_context *ctx, int threads)
{
    loom_status st = loom__check_context(ctx, "loom_context_set_threads");
    if (st != LOOM_SUCCESS)
        return st;
    if (threads < 0)
        return loom__error(LOOM_ERR_INVALID_ARGUMENT,
                           "loom_context_set_threads: threads is %d; use 0 (automatic) or a "
                           "positive count", threads);
    ctx->threads = threads;
    return LOOM_SUCCESS;
}

loom_status loom_context_set_stream(loom_context *ctx, void *cuda_stream)
{
    loom_status st = loom__check_context(ctx, "loom_context_set_stream");
    if (st != LOOM_SUCCESS)
        return st;
    ctx->stream = cuda_stream;
    return LOOM_SUCCESS;
}
