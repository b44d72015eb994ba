// graph_floor.cu - session 48: what a kernel node costs in a CUDA graph of
// back-to-back launches (tc_bench --graph's setting) when the kernel does
// nothing: 1 block, 132 blocks (one an H200 multiprocessor) and 264 blocks
// of 256 threads with 48 KB of shared memory, each launched plain and by
// programmatic dependent launch (waiting first thing, as loom's tensor-core
// kernels do).  Prints microseconds a node, the median of 15 graphs of 200.
#include <algorithm>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

__global__ void empty_kernel(int *sink)
{
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
    asm volatile("griddepcontrol.wait;" ::: "memory");
    extern __shared__ int sm[];
    if (threadIdx.x == 1023) /* never: keeps the shared memory and the store */
        sink[blockIdx.x] = sm[0];
}

static double per_node(int blocks, size_t smem, bool pdl, cudaStream_t st, int *sink)
{
    const int R = 200;
    cudaGraph_t g;
    cudaGraphExec_t ge;
    cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal);
    for (int i = 0; i < R; i++) {
        cudaLaunchAttribute at[1];
        at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
        at[0].val.programmaticStreamSerializationAllowed = pdl ? 1 : 0;
        cudaLaunchConfig_t c = {};
        c.gridDim = dim3(blocks);
        c.blockDim = dim3(256);
        c.dynamicSmemBytes = smem;
        c.stream = st;
        c.attrs = at;
        c.numAttrs = 1;
        cudaLaunchKernelEx(&c, empty_kernel, sink);
    }
    cudaStreamEndCapture(st, &g);
    if (cudaGraphInstantiate(&ge, g, 0) != cudaSuccess) {
        printf("instantiate failed: %s\n", cudaGetErrorString(cudaGetLastError()));
        return -1;
    }
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    std::vector<float> t;
    for (int k = 0; k < 17; k++) {
        cudaEventRecord(a, st);
        cudaGraphLaunch(ge, st);
        cudaEventRecord(b, st);
        cudaEventSynchronize(b);
        float ms;
        cudaEventElapsedTime(&ms, a, b);
        if (k >= 2)
            t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    cudaGraphExecDestroy(ge);
    cudaGraphDestroy(g);
    return t[t.size() / 2] * 1000.0 / R;
}

int main()
{
    cudaStream_t st;
    cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking);
    int *sink;
    cudaMalloc(&sink, 4096 * sizeof(int));
    cudaFuncSetAttribute(empty_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024);
    struct { int blocks; size_t smem; } shapes[] = {{1, 0}, {132, 0}, {264, 48 * 1024}, {132, 200 * 1024}};
    printf("blocks x 256 threads, smem: plain / PDL, us a node (graph of 200)\n");
    for (auto s : shapes) {
        double p = per_node(s.blocks, s.smem, false, st, sink), q = per_node(s.blocks, s.smem, true, st, sink);
        printf("%4d blocks, %6zu B smem: %.3f / %.3f\n", s.blocks, s.smem, p, q);
    }
    printf("last error: %s\n", cudaGetErrorString(cudaGetLastError()));
    return 0;
}
