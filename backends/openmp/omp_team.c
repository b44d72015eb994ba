/*
 * omp_team.c - the persistent team of omp_team.h.
 *
 * A job is published by writing fn, arg and nth and then bumping the
 * generation counter; every worker runs its share when it sees a new
 * generation and then counts itself done; the caller runs share 0 and
 * waits for every worker's count (workers beyond nth only count), so the
 * job's fields are never rewritten while a worker may still read them.
 * Workers spin (with the pause instruction, yielding now and then) for
 * SPIN_NS after a job, then sleep on a condition variable; the caller
 * wakes sleepers, and waits for the workers spinning briefly, then
 * yielding, so that threads sharing a core (more threads than cores, a
 * loaded machine, real-time priorities) still make progress.  The
 * generation and the sleeper count are sequentially consistent atomics:
 * a worker announces itself asleep and then re-reads the generation, the
 * caller bumps the generation and then reads the sleeper count, so one of
 * the two always sees the other.
 */
#include "config.h"
#include "omp_team.h"
#include "omp_topology.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TEAM_MAX 64
#define SPIN_NS 200000 /* spin this long after a job before sleeping */

static struct {
    pthread_mutex_t busy;  /* held by the caller whose job runs */
    pthread_mutex_t lock;  /* guards sleeping and starting workers */
    pthread_cond_t wake;
    int workers;           /* started; worker w has tid w + 1 */
    atomic_ulong gen;      /* generation of the current job */
    atomic_int done;       /* workers finished with the current generation */
    atomic_int sleepers;
    atomic_int stop;
    omp_team_fn fn;        /* the job, stable while the caller holds busy */
    void *arg;
    int nth;
    unsigned long first_gen[TEAM_MAX]; /* the generation a new worker starts from */
    pthread_t thread[TEAM_MAX];
} team = {.busy = PTHREAD_MUTEX_INITIALIZER,
          .lock = PTHREAD_MUTEX_INITIALIZER,
          .wake = PTHREAD_COND_INITIALIZER};

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Wait for a generation other than seen (or for stop); returns it. */
static unsigned long await_job(unsigned long seen)
{
    const long long start = now_ns();
    for (unsigned spins = 0;; spins++) {
        const unsigned long g = atomic_load(&team.gen);
        if (g != seen || atomic_load(&team.stop))
            return g;
        if ((spins & 255) == 255) {
            if (now_ns() - start > SPIN_NS)
                break;
            sched_yield(); /* let a thread that shares this core run */
        }
        cpu_relax();
    }
    pthread_mutex_lock(&team.lock);
    atomic_fetch_add(&team.sleepers, 1);
    unsigned long g;
    while ((g = atomic_load(&team.gen)) == seen && !atomic_load(&team.stop))
        pthread_cond_wait(&team.wake, &team.lock);
    atomic_fetch_sub(&team.sleepers, 1);
    pthread_mutex_unlock(&team.lock);
    return g;
}

static void *worker(void *p)
{
    const int tid = (int)(intptr_t)p;
    omp_topology_bind_thread(tid);
    unsigned long seen = team.first_gen[tid - 1];
    for (;;) {
        seen = await_job(seen);
        if (atomic_load(&team.stop))
            return NULL;
        if (tid < team.nth)
            team.fn(team.arg, tid, team.nth);
        atomic_fetch_add(&team.done, 1);
    }
}

/* Start workers up to `want` (called with busy held: no job runs). */
static int ensure_workers(int want)
{
    pthread_mutex_lock(&team.lock);
    while (team.workers < want) {
        const int w = team.workers;
        team.first_gen[w] = atomic_load(&team.gen);
        if (pthread_create(&team.thread[w], NULL, worker, (void *)(intptr_t)(w + 1)) != 0)
            break;
        team.workers++;
    }
    const int ok = team.workers >= want;
    pthread_mutex_unlock(&team.lock);
    return ok;
}

/* Whether the team may run jobs: only when LOOM_OMP_TEAM=1 asks for it,
 * and never with more threads than hardware threads (spinning workers
 * would take turns on a core).  Off by default: spinning workers and an
 * OpenMP runtime's spinning threads (the application's own, or the EB
 * products' regions) take cores from each other; measured on the build
 * VM, a 0.05 ms product took 3.4 ms right after an OpenMP region. */
static int team_allowed(int threads)
{
    const char *env = getenv("LOOM_OMP_TEAM"); /* read each time: tests switch it */
    const int enabled = env && strcmp(env, "1") == 0;
    return enabled && threads >= 2 && threads <= TEAM_MAX && threads <= omp_topology_get()->pus;
}

int omp_team_run(int threads, omp_team_fn fn, void *arg)
{
    if (!team_allowed(threads))
        return 0;
    if (pthread_mutex_trylock(&team.busy) != 0)
        return 0;
    if (!ensure_workers(threads - 1)) {
        pthread_mutex_unlock(&team.busy);
        return 0;
    }
    team.fn = fn;
    team.arg = arg;
    team.nth = threads;
    atomic_store(&team.done, 0);
    atomic_fetch_add(&team.gen, 1);
    if (atomic_load(&team.sleepers) > 0) {
        pthread_mutex_lock(&team.lock);
        pthread_cond_broadcast(&team.wake);
        pthread_mutex_unlock(&team.lock);
    }
    fn(arg, 0, threads);
    /* Spin briefly, then yield: a worker may be waiting for this very
     * core (more threads than cores, a busy machine), and a spinning
     * caller would hold it for its whole time slice. */
    for (unsigned spins = 0; atomic_load(&team.done) < team.workers; spins++) {
        if (spins < 4096)
            cpu_relax();
        else
            sched_yield();
    }
    pthread_mutex_unlock(&team.busy);
    return 1;
}

/* A forked child has none of the parent's workers: forget them. */
static void after_fork_child(void)
{
    pthread_mutex_init(&team.busy, NULL);
    pthread_mutex_init(&team.lock, NULL);
    pthread_cond_init(&team.wake, NULL);
    team.workers = 0;
    atomic_store(&team.sleepers, 0);
}

__attribute__((constructor)) static void team_init(void)
{
    pthread_atfork(NULL, NULL, after_fork_child);
}

/* Let the workers go before the library is unloaded. */
__attribute__((destructor)) static void team_fini(void)
{
    if (pthread_mutex_trylock(&team.busy) != 0)
        return; /* a job still runs somewhere: leave the workers be */
    atomic_store(&team.stop, 1);
    atomic_fetch_add(&team.gen, 1);
    pthread_mutex_lock(&team.lock);
    pthread_cond_broadcast(&team.wake);
    const int n = team.workers;
    team.workers = 0;
    pthread_mutex_unlock(&team.lock);
    for (int w = 0; w < n; w++)
        pthread_join(team.thread[w], NULL);
    atomic_store(&team.stop, 0);
    pthread_mutex_unlock(&team.busy);
}
