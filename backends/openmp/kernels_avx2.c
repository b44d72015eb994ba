/*
 * kernels_avx2.c - the OpenMP backend's kernels for the avx2 instruction
 * set (see omp_kernels_impl.h; simd_avx2.h holds the vector operations).
 */
#include "config.h"
#include "omp_kernels.h"
#include "simd_avx2.h"

#define OMPK_F32
#include "omp_kernels_impl.h"
#undef OMPK_F32

#define OMPK_F64
#include "omp_kernels_impl.h"
#undef OMPK_F64
