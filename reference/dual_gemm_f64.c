/* dual_gemm_f64.c - the reference dual-side GEMM in double precision. */
#include "config.h"
#define LOOM_REAL_F64
#include "dual_gemm.h"
