/*
 * graph_calls.h - the GPU benchmarks' chains of calls as one CUDA graph
 * (tc_bench --graph, gpu_bench --graph): what a program that runs products
 * back to back on a stream sees, without the host's work per call.
 */
#ifndef LOOM_BENCH_GRAPH_CALLS_H
#define LOOM_BENCH_GRAPH_CALLS_H

#include <cuda_runtime.h>

/* The work of count calls of fn(), back to back on stream st, captured as
 * one CUDA graph and instantiated into *exec (NULL on failure; the caller
 * destroys it).  The status of the first step that failed. */
template <typename F>
static cudaError_t capture_calls(cudaStream_t st, int count, F fn, cudaGraphExec_t *exec)
{
    *exec = NULL;
    cudaGraph_t graph = NULL;
    cudaError_t e = cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal);
    if (e == cudaSuccess) {
        for (int r = 0; r < count; r++)
            fn();
        e = cudaStreamEndCapture(st, &graph);
    }
    if (e == cudaSuccess)
        e = cudaGraphInstantiate(exec, graph, 0);
    if (graph)
        cudaGraphDestroy(graph); /* the instantiated graph does not need it */
    return e;
}

#endif
