/* types.c - names and sizes of the enumerations in loom.h. */
#include "config.h"
#include "loom_internal.h"

#include <string.h>
#include <strings.h>

size_t loom_dtype_size(loom_dtype dtype)
{
    switch (dtype) {
    case LOOM_F32: return 4;
    case LOOM_F64: return 8;
    case LOOM_F16: return 2;
    case LOOM_BF16: return 2;
    }
    return 0;
}

const char *loom_dtype_name(loom_dtype dtype)
{
    switch (dtype) {
    case LOOM_F32: return "f32";
    case LOOM_F64: return "f64";
    case LOOM_F16: return "f16";
    case LOOM_BF16: return "bf16";
    }
    return "unknown";
}

const char *loom_backend_name(loom_backend_id id)
{
    switch (id) {
    case LOOM_BACKEND_AUTO: return "auto";
    case LOOM_BACKEND_REFERENCE: return "reference";
    case LOOM_BACKEND_OPENMP: return "openmp";
    case LOOM_BACKEND_CUDA: return "cuda";
    case LOOM_BACKEND_COUNT: break;
    }
    return "unknown";
}

loom_status loom_backend_from_name(const char *name, loom_backend_id *id)
{
    if (!name || !id)
        return loom__error(LOOM_ERR_NULL_POINTER, "loom_backend_from_name: name and id must not be NULL");
    for (int b = LOOM_BACKEND_AUTO; b < LOOM_BACKEND_COUNT; b++) {
        if (strcasecmp(name, loom_backend_name((loom_backend_id)b)) == 0) {
            *id = (loom_backend_id)b;
            return LOOM_SUCCESS;
        }
    }
    return loom__error(LOOM_ERR_INVALID_ARGUMENT,
                       "unknown backend '%s' (expected auto, reference, openmp or cuda)", name);
}
