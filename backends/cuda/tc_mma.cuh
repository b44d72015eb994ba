/*
 * tc_mma.cuh - the PTX the tensor-core kernels share: the mma.sync
 * instructions (all m16n8, fp32 accumulate, A row-major, B column-major),
 * used by both forms' kernels (tc_spmm.cu, tc_tiles.cu) and by the probe
 * that measures their arithmetic (bench/tc_probe.cu); the shared-memory
 * moves that feed them (cp.async, ldmatrix); the halving tree of part
 * sums; and the count of the blocks that share an output.  Fragment
 * layouts: PTX ISA, "Matrix fragments for mma.m16n8k16 / m16n8k8 /
 * m16n8k4": lane 4g+q holds
 *   16-bit A: rows g, g+8, columns 2q, 2q+1 (+8 for k16); B: rows 2q, 2q+1
 *             (+8) of column g;
 *   tf32   A: rows g, g+8, columns q (+4 for k8);        B: rows q (+4) of column g;
 *   C/D: rows g, g+8, columns 2q, 2q+1 (d0, d1 row g; d2, d3 row g+8).
 */
#ifndef LOOM_CUDA_TC_MMA_CUH
#define LOOM_CUDA_TC_MMA_CUH

#include <stdint.h>

#include "tc_model.h"

namespace loomtc {

template <int PREC, int KS> struct mma;

template <> struct mma<TC_PREC_F16, 16> {
    static __device__ __forceinline__ void run(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2])
    {
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    }
};
template <> struct mma<TC_PREC_BF16, 16> {
    static __device__ __forceinline__ void run(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2])
    {
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    }
};
template <> struct mma<TC_PREC_F16, 8> {
    static __device__ __forceinline__ void run(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2])
    {
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(b[0]));
    }
};
template <> struct mma<TC_PREC_BF16, 8> {
    static __device__ __forceinline__ void run(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2])
    {
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(b[0]));
    }
};
template <> struct mma<TC_PREC_TF32, 8> {
    static __device__ __forceinline__ void run(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2])
    {
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    }
};
template <> struct mma<TC_PREC_TF32, 4> {
    static __device__ __forceinline__ void run(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2])
    {
        asm volatile("mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(b[0]));
    }
};

__device__ __forceinline__ uint32_t smem_addr(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

/* cp.async of 16 bytes, global to shared: L1 = true caches the line in L1
 * too (.ca: warps of one multiprocessor read the same rows), false in L2
 * only (.cg). */
template <bool L1> __device__ __forceinline__ void cp_async16(void *dst, const void *src)
{
    if constexpr (L1)
        asm volatile("cp.async.ca.shared.global [%0], [%1], 16;\n" ::"r"(smem_addr(dst)), "l"(src) : "memory");
    else
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem_addr(dst)), "l"(src) : "memory");
}
/* The same with zero fill: the first `bytes` (0 to 16) bytes come from src,
 * the rest of the 16 are zeros (PTX ISA cp.async, src-size).  src must stay
 * a valid, 16-byte aligned address even where bytes is 0. */
template <bool L1> __device__ __forceinline__ void cp_async16_fill(void *dst, const void *src, uint32_t bytes)
{
    if constexpr (L1)
        asm volatile("cp.async.ca.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_addr(dst)), "l"(src), "r"(bytes)
                     : "memory");
    else
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_addr(dst)), "l"(src), "r"(bytes)
                     : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void cp_async_wait()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

/* ldmatrix of four (x4) or two (x2) 8x8 matrices of 16-bit values, lane l
 * giving the shared-memory address of row l%8 of matrix l/8; .trans delivers
 * them transposed. */
__device__ __forceinline__ void ldsm_x4(uint32_t addr, uint32_t (&r)[4])
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}
__device__ __forceinline__ void ldsm_x4_trans(uint32_t addr, uint32_t (&r)[4])
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}
__device__ __forceinline__ void ldsm_x2_trans(uint32_t addr, uint32_t (&r)[4])
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];\n"
                 : "=r"(r[0]), "=r"(r[1])
                 : "r"(addr));
}

/* The halving tree of tc_model.h step 4 on P part sums of C values each
 * (v[l][c]: part l, column c), unrolled so that v stays in registers: for
 * s = P/2, ..., 1, part l += part l + s.  The sum ends in v[0].  (The
 * tiles form's tree, tc_tiles.cu, runs over a run-time count of parts.) */
template <int P, int C> __device__ __forceinline__ void halving_tree(float (&v)[P][C])
{
#pragma unroll
    for (int s = P / 2; s >= 1; s /= 2)
#pragma unroll
        for (int l = 0; l < s; l++)
#pragma unroll
            for (int c = 0; c < C; c++)
                v[l][c] = __fadd_rn(v[l][c], v[l + s][c]);
}

/* atomicAdd(c, v) with acq_rel semantics at GPU scope: how the blocks that
 * share one output (the tiles form's parts, the rows form's segments) count
 * in, the last one seeing every other's sums. */
__device__ __forceinline__ int count_in(int *c, int v)
{
    int old;
    asm volatile("atom.add.acq_rel.gpu.s32 %0, [%1], %2;\n" : "=r"(old) : "l"(c), "r"(v) : "memory");
    return old;
}

} // namespace loomtc

#endif
