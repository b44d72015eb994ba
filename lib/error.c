/*
 * error.c - status strings and the per-thread message of the last failure.
 *
 * A thread-local message (as dlerror does) keeps error reporting correct
 * when contexts and plans are shared between threads.
 */
#include "config.h"
#include "loom_internal.h"

#include <stdio.h>

static _Thread_local char last_message[1024];

const char *loom_strerror(loom_status status)
{
    switch (status) {
    case LOOM_SUCCESS: return "success";
    case LOOM_ERR_NULL_POINTER: return "a required pointer argument is NULL";
    case LOOM_ERR_INVALID_ARGUMENT: return "invalid argument";
    case LOOM_ERR_INVALID_MATRIX: return "invalid sparse matrix";
    case LOOM_ERR_DIMENSION_MISMATCH: return "operand dimensions do not match";
    case LOOM_ERR_OUT_OF_MEMORY: return "out of memory";
    case LOOM_ERR_NOT_SUPPORTED: return "not supported";
    case LOOM_ERR_BACKEND_UNAVAILABLE: return "backend unavailable";
    case LOOM_ERR_IO: return "input/output error";
    case LOOM_ERR_PARSE: return "malformed input file";
    case LOOM_ERR_OVERFLOW: return "size overflow";
    case LOOM_ERR_DEVICE: return "device error";
    case LOOM_ERR_INVALID_OBJECT: return "invalid or freed handle";
    case LOOM_ERR_INTERNAL: return "internal error";
    }
    return "unknown status";
}

const char *loom_last_error(void)
{
    return last_message;
}

loom_status loom__error(loom_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_message, sizeof last_message, fmt, ap);
    va_end(ap);
    return status;
}

void loom__clear_error(void)
{
    last_message[0] = '\0';
}
