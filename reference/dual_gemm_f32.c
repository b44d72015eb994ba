/* dual_gemm_f32.c - the reference dual-side GEMM in single precision. */
#include "config.h"
#define LOOM_REAL_F32
#include "dual_gemm.h"
