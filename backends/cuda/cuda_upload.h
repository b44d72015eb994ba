/*
 * cuda_upload.h - the one wait after a plan's or operand's uploads, for the
 * CUDA backend's C and CUDA files alike.
 *
 * cudaMemcpy from pageable host memory runs on the legacy default stream
 * and may return before its data lands on the device, while loom's kernels
 * may run on a caller's stream made with cudaStreamNonBlocking, which does
 * not wait for the legacy one.  Whatever uploads arrays that such a kernel
 * reads waits for them here before it returns.  (Copies of the caller's
 * operands run on the caller's stream instead: cuda_backend.c
 * cuda_mem_copy.)
 */
#ifndef LOOM_CUDA_UPLOAD_H
#define LOOM_CUDA_UPLOAD_H

#include <cuda_runtime_api.h>

static inline cudaError_t loomcu_uploads_landed(void)
{
    return cudaStreamSynchronize(cudaStreamLegacy);
}

#endif
