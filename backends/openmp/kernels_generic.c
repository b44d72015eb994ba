/*
 * kernels_generic.c - the OpenMP backend's kernels for the generic instruction
 * set (see omp_kernels_impl.h; simd_generic.h holds the vector operations).
 */
#include "config.h"
#include "omp_kernels.h"
#include "simd_generic.h"

#define OMPK_F32
#include "omp_kernels_impl.h"
#undef OMPK_F32

#define OMPK_F64
#include "omp_kernels_impl.h"
#undef OMPK_F64
