/*
 * cuda_backend.c - the CUDA backend's descriptor and its host side: probing
 * for a device (a libloom built with CUDA must load and work where there is
 * no GPU and no driver: cudart is linked statically and the probe reports
 * the runtime's message), device memory, the hardware summary, and SpMM
 * launches on the plan's stream.  The kernels are in spmm_*.cu.
 */
#include "config.h"
#include "cuda_kernels.h"
#include "cuda_status.h"
#include "cuda_tc.h"
#include "select.h"
#include "tc_spmm.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

loom_status loomcu_status(cudaError_t err, const char *what)
{
    if (err == cudaSuccess)
        return LOOM_SUCCESS;
    cudaGetLastError(); /* clear a non-sticky error so later calls start clean */
    loom_status st = err == cudaErrorMemoryAllocation ? LOOM_ERR_OUT_OF_MEMORY : LOOM_ERR_DEVICE;
    return loom__error(st, "cuda: %s: %s (%s)", what, cudaGetErrorString(err),
                       cudaGetErrorName(err));
}

/* The probe runs once; its answer (and message) is kept. */
static pthread_once_t probe_once = PTHREAD_ONCE_INIT;
static cudaError_t probe_error;
static int probe_devices;

static void probe_run(void)
{
    probe_error = cudaGetDeviceCount(&probe_devices);
    cudaGetLastError();
}

static loom_status cuda_probe(void)
{
    pthread_once(&probe_once, probe_run);
    if (probe_error != cudaSuccess)
        return loom__error(LOOM_ERR_BACKEND_UNAVAILABLE, "backend cuda: no usable device: %s (%s)",
                           cudaGetErrorString(probe_error), cudaGetErrorName(probe_error));
    if (probe_devices == 0)
        return loom__error(LOOM_ERR_BACKEND_UNAVAILABLE,
                           "backend cuda: the CUDA runtime found no device");
    return LOOM_SUCCESS;
}

static loom_status cuda_supports(const loom_strategy *s, loom_dtype dtype, loom_memory memory)
{
    if (s->kloop == LOOM_K_TC && memory == LOOM_MEMORY_DEVICE)
        return loomcu_tc_supports(s, dtype);
    if (dtype != LOOM_F32 && dtype != LOOM_F64)
        return loom__error(LOOM_ERR_NOT_SUPPORTED, "cuda: dtype %d is not supported", (int)dtype);
    if (memory != LOOM_MEMORY_DEVICE)
        return loom__error(LOOM_ERR_NOT_SUPPORTED,
                           "cuda: operands must be in device memory (copy them with "
                           "loom_csr_copy / loom_dense_copy)");
    return LOOM_SUCCESS;
}

static loom_status cuda_mem_alloc(void **ptr, size_t bytes)
{
    *ptr = NULL;
    return bytes == 0 ? LOOM_SUCCESS : loomcu_malloc(ptr, bytes, "an operand");
}

static loom_status cuda_mem_free(void *ptr)
{
    return loomcu_free(ptr);
}

/*
 * On the context's stream, then waited for: a plain cudaMemcpy runs on the
 * legacy default stream, which a stream made with cudaStreamNonBlocking
 * does not wait for (nor it for that one).  There a copy to the device
 * from pageable memory could still be landing when the next kernel on the
 * caller's stream ran, and a copy back could read Y before the product
 * queued on that stream had written it.  (test_cuda_api's graph test once
 * found a direct run's Y unlike the graph's, on an H200: the likely
 * cause, as its copies ran on the legacy stream and its products on one
 * of those.)
 */
static loom_status cuda_mem_copy(void *dst, loom_memory dst_memory, const void *src,
                                 loom_memory src_memory, size_t bytes, void *stream)
{
    if (bytes == 0)
        return LOOM_SUCCESS;
    enum cudaMemcpyKind kind =
        src_memory == LOOM_MEMORY_HOST
            ? (dst_memory == LOOM_MEMORY_HOST ? cudaMemcpyHostToHost : cudaMemcpyHostToDevice)
            : (dst_memory == LOOM_MEMORY_HOST ? cudaMemcpyDeviceToHost : cudaMemcpyDeviceToDevice);
    cudaStream_t st = (cudaStream_t)stream;
    cudaError_t e = cudaMemcpyAsync(dst, src, bytes, kind, st);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(st);
    return loomcu_status(e, "copying memory");
}

