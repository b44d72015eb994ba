/*
 * select_features.c - the feature vector a selector sees: the matrix's
 * row-length statistics (loom_csr_features), the problem (N, layouts,
 * dtype) and the device (cores, caches; SMs and bandwidth for a GPU).
 *
 * Self-contained on purpose (libc, and hwloc when built with it): the
 * sweep program compiles this file too, so training data and plan time
 * share one definition of every feature.
 *
 * Cost: the matrix part is one pass over the row offsets (done by
 * loom_csr_features); the device part is measured once per process.
 */
#include "config.h"
#include "select.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#ifdef LOOM_HAVE_HWLOC
#include <hwloc.h>
#endif

static const char *const feature_names[LOOM__FEATURE_COUNT] = {
    [LOOM__F_ROWS] = "rows",
    [LOOM__F_COLS] = "cols",
    [LOOM__F_NNZ] = "nnz",
    [LOOM__F_ROW_MEAN] = "row_mean",
    [LOOM__F_ROW_STD] = "row_std",
    [LOOM__F_ROW_MAX] = "row_max",
    [LOOM__F_ROW_CV] = "row_cv",
    [LOOM__F_MAX_OVER_MEAN] = "max_over_mean",
    [LOOM__F_EMPTY_FRAC] = "empty_frac",
    [LOOM__F_DENSITY] = "density",
    [LOOM__F_N] = "n",
    [LOOM__F_X_LAYOUT] = "x_layout",
    [LOOM__F_Y_LAYOUT] = "y_layout",
    [LOOM__F_DTYPE_BYTES] = "dtype_bytes",
    [LOOM__F_WORK] = "work",
    [LOOM__F_X_OVER_LLC] = "x_over_llc",
    [LOOM__F_Y_OVER_LLC] = "y_over_llc",
    [LOOM__F_CORES] = "cores",
    [LOOM__F_THREADS] = "threads",
    [LOOM__F_LLC_KB] = "llc_kb",
    [LOOM__F_SMS] = "sms",
    [LOOM__F_GPU_L2_KB] = "gpu_l2_kb",
    [LOOM__F_MEM_BW_GBS] = "mem_bw_gbs",
};

const char *loom__feature_name(int index)
{
    return index >= 0 && index < LOOM__FEATURE_COUNT ? feature_names[index] : NULL;
}

int loom__feature_index(const char *name)
{
    for (int i = 0; i < LOOM__FEATURE_COUNT; i++)
        if (strcmp(name, feature_names[i]) == 0)
            return i;
    return -1;
}

/* ---------------------------------------------------------- candidates */

/* CPU: lanes split a row across one SIMD register (8 floats in AVX2),
 * chunks are a few cache lines of non-zeros per worker step. */
static const char *const cpu_candidates[] = {
    "rb-rm-sr", "rb-rm-pr:lanes=8", "rb-cm-sr", "rb-cm-pr:lanes=8",
    "eb-rm-sr:chunk=256", "eb-rm-pr:chunk=256,lanes=8", "eb-cm-sr:chunk=256",
    "eb-cm-pr:chunk=256,lanes=8",
    "rb-rm-pr:lanes=4", "rb-rm-pr:lanes=16", "eb-rm-sr:chunk=2048", "eb-rm-pr:chunk=2048,lanes=8",
};

/* GPU: the designs that won most often on the H200 sweep
 * (bench/results/selection/), with the speed-only options that made them
 * win (vdl, csc, coarsen); lanes are sub-warps up to a whole warp, and 128
 * (a row across 4 warps), which won most among the wider ones on few long
 * rows (bench/results/cuda-2026-11-27-h100-wide-lanes/). */
static const char *const gpu_candidates[] = {
    "rb-rm-sr:vdl,csc", "rb-rm-pr:lanes=32,vdl", "eb-rm-sr:chunk=32,vdl,csc",
    "eb-rm-sr:chunk=128,vdl,csc", "rb-rm-sr:coarsen=2,csc", "rb-rm-pr:lanes=16,vdl",
    "rb-rm-pr:lanes=4,vdl", "rb-cm-pr:lanes=8,vdl", "eb-rm-pr:chunk=128,lanes=32,vdl",
    "eb-rm-pr:chunk=256,lanes=32,vdl", "rb-cm-sr:vdl,csc", "eb-rm-sr:chunk=256,vdl,csc",
    "rb-rm-pr:lanes=128,vdl",
};

int loom__candidate_names(loom_backend_id backend, const char *const **names)
{
    if (backend == LOOM_BACKEND_CUDA) {
        *names = gpu_candidates;
        return (int)(sizeof gpu_candidates / sizeof gpu_candidates[0]);
    }
    *names = cpu_candidates;
    return (int)(sizeof cpu_candidates / sizeof cpu_candidates[0]);
}

#define WIDE_LANES_MAX_THREADS ((int64_t)1 << 20)

bool loom__candidate_fits(const loom_features *f, const loom_strategy *s)
{
    if (s->kloop != LOOM_K_PR || s->lanes <= 32)
        return true;
    return f->rows <= WIDE_LANES_MAX_THREADS / s->lanes;
}

bool loom__n_loop_matters(loom_backend_id backend, int64_t n)
{
    return n > 1 && backend != LOOM_BACKEND_OPENMP;
}

bool loom__product_name(loom_backend_id backend, const loom_strategy *s, int64_t n, char *buf,
                        size_t len)
{
    loom_strategy x = *s;
    if (!loom__n_loop_matters(backend, n))
        x.nloop = LOOM_N_RM;
    return loom_strategy_format(&x, buf, len) == LOOM_SUCCESS;
}

