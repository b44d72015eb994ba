/*
 * kernels_avx512.c - the OpenMP backend's kernels for the avx512 instruction
 * set (see omp_kernels_impl.h; simd_avx512.h holds the vector operations).
 */
#include "config.h"
#include "omp_kernels.h"
#include "simd_avx512.h"

#define OMPK_F32
#include "omp_kernels_impl.h"
#undef OMPK_F32

#define OMPK_F64
#include "omp_kernels_impl.h"
#undef OMPK_F64