/* What selection reads of the device (loom__feature_vector's sms,
 * gpu_l2_kb and mem_bw_gbs): the current device's, asked once per process.
 * The bandwidth is the peak the attributes give (0 where the runtime no
 * longer reports the memory clock). */
static pthread_once_t info_once = PTHREAD_ONCE_INIT;
static cudaError_t info_error;
static int info_sms;
static int64_t info_tc_resident_max_k, info_tc_resident_max_k_narrow;
static double info_l2_kb, info_bw_gbs;

static void info_measure(void)
{
    int dev = 0, sms = 0, l2 = 0, clock_khz = 0, bus_bits = 0;
    info_error = cudaGetDevice(&dev);
    if (info_error == cudaSuccess)
        info_error = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (info_error == cudaSuccess)
        info_error = cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev);
    if (info_error == cudaSuccess &&
        (cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, dev) != cudaSuccess ||
         cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, dev) != cudaSuccess))
        clock_khz = bus_bits = 0;
    if (info_error == cudaSuccess &&
        loomcu_tc_resident_max_k(&info_tc_resident_max_k, &info_tc_resident_max_k_narrow) != cudaSuccess)
        info_tc_resident_max_k = info_tc_resident_max_k_narrow = 0; /* unknown: the selector's bounds stand */
    cudaGetLastError();
    info_sms = sms;
    info_l2_kb = l2 / 1024.0;
    info_bw_gbs = 2.0 * clock_khz * 1e3 * (bus_bits / 8.0) / 1e9;
}

static loom_status cuda_device_info(loom__device_info *dev)
{
    loom_status st = cuda_probe();
    if (st != LOOM_SUCCESS)
        return st;
    pthread_once(&info_once, info_measure);
    if (info_error != cudaSuccess)
        return loomcu_status(info_error, "reading the device's properties");
    dev->sms = info_sms;
    dev->gpu_l2_kb = info_l2_kb;
    dev->mem_bw_gbs = info_bw_gbs;
    dev->tc_resident_max_k = info_tc_resident_max_k;
    dev->tc_resident_max_k_narrow = info_tc_resident_max_k_narrow;
    return LOOM_SUCCESS;
}

/* `loom info --hardware`: what selection sees (cuda_device_info), plus the
 * device's name, compute capability and memory size. */
static loom_status cuda_describe_hardware(char *buf, size_t len)
{
    loom__device_info info;
    loom_status st = cuda_device_info(&info);
    if (st != LOOM_SUCCESS)
        return st;
    int dev = 0, major = 0, minor = 0;
    struct cudaDeviceProp prop;
    cudaError_t err = cudaGetDevice(&dev);
    if (err == cudaSuccess)
        err = cudaGetDeviceProperties(&prop, dev);
    if (err == cudaSuccess)
        err = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
    if (err == cudaSuccess)
        err = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
    if (err != cudaSuccess)
        return loomcu_status(err, "reading the device's properties");
    snprintf(buf, len,
             "cuda device %d: %s, compute capability %d.%d, %d SMs, L2 %.1f MiB, "
             "%.1f GiB memory, peak memory bandwidth %.0f GB/s; tensor cores' rows form "
             "holds X in shared memory up to K = %" PRId64 " (strips of 64 columns) or %" PRId64 " (of 32)",
             dev, prop.name, major, minor, info.sms, info.gpu_l2_kb / 1024.0,
             prop.totalGlobalMem / 1073741824.0, info.mem_bw_gbs, info.tc_resident_max_k,
             info.tc_resident_max_k_narrow);
    return LOOM_SUCCESS;
}

