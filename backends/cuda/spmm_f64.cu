/* spmm_f64.cu - the CUDA SpMM kernels in double precision. */
#include "spmm_launch.cuh"

extern "C" cudaError_t loomcu_spmm_f64(const loomcu_problem *p, const loom_strategy *s,
                                       const loomcu_plan_data *data, cudaStream_t stream)
{
    return loomcu::launch_spmm<double>(p, s, data, stream);
}

extern "C" cudaError_t loomcu_ktile_allow_f64(void)
{
    return loomcu::allow_ktile<double>();
}
