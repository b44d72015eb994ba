/*
 * omp_topology.h - what the OpenMP backend knows about the machine (from
 * hwloc when built with it): cores and where to put threads, cache sizes
 * for tiling, and which instruction set the kernels use.
 */
#ifndef LOOM_OMP_TOPOLOGY_H
#define LOOM_OMP_TOPOLOGY_H

#include <stddef.h>
#include <stdint.h>

typedef enum omp_isa { OMP_ISA_GENERIC = 0, OMP_ISA_AVX2 = 1, OMP_ISA_AVX512 = 2 } omp_isa;

typedef struct omp_topology {
    int cores;       /* physical cores we may run on (SMT siblings not counted) */
    int pus;         /* hardware threads */
    int numa_nodes;
    int packages;
    size_t l1d, l2;  /* per core, bytes */
    size_t llc;      /* one last-level cache instance, bytes */
    int llc_cores;   /* cores sharing one LLC */
    omp_isa isa;     /* chosen at first use; LOOM_OMP_ISA can force a lower one */
    int from_hwloc;  /* 1 when hwloc supplied the numbers */
    /* Where l2 and llc came from: "hwloc", or "assumed" when hwloc was
     * absent or did not report that cache (the plans' explain texts say
     * which size set which choice). */
    const char *l2_source, *llc_source;
    const char *isa_why;
    int isa_forced;  /* LOOM_OMP_ISA was set: its kernels at every N */
} omp_topology;

__attribute__((visibility("hidden"))) const omp_topology *omp_topology_get(void);
__attribute__((visibility("hidden"))) const char *omp_isa_name(omp_isa isa);
/* The kernels a plan of N columns of es-byte elements runs: t->isa, except
 * that on an AVX-512 CPU a row of X of 1 < N elements that fits 256 bits
 * (OMP_NARROW_ROW_BYTES: N <= 8 in f32, <= 4 in f64) runs the AVX2 kernels.  There the 512-bit
 * kernels hold half a vector or less of live lanes at the cost of a full
 * one: on a Sapphire Rapids-class Xeon every SR design ran 1.1-1.6x slower
 * with them (bench/results/cpu-2026-11-29-spr-isa/).  The bits are the
 * same either way.  Not where LOOM_OMP_ISA is set (t->isa_forced): the
 * tests force avx512 to check its kernels at every N. */
#define OMP_NARROW_ROW_BYTES 32
__attribute__((visibility("hidden"))) omp_isa omp_isa_for(const omp_topology *t, int64_t n, size_t es);
/* Pin the calling thread (OpenMP thread number tid) to one core, the first
 * hardware thread of core tid mod cores; no-op without hwloc, when the user
 * set OMP_PROC_BIND / OMP_PLACES, or with LOOM_OMP_BIND=0. */
__attribute__((visibility("hidden"))) void omp_topology_bind_thread(int tid);
/* Text for `loom info --hardware`. */
__attribute__((visibility("hidden"))) void omp_topology_describe(char *buf, size_t len);

#endif