/* The widest vector (1, 2 or 4 elements) that every row of D starts on. */
static int vector_width(const loom_dense *D)
{
    if (D->layout != LOOM_ROW_MAJOR)
        return 1;
    size_t es = loom_dtype_size(D->dtype);
    for (int v = 4; v > 1; v /= 2)
        if ((uintptr_t)D->data % (es * (size_t)v) == 0 && D->ld % v == 0)
            return v;
    return 1;
}

static loom_status cuda_spmm(loom_plan *plan, double alpha, const loom_dense *X, double beta,
                             loom_dense *Y)
{
    if (plan->strategy.kloop == LOOM_K_TC)
        return loomcu_tc_spmm_plan(plan, alpha, X, beta, Y);
    const loom_csr *A = plan->A;
    /* The wide kernels address X's rows with a 32-bit byte stride. */
    if (X->layout == LOOM_ROW_MAJOR &&
        (uint64_t)X->ld * loom_dtype_size(X->dtype) > (uint64_t)UINT32_MAX)
        return loom__error(LOOM_ERR_NOT_SUPPORTED,
                           "cuda: X's leading dimension %lld is too large (rows of 4 GiB or "
                           "more are not supported)",
                           (long long)X->ld);
    loomcu_problem p;
    p.m = A->rows;
    p.k = A->cols;
    p.n = plan->n;
    p.nnz = A->nnz;
    p.row_offsets = A->row_offsets;
    p.col_indices = A->col_indices;
    p.values = A->values;
    p.x = X->data;
    p.x_row_stride = X->layout == LOOM_ROW_MAJOR ? X->ld : 1;
    p.x_col_stride = X->layout == LOOM_ROW_MAJOR ? 1 : X->ld;
    p.y = Y->data;
    p.y_row_stride = Y->layout == LOOM_ROW_MAJOR ? Y->ld : 1;
    p.y_col_stride = Y->layout == LOOM_ROW_MAJOR ? 1 : Y->ld;
    p.alpha = alpha;
    p.beta = beta;
    p.x_vector_width = vector_width(X);
    p.y_vector_width = vector_width(Y);
    cudaStream_t stream = (cudaStream_t)plan->ctx.stream;
    const loomcu_plan_data *d = plan->backend_data;
    cudaError_t err = plan->dtype == LOOM_F32 ? loomcu_spmm_f32(&p, &plan->strategy, d, stream)
                                              : loomcu_spmm_f64(&p, &plan->strategy, d, stream);
    return loomcu_status(err, "launching the SpMM kernels");
}

/* time_spmm: events around each of `runs` launches on the plan's stream,
 * so tune compares kernels, not the host's launch and copy latencies (a
 * synchronising copy after each run costs more than a small SpMM). */
static loom_status cuda_time_spmm(loom_plan *plan, const loom_dense *X, loom_dense *Y, int runs,
                                  double *ms)
{
    if (runs < 1 || runs > LOOM__TIME_RUNS_MAX)
        return loom__error(LOOM_ERR_INVALID_ARGUMENT, "cuda: time_spmm: runs %d is not in 1..%d",
                           runs, LOOM__TIME_RUNS_MAX);
    cudaStream_t stream = (cudaStream_t)plan->ctx.stream;
    cudaEvent_t ev[LOOM__TIME_RUNS_MAX + 1];
    int made = 0;
    cudaError_t err = cudaSuccess;
    while (made <= runs && err == cudaSuccess) {
        err = cudaEventCreate(&ev[made]);
        if (err == cudaSuccess)
            made++;
    }
    loom_status st = loomcu_status(err, "creating timing events");
    if (st == LOOM_SUCCESS)
        st = loomcu_status(cudaEventRecord(ev[0], stream), "recording a timing event");
    for (int i = 0; i < runs && st == LOOM_SUCCESS; i++) {
        st = cuda_spmm(plan, 1.0, X, 0.0, Y);
        if (st == LOOM_SUCCESS)
            st = loomcu_status(cudaEventRecord(ev[i + 1], stream), "recording a timing event");
    }
    if (st == LOOM_SUCCESS)
        st = loomcu_status(cudaEventSynchronize(ev[runs]), "waiting for the timed runs");
    for (int i = 0; i < runs && st == LOOM_SUCCESS; i++) {
        float f = 0;
        st = loomcu_status(cudaEventElapsedTime(&f, ev[i], ev[i + 1]), "reading a timing event");
        ms[i] = f;
    }
    for (int i = 0; i < made; i++)
        cudaEventDestroy(ev[i]);
    return st;
}

