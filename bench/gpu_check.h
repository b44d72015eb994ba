/*
 * gpu_check.h - the GPU benchmark programs' checks: a failed CUDA call
 * (CU) or loom call (LM) prints where and why, and ends the program, since
 * a benchmark with a broken step has no figure to report.
 */
#ifndef LOOM_BENCH_GPU_CHECK_H
#define LOOM_BENCH_GPU_CHECK_H

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#include "loom.h"

#define CU(call)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (cudaError_t)(call);                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#define LM(call)                                                                                   \
    do {                                                                                           \
        loom_status s_ = (call);                                                                   \
        if (s_ != LOOM_SUCCESS) {                                                                  \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, loom_last_error());      \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#endif
