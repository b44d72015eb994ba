/*
 * registry.c - the table of backends.  Each backend exports one descriptor
 * (struct loom_backend); a backend that was not built is replaced by a stub
 * that reports "not compiled", so every slot answers.
 */
#include "config.h"
#include "loom_internal.h"

#include <stdio.h>

extern const loom_backend loom__reference_backend;
#ifdef LOOM_HAVE_OPENMP
extern const loom_backend loom__openmp_backend;
#endif
#ifdef LOOM_HAVE_CUDA
extern const loom_backend loom__cuda_backend;
#endif

#ifndef LOOM_HAVE_OPENMP
static loom_status openmp_not_built(void)
{
    return loom__error(LOOM_ERR_BACKEND_UNAVAILABLE,
                       "backend openmp: not compiled into this libloom (configure found no "
                       "OpenMP support, or --disable-openmp was given)");
}

#endif

#ifndef LOOM_HAVE_CUDA
static loom_status cuda_not_built(void)
{
    return loom__error(LOOM_ERR_BACKEND_UNAVAILABLE,
                       "backend cuda: not compiled into this libloom (configure found no CUDA "
                       "Toolkit, or --without-cuda was given)");
}

#endif

#ifndef LOOM_HAVE_OPENMP
static const loom_backend openmp_stub = {.id = LOOM_BACKEND_OPENMP, .name = "openmp", .probe = openmp_not_built};
#endif
#ifndef LOOM_HAVE_CUDA
static const loom_backend cuda_stub = {.id = LOOM_BACKEND_CUDA, .name = "cuda", .probe = cuda_not_built};
#endif

static const loom_backend *const backends[LOOM_BACKEND_COUNT] = {
    &loom__reference_backend,
#ifdef LOOM_HAVE_OPENMP
    &loom__openmp_backend,
#else
    &openmp_stub,
#endif
#ifdef LOOM_HAVE_CUDA
    &loom__cuda_backend,
#else
    &cuda_stub,
#endif
};

const loom_backend *loom__backend(loom_backend_id id)
{
    if (id < 0 || id >= LOOM_BACKEND_COUNT)
        return NULL;
    return backends[id];
}

/* The backend that owns device memory: the CUDA backend, when it is usable. */
const loom_backend *loom__device_backend(void)
{
    const loom_backend *b = backends[LOOM_BACKEND_CUDA];
    if (b->probe() != LOOM_SUCCESS)
        return NULL;
    return b;
}

loom_status loom_backend_available(loom_backend_id id)
{
    const loom_backend *b = loom__backend(id);
    if (!b)
        return loom__error(LOOM_ERR_INVALID_ARGUMENT, "backend id %d is not a backend", (int)id);
    return b->probe();
}

loom_status loom_backend_describe_hardware(loom_backend_id id, char *buf, size_t len)
{
    if (!buf || len == 0)
        return loom__error(LOOM_ERR_NULL_POINTER, "loom_backend_describe_hardware: buf is NULL or empty");
    buf[0] = '\0';
    loom_status st = loom_backend_available(id);
    if (st != LOOM_SUCCESS)
        return st;
    const loom_backend *b = loom__backend(id);
    if (!b->describe_hardware) {
        snprintf(buf, len, "%s: the sequential reference, one thread of this CPU", b->name);
        return LOOM_SUCCESS;
    }
    return b->describe_hardware(buf, len);
}
