/*
 * real_type.h - the one place where the reference chooses its precision.
 *
 * Each design is written once, in terms of `real` and FMA; spmm_f32.c and
 * spmm_f64.c include the design files with LOOM_REAL_F32 or LOOM_REAL_F64
 * defined.  Every multiply-add is an explicit fused multiply-add, and the
 * build uses -ffp-contract=off, so the compiler cannot change the order or
 * the rounding of any operation written here.
 */
#include <math.h>

#undef real
#undef FMA
#undef SUFFIX
#undef SUFFIX_

#if defined(LOOM_REAL_F32)
typedef float real;
#define FMA(a, b, c) fmaf((a), (b), (c))
#define SUFFIX_(name) name##_f32
#elif defined(LOOM_REAL_F64)
typedef double real;
#define FMA(a, b, c) fma((a), (b), (c))
#define SUFFIX_(name) name##_f64
#else
#error "define LOOM_REAL_F32 or LOOM_REAL_F64 before including real_type.h"
#endif
#define SUFFIX(name) SUFFIX_(name)