/* EB + SR as segments (spmm_eb_segments.cuh): what the plan listed, swept
 * and carries, as the launch will walk it (spmm_launch.cuh launch_segments). */
static void explain_segments(const loom_plan *plan, const loomcu_eb_segments *sg, char *buf,
                             size_t len)
{
    const int64_t n = plan->n;
    if (!loomcu_narrow_n(n)) {
        snprintf(buf, len,
                 "cuda: EB + SR as segments: %" PRId64 " long (more than %" PRId64
                 " non-zeros, %s) and %" PRId64 " short%s, in slabs of %" PRId64
                 " columns%s; %" PRId64 " rows cross chunks (carries and a fix-up)",
                 sg->n_long, sg->long_threshold,
                 sg->long_vector ? "walked first, in the short ones' vector shape" : "a column a lane",
                 sg->n_short,
                 sg->column_order ? " in the order of their first column (rows of several chunks)"
                                  : "",
                 sg->slab,
                 sg->vector32 ? ", 32 bytes of columns a lane where X's rows allow (short rows, large A)"
                              : "",
                 sg->n_fix);
        return;
    }
    const bool wide = loomcu_narrow_wide(n, plan->A->nnz, loom_dtype_size(plan->dtype));
    snprintf(buf, len,
             "cuda: EB + SR as segments at N = %" PRId64 ": %" PRId64 " long pieces (more than %" PRId64
             " non-zeros) a group of %d lanes each%s; %" PRId64
             " short pieces of rows that cross chunks a thread each; the %" PRId64
             " rows swept a thread each (a row of one short piece, or empty, is walked there); %" PRId64
             " rows cross chunks (carries and a fix-up); short pairs %s",
             n, sg->n_long, sg->long_threshold, wide ? 16 : 8,
             LOOMCU_PAIRS_THROUGH_ROOM(n)
                 ? ", pairs passed through shared memory"
                 : "",
             sg->n_short, sg->sweep_rows, sg->n_fix,
             sg->cache_pairs ? "read through L1 (A within half the L2)" : "streamed");
}

/* What the plan chose beyond the design, where it is not the default walk. */
static void cuda_plan_explain(const loom_plan *plan, char *buf, size_t len)
{
    const loomcu_plan_data *d = plan->strategy.kloop == LOOM_K_TC ? NULL : plan->backend_data;
    if (d && d->ktile)
        snprintf(buf, len,
                 "cuda: RB + SR in K-tiles: X staged in shared memory 128 rows at a time, 32 rows "
                 "a block (where X's rows are 16-byte aligned; else the wide walk, the same sums)");
    else if (d && loomcu_segments_made(&d->segs))
        explain_segments(plan, &d->segs, buf, len);
    else if (len > 0)
        buf[0] = '\0';
}

LOOM_INTERNAL const loom_backend loom__cuda_backend = {
    .id = LOOM_BACKEND_CUDA,
    .name = "cuda",
    .tensor_cores = true,
    .probe = cuda_probe,
    .supports = cuda_supports,
    .plan_prepare = loomcu_plan_prepare,
    .plan_release = loomcu_plan_release,
    .spmm = cuda_spmm,
    .mem_alloc = cuda_mem_alloc,
    .mem_free = cuda_mem_free,
    .mem_copy = cuda_mem_copy,
    .describe_hardware = cuda_describe_hardware,
    .device_info = cuda_device_info,
    .time_spmm = cuda_time_spmm,
    .plan_explain = cuda_plan_explain,
};
