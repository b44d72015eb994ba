/* spmm_f32.cu - the CUDA SpMM kernels in single precision. */
#include "spmm_launch.cuh"

extern "C" cudaError_t loomcu_spmm_f32(const loomcu_problem *p, const loom_strategy *s,
                                       const loomcu_plan_data *data, cudaStream_t stream)
{
    return loomcu::launch_spmm<float>(p, s, data, stream);
}

extern "C" cudaError_t loomcu_ktile_allow_f32(void)
{
    return loomcu::allow_ktile<float>();
}