/* ---------------------------------------------------------------- CPU */

static loom__device_info cpu;
static pthread_once_t cpu_once = PTHREAD_ONCE_INIT;

/* A short hash of the CPU's model name, so tune-cache entries of one
 * machine are not reused on another with the same core count. */
static unsigned cpu_model_hash(void)
{
    unsigned h = 2166136261u;
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return 0;
    char line[256];
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "model name", 10) == 0) {
            for (const char *c = line; *c; c++)
                h = (h ^ (unsigned char)*c) * 16777619u;
            break;
        }
    fclose(f);
    return h;
}

static void cpu_from_sysconf(loom__device_info *d)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    d->cores = n > 0 ? (int)n : 1;
    /* sysfs gives cache sizes without glibc extensions: index2 is L2,
     * index3 (when present) L3, in "1024K" form. */
    for (int idx = 2; idx <= 3; idx++) {
        char path[96];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", idx);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        double kb = 0;
        char unit = 'K';
        if (fscanf(f, "%lf%c", &kb, &unit) >= 1) {
            if (unit == 'M')
                kb *= 1024;
            if (idx == 2)
                d->l2_kb = kb;
            d->llc_kb = kb;
        }
        fclose(f);
    }
    d->source = "sysconf";
}

#ifdef LOOM_HAVE_HWLOC
static bool cpu_from_hwloc(loom__device_info *d)
{
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) != 0)
        return false;
    if (hwloc_topology_load(topo) != 0) {
        hwloc_topology_destroy(topo);
        return false;
    }
    int cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    d->cores = cores > 0 ? cores : 1;
    hwloc_obj_t l2 = hwloc_get_obj_by_type(topo, HWLOC_OBJ_L2CACHE, 0);
    hwloc_obj_t l3 = hwloc_get_obj_by_type(topo, HWLOC_OBJ_L3CACHE, 0);
    if (l2 && l2->attr)
        d->l2_kb = (double)l2->attr->cache.size / 1024.0;
    d->llc_kb = d->l2_kb;
    if (l3 && l3->attr)
        d->llc_kb = (double)l3->attr->cache.size / 1024.0;
    hwloc_topology_destroy(topo);
    d->source = "hwloc";
    return true;
}
#endif

static void cpu_measure(void)
{
    memset(&cpu, 0, sizeof cpu);
#ifdef LOOM_HAVE_HWLOC
    if (!cpu_from_hwloc(&cpu))
#endif
        cpu_from_sysconf(&cpu);
    if (cpu.llc_kb <= 0)
        cpu.llc_kb = 1024; /* unknown: a typical L2, so ratios stay finite */
    snprintf(cpu.id, sizeof cpu.id, "cpu:%dc:%.0fk:%08x", cpu.cores, cpu.llc_kb, cpu_model_hash());
}

void loom__cpu_info(int threads, loom__device_info *dev)
{
    pthread_once(&cpu_once, cpu_measure);
    *dev = cpu;
    dev->threads = threads > 0 ? threads : cpu.cores;
}

/* ----------------------------------------------------------- features */

void loom__feature_vector(const loom_features *f, int64_t n, loom_layout x_layout,
                          loom_layout y_layout, loom_dtype dtype, const loom__device_info *dev,
                          double out[LOOM__FEATURE_COUNT])
{
    double es = (double)loom_dtype_size(dtype);
    double llc_bytes = (dev->sms > 0 ? dev->gpu_l2_kb : dev->llc_kb) * 1024.0;
    if (llc_bytes <= 0)
        llc_bytes = 1024.0 * 1024.0;
    out[LOOM__F_ROWS] = (double)f->rows;
    out[LOOM__F_COLS] = (double)f->cols;
    out[LOOM__F_NNZ] = (double)f->nnz;
    out[LOOM__F_ROW_MEAN] = f->row_mean;
    out[LOOM__F_ROW_STD] = f->row_std;
    out[LOOM__F_ROW_MAX] = f->row_max;
    out[LOOM__F_ROW_CV] = f->row_cv;
    out[LOOM__F_MAX_OVER_MEAN] = f->max_over_mean;
    out[LOOM__F_EMPTY_FRAC] = f->rows > 0 ? (double)f->empty_rows / (double)f->rows : 0;
    out[LOOM__F_DENSITY] = f->density;
    out[LOOM__F_N] = (double)n;
    out[LOOM__F_X_LAYOUT] = x_layout == LOOM_COL_MAJOR;
    out[LOOM__F_Y_LAYOUT] = y_layout == LOOM_COL_MAJOR;
    out[LOOM__F_DTYPE_BYTES] = es;
    out[LOOM__F_WORK] = (double)f->nnz * (double)n;
    out[LOOM__F_X_OVER_LLC] = (double)f->cols * (double)n * es / llc_bytes;
    out[LOOM__F_Y_OVER_LLC] = (double)f->rows * (double)n * es / llc_bytes;
    out[LOOM__F_CORES] = dev->cores;
    out[LOOM__F_THREADS] = dev->threads;
    out[LOOM__F_LLC_KB] = dev->llc_kb;
    out[LOOM__F_SMS] = dev->sms;
    out[LOOM__F_GPU_L2_KB] = dev->gpu_l2_kb;
    out[LOOM__F_MEM_BW_GBS] = dev->mem_bw_gbs;
}
