/* spmm_f32.cu - the CUDA SpMM kernels in single precision. */
#include "spmm_launch.cuh"

extern "C" cudaError_t loomcu_spmm_f32(const loomcu_problem *p, const loom_strategy *s,
                                       const loomcu_plan_data *data, cudaStream_t stream)
{
    return loomcu::launch_spmm<float>(p, s, data, stream);
}

/* Hot columns (cuda_plan.c): the column counts, and the relabelled indices. */
__global__ void column_degrees_kernel(const int32_t *__restrict__ ci, int64_t nnz, int32_t *deg)
{
    const int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j < nnz)
        atomicAdd(deg + ci[j], 1); /* integer counts: any order gives the same */
}

__global__ void hot_map_kernel(const int32_t *__restrict__ hot_cols, int64_t n_hot, int32_t *map)
{
    const int64_t r = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (r < n_hot)
        map[hot_cols[r]] = (int32_t)r;
}

__global__ void hot_relabel_kernel(const int32_t *__restrict__ ci, int64_t nnz,
                                   const int32_t *__restrict__ map, int32_t *hot_ci)
{
    const int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (j < nnz) {
        const int32_t c = ci[j], r = map[c];
        hot_ci[j] = r >= 0 ? ~r : c;
    }
}

static unsigned blocks_for(int64_t n)
{
    return (unsigned)((n + 255) / 256 > 0 ? (n + 255) / 256 : 1);
}

extern "C" cudaError_t loomcu_column_degrees(const int32_t *ci, int64_t nnz, int32_t *deg, int64_t k,
                                             cudaStream_t stream)
{
    cudaError_t e = cudaMemsetAsync(deg, 0, (size_t)k * sizeof *deg, stream);
    if (e != cudaSuccess)
        return e;
    column_degrees_kernel<<<blocks_for(nnz), 256, 0, stream>>>(ci, nnz, deg);
    return cudaGetLastError();
}

extern "C" cudaError_t loomcu_hot_relabel(const int32_t *ci, int64_t nnz, const int32_t *hot_cols,
                                          int64_t n_hot, int32_t *map, int64_t k, int32_t *hot_ci,
                                          cudaStream_t stream)
{
    cudaError_t e = cudaMemsetAsync(map, 0xff, (size_t)k * sizeof *map, stream); /* -1: cold */
    if (e != cudaSuccess)
        return e;
    hot_map_kernel<<<blocks_for(n_hot), 256, 0, stream>>>(hot_cols, n_hot, map);
    hot_relabel_kernel<<<blocks_for(nnz), 256, 0, stream>>>(ci, nnz, map, hot_ci);
    return cudaGetLastError();
}
