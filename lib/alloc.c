/*
 * alloc.c - host allocation, with a failure injector for tests.
 *
 * LOOM_FAIL_ALLOC=N in the environment makes the N-th allocation after the
 * variable was set (or changed) fail, so tests can walk every out-of-memory
 * path and check that it neither crashes nor leaks.  Unset, it costs one
 * getenv per allocation, and loom allocates only when planning.
 *
 * loom__malloc_huge gives the large arrays that products read over and
 * over (the OpenMP backend's sliced copies of A, x' and the relabeled
 * indices) transparent huge pages where the system has them: 2 MiB
 * aligned, rounded up to whole 2 MiB, madvise(MADV_HUGEPAGE) before the
 * first touch.  The N = 1 kernel gathers x' from all over, and with 4 KiB
 * pages x' alone spans more pages than the first-level TLB holds (R-MAT
 * scale 22: 1250).  Measured on a Xeon VM: 7% off R-MAT's SpMV, but plans
 * cost 75-420 ms more there (bench/results/cpu-2026-11-26-spmv-thp).  The
 * caller's own matrices (loom_dense_alloc) stay on ordinary pages: 1.5-2%
 * gained did not pay their first touch.  LOOM_HUGEPAGES=0 turns it off.
 */
#define _DEFAULT_SOURCE /* madvise, beside the build's _POSIX_C_SOURCE */
#include "config.h"
#include "loom_internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(LOOM_HAVE_MADV_HUGEPAGE)
#include <sys/mman.h>
#endif

static pthread_mutex_t injector_lock = PTHREAD_MUTEX_INITIALIZER;
static char injector_setting[32];
static long injector_countdown;

static bool injected_failure(void)
{
    const char *env = getenv("LOOM_FAIL_ALLOC");
    if (!env)
        return false;
    bool fail = false;
    pthread_mutex_lock(&injector_lock);
    if (strncmp(env, injector_setting, sizeof injector_setting) != 0) {
        snprintf(injector_setting, sizeof injector_setting, "%s", env);
        injector_countdown = strtol(env, NULL, 10);
    }
    if (injector_countdown > 0)
        fail = (--injector_countdown == 0);
    pthread_mutex_unlock(&injector_lock);
    return fail;
}

/* 64 bytes: a cache line and an AVX-512 vector.  X's rows then start on
 * line boundaries wherever their length is a multiple of 64 bytes; from
 * malloc (16 bytes) every 512-bit load of such a row split two lines, and
 * the OpenMP kernels ran up to 1.8x slower (f64, N = 8 and 16, on a Xeon;
 * bench/results/cpu-2026-11-29-spr-isa/). */
#define HOST_ALIGN 64

static void *aligned_block(size_t bytes)
{
    void *p = NULL;
    return posix_memalign(&p, HOST_ALIGN, bytes ? bytes : 1) == 0 ? p : NULL;
}

void *loom__malloc(size_t bytes)
{
    if (injected_failure())
        return NULL;
    return aligned_block(bytes);
}

void *loom__calloc(size_t count, size_t size)
{
    if (injected_failure())
        return NULL;
    return calloc(count ? count : 1, size ? size : 1);
}

#if defined(LOOM_HAVE_MADV_HUGEPAGE)
/* Transparent huge pages: the size of one on x86-64 (and the alignment that
 * lets the kernel back a range with them). */
#define HUGE_PAGE ((size_t)2 << 20)

/* LOOM_HUGEPAGES=0: ordinary pages (for comparisons). */
static bool hugepages_off(void)
{
    const char *env = getenv("LOOM_HUGEPAGES");
    return env && strcmp(env, "0") == 0;
}
#endif

void *loom__malloc_huge(size_t bytes)
{
#if defined(LOOM_HAVE_MADV_HUGEPAGE)
    if (bytes >= HUGE_PAGE && !hugepages_off()) {
        if (injected_failure())
            return NULL;
        const size_t whole = (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
        void *p = NULL;
        if (whole < bytes || posix_memalign(&p, HUGE_PAGE, whole) != 0)
            return aligned_block(bytes); /* the rounding or huge alignment failed: plain pages */
        (void)madvise(p, whole, MADV_HUGEPAGE); /* advice: refused, the pages stay small */
        return p;
    }
#endif
    return loom__malloc(bytes);
}

void loom__free(void *ptr)
{
    free(ptr);
}
