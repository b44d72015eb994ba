/* dual_gemm_f32.c - the OpenMP dual-side GEMM in single precision. */
#include "config.h"
#include "dual_internal.h"
#include "omp_dual.h"
#if defined(__x86_64__) && defined(__GNUC__)
#pragma GCC target("popcnt") /* checked by the descriptor */
#endif
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#define LOOM_REAL_F32
#include "dual_gemm_impl.h"
#include "dual_lines_impl.h"
