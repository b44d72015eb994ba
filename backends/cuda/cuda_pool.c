/*
 * cuda_pool.c - the CUDA backend's device memory, from a memory pool of
 * loom's own.  cudaMalloc + cudaFree cost about 100 us on an H200, more
 * than the SpMM of a small matrix, and tune prepares several plans (each
 * with its device arrays) plus scratch operands: a stream-ordered pool
 * (cudaMallocFromPoolAsync) hands back freed memory in about 4 us.
 *
 * The calls keep cudaMalloc's and cudaFree's meaning: memory is usable on
 * any stream when loomcu_malloc returns (it waits for a private stream,
 * not the caller's), and loomcu_free waits for the device first, as
 * cudaFree does, so no kernel still running can see the memory reused.
 * The pool keeps up to POOL_KEEP_BYTES of freed memory for the next
 * allocation and returns the rest to the device.  Devices without memory
 * pools get plain cudaMalloc and cudaFree.
 */
#include "config.h"
#include "cuda_status.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#define POOL_KEEP_BYTES ((uint64_t)64 << 20)
#define POOL_DEVICES 64

typedef struct device_pool {
    bool tried, usable;
    cudaMemPool_t pool;
    cudaStream_t stream; /* non-blocking: waits for nothing of the caller's */
} device_pool;

static pthread_mutex_t pools_lock = PTHREAD_MUTEX_INITIALIZER;
static device_pool pools[POOL_DEVICES];

/* The current device's pool, made on first use; NULL where it has none
 * (the caller then uses cudaMalloc / cudaFree). */
static device_pool *current_pool(void)
{
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= POOL_DEVICES) {
        cudaGetLastError();
        return NULL;
    }
    pthread_mutex_lock(&pools_lock);
    device_pool *p = &pools[dev];
    if (!p->tried) {
        p->tried = true;
        int supported = 0;
        struct cudaMemPoolProps props = {0};
        props.allocType = cudaMemAllocationTypePinned;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = dev;
        uint64_t keep = POOL_KEEP_BYTES;
        p->usable =
            cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, dev) == cudaSuccess &&
            supported && cudaMemPoolCreate(&p->pool, &props) == cudaSuccess &&
            cudaMemPoolSetAttribute(p->pool, cudaMemPoolAttrReleaseThreshold, &keep) == cudaSuccess &&
            cudaStreamCreateWithFlags(&p->stream, cudaStreamNonBlocking) == cudaSuccess;
        cudaGetLastError();
    }
    pthread_mutex_unlock(&pools_lock);
    return p->usable ? p : NULL;
}

loom_status loomcu_malloc(void **ptr, size_t bytes, const char *what)
{
    *ptr = NULL;
    device_pool *p = current_pool();
    cudaError_t err;
    if (p) {
        err = cudaMallocFromPoolAsync(ptr, bytes ? bytes : 1, p->pool, p->stream);
        if (err == cudaSuccess)
            err = cudaStreamSynchronize(p->stream);
    } else {
        err = cudaMalloc(ptr, bytes ? bytes : 1);
    }
    if (err != cudaSuccess) {
        if (*ptr && p)
            cudaFreeAsync(*ptr, p->stream);
        *ptr = NULL;
        char msg[160];
        snprintf(msg, sizeof msg, "allocating %zu bytes for %s", bytes, what);
        return loomcu_status(err, msg);
    }
    return LOOM_SUCCESS;
}

loom_status loomcu_free(void *ptr)
{
    if (!ptr)
        return LOOM_SUCCESS;
    device_pool *p = current_pool();
    if (!p)
        return loomcu_status(cudaFree(ptr), "freeing device memory");
    cudaError_t err = cudaDeviceSynchronize();
    cudaError_t freed = cudaFreeAsync(ptr, p->stream);
    return loomcu_status(err != cudaSuccess ? err : freed, "freeing device memory");
}
