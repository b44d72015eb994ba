/*
 * dual_registry.c - the table of dual backends (dual-side GEMM, im2col).
 * Like registry.c for SpMM: a backend that was not built is a stub whose
 * probe says "not compiled", so every slot answers.
 */
#include "config.h"
#include "dual_internal.h"

extern const loom_dual_backend loom__reference_dual_backend;
#ifdef LOOM_HAVE_OPENMP
extern const loom_dual_backend loom__openmp_dual_backend;
#else
static loom_status openmp_not_built(void)
{
    return loom__error(LOOM_ERR_BACKEND_UNAVAILABLE,
                       "dual backend openmp: not compiled into this libloom (configure found no "
                       "OpenMP support, or --disable-openmp was given)");
}
static const loom_dual_backend openmp_stub = {
    .id = LOOM_BACKEND_OPENMP, .name = "openmp", .probe = openmp_not_built};
#endif
#ifdef LOOM_HAVE_CUDA
extern const loom_dual_backend loom__cuda_dual_backend;
#else
static loom_status cuda_not_built(void)
{
    return loom__error(LOOM_ERR_BACKEND_UNAVAILABLE,
                       "dual backend cuda: not compiled into this libloom (configure found no "
                       "CUDA Toolkit, or --without-cuda was given)");
}
static const loom_dual_backend cuda_stub = {
    .id = LOOM_BACKEND_CUDA, .name = "cuda", .probe = cuda_not_built};
#endif

static const loom_dual_backend *const dual_backends[LOOM_BACKEND_COUNT] = {
    &loom__reference_dual_backend,
#ifdef LOOM_HAVE_OPENMP
    &loom__openmp_dual_backend,
#else
    &openmp_stub,
#endif
#ifdef LOOM_HAVE_CUDA
    &loom__cuda_dual_backend,
#else
    &cuda_stub,
#endif
};

const loom_dual_backend *loom__dual_backend(loom_backend_id id)
{
    if (id < 0 || id >= LOOM_BACKEND_COUNT)
        return NULL;
    return dual_backends[id];
}
