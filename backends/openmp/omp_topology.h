/*
 * omp_topology.h - what the OpenMP backend knows about the machine (from
 * hwloc when built with it): cores and where to put threads, cache sizes
 * for tiling, and which instruction set the kernels use.
 */
#ifndef LOOM_OMP_TOPOLOGY_H
#define LOOM_OMP_TOPOLOGY_H

#include <stddef.h>

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
} omp_topology;

__attribute__((visibility("hidden"))) const omp_topology *omp_topology_get(void);
__attribute__((visibility("hidden"))) const char *omp_isa_name(omp_isa isa);
/* Pin the calling thread (OpenMP thread number tid) to one core, the first
 * hardware thread of core tid mod cores; no-op without hwloc, when the user
 * set OMP_PROC_BIND / OMP_PLACES, or with LOOM_OMP_BIND=0. */
__attribute__((visibility("hidden"))) void omp_topology_bind_thread(int tid);
/* Text for `loom info --hardware`. */
__attribute__((visibility("hidden"))) void omp_topology_describe(char *buf, size_t len);

#endif
