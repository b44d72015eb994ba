/*
 * cuda_status.h - CUDA runtime errors as loom statuses, with the runtime's
 * own message.  Private to the CUDA backend.
 */
#ifndef LOOM_CUDA_STATUS_H
#define LOOM_CUDA_STATUS_H

#include <cuda_runtime_api.h>

#include "loom_internal.h"

/* LOOM_SUCCESS for cudaSuccess; otherwise the status that fits (out of
 * memory, or a device error) with "cuda: WHAT: message (name)" set. */
LOOM_INTERNAL loom_status loomcu_status(cudaError_t err, const char *what);

/* Device memory from loom's pool (cuda_pool.c), with cudaMalloc's and
 * cudaFree's meaning: usable on any stream on return; freed once the
 * device is idle.  `what` names the allocation in the error message. */
LOOM_INTERNAL loom_status loomcu_malloc(void **ptr, size_t bytes, const char *what);
LOOM_INTERNAL loom_status loomcu_free(void *ptr);

/* The plan's device-side preprocessing (cuda_plan.c). */
LOOM_INTERNAL loom_status loomcu_plan_prepare(loom_plan *plan);
LOOM_INTERNAL void loomcu_plan_release(loom_plan *plan);

#endif
