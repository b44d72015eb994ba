/*
 * pdl.cuh - programmatic dependent launch (sm_90), shared by the CUDA-core
 * and the tensor-core kernels.
 *
 * A kernel launched with launch_after_previous may be placed on the GPU
 * while the kernel before it in the stream is still running, once every
 * block of that one has started (or called let_dependent_start).  It must
 * call wait_for_previous_grid before it touches global memory that earlier
 * work may write or read; that returns once the kernel before has finished
 * and its writes are visible.  What is saved is the launch gap: the follower's
 * blocks are already placed when the kernel before ends.
 *
 * Speed only: no operation moves.  Both device calls are no-ops for a kernel
 * launched the plain way, and compile to nothing below sm_90.  The host
 * side asks for the overlap only where the kernel's code was compiled for
 * sm_90 or later (cudaFuncAttributes::ptxVersion): a build for an older
 * PTX target, run on a Hopper by JIT, has no wait in its kernels, and there
 * the overlap would let a kernel read what its predecessor had not yet
 * written.
 */
#ifndef LOOM_CUDA_PDL_CUH
#define LOOM_CUDA_PDL_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include <atomic>

/* Let the kernel after this one in the stream (launched with
 * launch_after_previous) be placed as soon as this block has started. */
static __device__ __forceinline__ void let_dependent_start()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/* Wait until the kernel before this one in the stream has finished and its
 * writes are visible (returns at once for a kernel launched the plain way). */
static __device__ __forceinline__ void wait_for_previous_grid()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/* The start of a kernel launched with launch_after_previous: the kernel
 * after it may be placed as soon as all of this one's blocks have started
 * (early) or only as they end, and this one waits for the kernel before it,
 * before touching memory. */
static __device__ __forceinline__ void start_after_previous(bool early)
{
    if (early)
        let_dependent_start();
    wait_for_previous_grid();
}

/* Whether kernel k's code on the current device has the waits above: its
 * PTX is for sm_90 or later.  Asked once a device (a translation unit's
 * kernels share one build, so the first kernel asked answers for all). */
static inline bool pdl_compiled_in(const void *k)
{
    constexpr int MAX_DEVICES = 64;
    /* 0: not asked; 1 yes; -1 no.  Atomic because host threads may launch
     * at once; two that both ask store the same answer. */
    static std::atomic<signed char> known[MAX_DEVICES];
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= MAX_DEVICES) {
        cudaGetLastError();
        return false;
    }
    signed char answer = known[dev].load(std::memory_order_relaxed);
    if (answer == 0) {
        cudaFuncAttributes fa;
        if (cudaFuncGetAttributes(&fa, k) != cudaSuccess) {
            cudaGetLastError();
            return false; /* the launch itself will report the cause */
        }
        answer = fa.ptxVersion >= 90 ? 1 : -1;
        known[dev].store(answer, std::memory_order_relaxed);
    }
    return answer > 0;
}

/* Launch kernel k (grid x block threads, smem bytes of dynamic shared
 * memory) on stream st, allowed to overlap the kernel before it there. */
template <typename... Params, typename... Args>
static cudaError_t launch_after_previous(void (*k)(Params...), dim3 grid, dim3 block, size_t smem,
                                         cudaStream_t st, const Args &...args)
{
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = pdl_compiled_in((const void *)k) ? 1 : 0;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = grid;
    cfg.blockDim = block;
    cfg.dynamicSmemBytes = smem;
    cfg.stream = st;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    return cudaLaunchKernelEx(&cfg, k, args...);
}

#endif
