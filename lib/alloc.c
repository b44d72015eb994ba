/*
 * alloc.c - host allocation, with a failure injector for tests.
 *
 * LOOM_FAIL_ALLOC=N in the environment makes the N-th allocation after the
 * variable was set (or changed) fail, so tests can walk every out-of-memory
 * path and check that it neither crashes nor leaks.  Unset, it costs one
 * getenv per allocation, and loom allocates only when planning.
 */
#include "config.h"
#include "loom_internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

void *loom__malloc(size_t bytes)
{
    if (injected_failure())
        return NULL;
    return malloc(bytes ? bytes : 1);
}

void *loom__calloc(size_t count, size_t size)
{
    if (injected_failure())
        return NULL;
    return calloc(count ? count : 1, size ? size : 1);
}

void loom__free(void *ptr)
{
    free(ptr);
}
