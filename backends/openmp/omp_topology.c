/*
 * omp_topology.c - the machine as the OpenMP backend sees it: hwloc for
 * cores, NUMA nodes and caches (the OpenMP runtime's counts and the C
 * library's cache sizes, or assumed ones, without it), and the
 * run-time choice of instruction set, so one installed library runs on any
 * x86-64.
 */
#include "config.h"
#include "omp_topology.h"

#include <omp.h>
#include <pthread.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#ifdef LOOM_HAVE_HWLOC
#include <hwloc.h>
#endif

static omp_topology topo;
static pthread_once_t topo_once = PTHREAD_ONCE_INIT;
#ifdef LOOM_HAVE_HWLOC
static hwloc_topology_t hw;
static int hw_ok;
#endif

const char *omp_isa_name(omp_isa isa)
{
    switch (isa) {
    case OMP_ISA_AVX512: return "avx512";
    case OMP_ISA_AVX2: return "avx2";
    default: return "generic";
    }
}

static omp_isa detect_isa(const char **why, int *forced)
{
    omp_isa best = OMP_ISA_GENERIC;
    *why = "no AVX2+FMA on this CPU";
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) {
        best = OMP_ISA_AVX512;
        *why = "the CPU has AVX-512F";
    } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        best = OMP_ISA_AVX2;
        *why = "the CPU has AVX2 and FMA, no AVX-512F";
    }
#else
    *why = "not an x86 CPU";
#endif
    /* LOOM_OMP_ISA=generic|avx2|avx512 may lower the choice (tests use it to
     * check every path on one machine); it never raises it.  Set, it also
     * holds at every N (omp_isa_for).  Any other value is ignored. */
    const char *force = getenv("LOOM_OMP_ISA");
    *forced = 0;
    if (force) {
        omp_isa want = best;
        *forced = 1;
        if (strcasecmp(force, "generic") == 0)
            want = OMP_ISA_GENERIC;
        else if (strcasecmp(force, "avx2") == 0)
            want = OMP_ISA_AVX2;
        else if (strcasecmp(force, "avx512") == 0)
            want = OMP_ISA_AVX512;
        else
            *forced = 0;
        if (want < best) {
            best = want;
            *why = "forced by LOOM_OMP_ISA";
        }
    }
    return best;
}

omp_isa omp_isa_for(const omp_topology *t, int64_t n, size_t es)
{
    if (t->isa == OMP_ISA_AVX512 && !t->isa_forced && n > 1 && (double)n * (double)es <= OMP_NARROW_ROW_BYTES)
        return OMP_ISA_AVX2;
    return t->isa;
}

#ifdef LOOM_HAVE_HWLOC
static size_t cache_size(hwloc_obj_type_t type)
{
    hwloc_obj_t o = hwloc_get_next_obj_by_type(hw, type, NULL);
    return o && o->attr ? (size_t)o->attr->cache.size : 0;
}
#endif

static void load(void)
{
    memset(&topo, 0, sizeof topo);
    topo.isa = detect_isa(&topo.isa_why, &topo.isa_forced);
#ifdef LOOM_HAVE_HWLOC
    if (hwloc_topology_init(&hw) == 0 && hwloc_topology_load(hw) == 0) {
        hw_ok = 1;
        topo.from_hwloc = 1;
        topo.cores = hwloc_get_nbobjs_by_type(hw, HWLOC_OBJ_CORE);
        topo.pus = hwloc_get_nbobjs_by_type(hw, HWLOC_OBJ_PU);
        topo.numa_nodes = hwloc_get_nbobjs_by_type(hw, HWLOC_OBJ_NUMANODE);
        topo.packages = hwloc_get_nbobjs_by_type(hw, HWLOC_OBJ_PACKAGE);
        topo.l1d = cache_size(HWLOC_OBJ_L1CACHE);
        topo.l2 = cache_size(HWLOC_OBJ_L2CACHE);
        topo.llc = cache_size(HWLOC_OBJ_L3CACHE);
        hwloc_obj_type_t llc_type = HWLOC_OBJ_L3CACHE;
        if (!topo.llc) {
            topo.llc = topo.l2;
            llc_type = HWLOC_OBJ_L2CACHE;
        }
        int llcs = hwloc_get_nbobjs_by_type(hw, llc_type);
        topo.llc_cores = llcs > 0 && topo.cores > 0 ? topo.cores / llcs : 1;
    }
#endif
    if (topo.cores <= 0)
        topo.cores = omp_get_num_procs();
    if (topo.pus <= 0)
        topo.pus = omp_get_num_procs();
    if (topo.numa_nodes <= 0)
        topo.numa_nodes = 1;
    if (topo.packages <= 0)
        topo.packages = 1;
    topo.l2_source = topo.l2 ? "hwloc" : "assumed";
    topo.llc_source = topo.llc ? "hwloc" : "assumed";
    /* Without hwloc's numbers, the C library's (glibc reads CPUID), then
     * a modest x86 core: 32 KiB L1d, 512 KiB L2, 8 MiB shared LLC. */
#if defined(_SC_LEVEL2_CACHE_SIZE) && defined(_SC_LEVEL3_CACHE_SIZE) && defined(_SC_LEVEL1_DCACHE_SIZE)
    const long sc_l1 = sysconf(_SC_LEVEL1_DCACHE_SIZE), sc_l2 = sysconf(_SC_LEVEL2_CACHE_SIZE),
               sc_l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (!topo.l1d && sc_l1 > 0)
        topo.l1d = (size_t)sc_l1;
    if (!topo.l2 && sc_l2 > 0) {
        topo.l2 = (size_t)sc_l2;
        topo.l2_source = "sysconf";
    }
    if (!topo.llc && (sc_l3 > 0 || sc_l2 > 0)) {
        topo.llc = (size_t)(sc_l3 > 0 ? sc_l3 : sc_l2);
        topo.llc_source = "sysconf";
    }
#endif
    /* LOOM_OMP_L2 (bytes; tests, and machines whose L2 is misreported)
     * overrides every source; a value that is not a whole byte count of at
     * least 1 KiB is ignored, and the source says so (loom info
     * --hardware, the plans' explain text). */
    const char *l2env = getenv("LOOM_OMP_L2");
    if (l2env) {
        char *end;
        errno = 0;
        const long long v = strtoll(l2env, &end, 10);
        if (end != l2env && *end == '\0' && errno == 0 && v >= 1024) {
            topo.l2 = (size_t)v;
            topo.l2_source = "LOOM_OMP_L2";
        } else {
            static char why[96];
            snprintf(why, sizeof why, "%s; LOOM_OMP_L2 ignored: not a byte count >= 1024",
                     topo.l2 ? topo.l2_source : "assumed");
            topo.l2_source = why;
        }
    }
    if (!topo.l1d)
        topo.l1d = 32u << 10;
    if (!topo.l2)
        topo.l2 = 512u << 10;
    if (!topo.llc)
        topo.llc = 8u << 20;
    if (topo.llc_cores <= 0)
        topo.llc_cores = topo.cores;
}

const omp_topology *omp_topology_get(void)
{
    pthread_once(&topo_once, load);
    return &topo;
}

void omp_topology_bind_thread(int tid)
{
    omp_topology_get();
#ifdef LOOM_HAVE_HWLOC
    const char *env = getenv("LOOM_OMP_BIND");
    if (!hw_ok || (env && strcmp(env, "0") == 0) || getenv("OMP_PROC_BIND") || getenv("OMP_PLACES"))
        return;
    hwloc_obj_t core = hwloc_get_obj_by_type(hw, HWLOC_OBJ_CORE, (unsigned)(tid % topo.cores));
    if (!core || !core->cpuset)
        return;
    hwloc_bitmap_t set = hwloc_bitmap_dup(core->cpuset);
    hwloc_bitmap_singlify(set); /* one hardware thread: never two of ours on SMT siblings */
    hwloc_set_cpubind(hw, set, HWLOC_CPUBIND_THREAD);
    hwloc_bitmap_free(set);
#else
    (void)tid;
#endif
}

void omp_topology_describe(char *buf, size_t len)
{
    const omp_topology *t = omp_topology_get();
    char narrow[128] = "";
    if (t->isa == OMP_ISA_AVX512 && !t->isa_forced)
        snprintf(narrow, sizeof narrow,
                 ";\n    avx2 where 1 < N and a row of X fits %d bytes (N <= %d in f32, <= %d in f64)",
                 OMP_NARROW_ROW_BYTES, OMP_NARROW_ROW_BYTES / 4, OMP_NARROW_ROW_BYTES / 8);
    char source[96] = "no hwloc: counts from the OpenMP runtime, cache sizes assumed";
#ifdef LOOM_HAVE_HWLOC
    if (t->from_hwloc) {
        unsigned v = hwloc_get_api_version();
        snprintf(source, sizeof source, "topology from hwloc, API %u.%u", v >> 16, (v >> 8) & 0xff);
    }
#endif
    snprintf(buf, len,
             "openmp backend (%s)\n"
             "  cores: %d physical, %d hardware threads, %d package(s), %d NUMA node(s)\n"
             "  caches: L1d %zu KiB per core, L2 %zu KiB per core (%s), LLC %zu KiB shared by %d "
             "core(s) (%s)\n"
             "  cache sizes used: the L2 sets, for SpMV (N = 1), whether a plan relabels A's columns\n"
             "    (x larger than the L2), how many hot columns go first (a quarter of the L2) and the\n"
             "    rows per window of the sorted sliced copy (y of a window fills the L2); rows per\n"
             "    thread and EB chunks do not depend on cache sizes; no choice uses the LLC\n"
             "  SIMD kernels: %s (%s)%s\n"
             "  threads: %d by default (one per physical core%s); OpenMP max threads %d\n"
             "  placement: %s",
             source,
             t->cores, t->pus, t->packages, t->numa_nodes, t->l1d >> 10, t->l2 >> 10, t->l2_source,
             t->llc >> 10, t->llc_cores, t->llc_source, omp_isa_name(t->isa), t->isa_why,
             narrow, t->cores,
             t->pus > t->cores ? ", SMT siblings left idle" : "", omp_get_max_threads(),
             t->from_hwloc ? "threads pinned one per core (LOOM_OMP_BIND=0 or OMP_PROC_BIND "
                             "turns it off); plan buffers first-touched by the threads that use them"
                           : "left to the OpenMP runtime");
}
