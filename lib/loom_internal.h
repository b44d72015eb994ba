/*
 * loom_internal.h - what the library's layers share and users never see:
 * the object layouts, the backend table, error reporting.
 *
 * Names: loom_ is public, loom__ (two underscores) is internal to the
 * library; a backend's private names start with its own prefix.
 */
#ifndef LOOM_INTERNAL_H
#define LOOM_INTERNAL_H

#include "loom.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>

#define LOOM_INTERNAL __attribute__((visibility("hidden")))

/* Magic numbers catch freed and uninitialised handles. */
#define LOOM_MAGIC_CONTEXT 0x6c6f6f6d63747831ull /* "loomctx1" */
#define LOOM_MAGIC_CSR 0x6c6f6f6d63737231ull     /* "loomcsr1" */
#define LOOM_MAGIC_PLAN 0x6c6f6f6d706c6e31ull    /* "loompln1" */
#define LOOM_MAGIC_FREED 0xdeadbeefdeadbeefull

struct loom_context {
    uint64_t magic;
    loom_backend_id backend; /* LOOM_BACKEND_AUTO: best available */
    int threads;             /* 0: the backend decides */
    void *stream;            /* cudaStream_t, or NULL for the default stream */
};

struct loom_csr {
    uint64_t magic;
    int64_t rows, cols, nnz;
    loom_dtype dtype;
    loom_memory memory;
    int64_t *row_offsets; /* rows + 1 */
    int32_t *col_indices; /* nnz */
    void *values;         /* nnz of dtype */
    /* A device copy keeps a host copy of the row offsets for planning. */
    int64_t *host_row_offsets;
    loom_context owner; /* settings of the context that made it */
};

typedef struct loom_backend loom_backend;
struct loom__device_info; /* lib/select.h */

struct loom_plan {
    uint64_t magic;
    loom_context ctx; /* a copy: the plan does not depend on the context's lifetime */
    const loom_csr *A;
    const loom_backend *backend;
    loom_strategy strategy;
    loom_dtype dtype;
    int64_t n;                      /* columns of X and Y */
    loom_layout x_layout, y_layout;
    loom_memory x_memory, y_memory;
    loom_features features;
    /* EB: first row touched by each chunk (chunks + 1 entries; host). */
    int64_t *chunk_first_row;
    int64_t chunks;
    void *backend_data; /* owned by the backend; freed by plan_release */
    /* chunk_first_row and backend_data are made: tune handed over the
     * winning trial's, so plan creation does not prepare the design again. */
    bool prepared;
    /* Backends keep per-plan scratch (EB carries, device buffers), so the
     * executions of one plan take turns; separate plans run in parallel. */
    pthread_mutex_t execute_lock;
    char explain[3072];
};

/*
 * A backend is a table of function pointers.  A slot left NULL means the
 * backend does not offer that operation.  See lib/registry.c.
 */
struct loom_backend {
    loom_backend_id id;
    const char *name;
    bool tensor_cores; /* offers LOOM_K_TC strategies (and f16/bf16 values) */
    /* LOOM_SUCCESS when usable now; otherwise an error with the reason set. */
    loom_status (*probe)(void);
    /* LOOM_SUCCESS when the strategy runs here for this dtype and memory;
     * otherwise LOOM_ERR_NOT_SUPPORTED with the reason set. */
    loom_status (*supports)(const loom_strategy *s, loom_dtype dtype, loom_memory memory);
    loom_status (*plan_prepare)(loom_plan *plan);
    void (*plan_release)(loom_plan *plan);
    loom_status (*spmm)(loom_plan *plan, double alpha, const loom_dense *X, double beta,
                        loom_dense *Y);
    /* Device memory; NULL for backends that only use host memory. */
    loom_status (*mem_alloc)(void **ptr, size_t bytes);
    loom_status (*mem_free)(void *ptr);
    /* A copy queued on `stream` (the context's: after the work queued there
     * before) and complete when it returns. */
    loom_status (*mem_copy)(void *dst, loom_memory dst_memory, const void *src,
                            loom_memory src_memory, size_t bytes, void *stream);
    /* Human-readable hardware summary for `loom info --hardware`; may be NULL. */
    loom_status (*describe_hardware)(char *buf, size_t len);
    /* The accelerator's properties that selection reads (SMs, L2, memory
     * bandwidth; lib/select.h): sets those fields of *dev and leaves the
     * rest.  NULL for host backends (their plans see the CPU's). */
    loom_status (*device_info)(struct loom__device_info *dev);
    /* Runs the prepared plan `runs` times back to back (alpha 1, beta 0)
     * and stores each run's time in ms[] by the device's own clock (CUDA
     * events), without the host's launch and synchronisation overheads in
     * between.  runs <= LOOM__TIME_RUNS_MAX.  NULL for host backends:
     * selection then times each run with the host clock. */
    loom_status (*time_spmm)(loom_plan *plan, const loom_dense *X, loom_dense *Y, int runs,
                             double *ms);
    /* What the backend chose when it prepared the plan, beyond the design
     * (layouts of A and x, and which cache size set them), one or more
     * lines without a final newline for loom_plan_explain; may be NULL. */
    void (*plan_explain)(const loom_plan *plan, char *buf, size_t len);
};

#define LOOM__TIME_RUNS_MAX 16

LOOM_INTERNAL const loom_backend *loom__backend(loom_backend_id id);
LOOM_INTERNAL const loom_backend *loom__device_backend(void);

/* Errors: set the calling thread's message and return the status. */
LOOM_INTERNAL loom_status loom__error(loom_status status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
LOOM_INTERNAL void loom__clear_error(void);

/* Validation prologue helpers. */
LOOM_INTERNAL loom_status loom__check_context(const loom_context *ctx, const char *fn);
LOOM_INTERNAL loom_status loom__check_csr(const loom_csr *A, const char *fn);
LOOM_INTERNAL loom_status loom__check_dense(const loom_dense *d, const char *what,
                                            const char *fn);

/* Checked size arithmetic: false on overflow. */
static inline bool loom__mul_size(size_t a, size_t b, size_t *out)
{
    return !__builtin_mul_overflow(a, b, out);
}

/* Host allocation that can be made to fail on purpose (tests inject
 * failures); loom__malloc's memory is 64-byte aligned (alloc.c). */
LOOM_INTERNAL void *loom__malloc(size_t bytes);
LOOM_INTERNAL void *loom__calloc(size_t count, size_t size);
/* loom__malloc for large arrays that products stream or gather from: from
 * 2 MiB up, 2 MiB aligned and advised for transparent huge pages where the
 * system has madvise(MADV_HUGEPAGE) (the advice may be refused; nothing
 * depends on it).  Freed by loom__free. */
LOOM_INTERNAL void *loom__malloc_huge(size_t bytes);
LOOM_INTERNAL void loom__free(void *ptr);

/* Make a host CSR handle that takes ownership of arrays from loom__malloc
 * (freed on failure too).  Validates like loom_csr_create; `origin` names
 * where the arrays came from (a file name) for the error message. */
LOOM_INTERNAL loom_status loom__csr_adopt(loom_context *ctx, int64_t rows, int64_t cols,
                                          int64_t nnz, loom_dtype dtype, int64_t *row_offsets,
                                          int32_t *col_indices, void *values, const char *origin,
                                          loom_csr **A);

/* Offset of element (i, j) in a dense descriptor. */
static inline int64_t loom__dense_offset(const loom_dense *d, int64_t i, int64_t j)
{
    return d->layout == LOOM_ROW_MAJOR ? i * d->ld + j : i + j * d->ld;
}

/* The positions 0..count-1 ordered by len, largest first, ties in position
 * order (lib/longest_first.c); loom__free it.  NULL when out of memory. */
LOOM_INTERNAL int64_t *loom__longest_first_order(const int64_t *len, int64_t count);

/* EB preprocessing: for each chunk, the row that holds its first non-zero. */
LOOM_INTERNAL loom_status loom__eb_chunk_rows(const int64_t *row_offsets, int64_t rows,
                                              int64_t nnz, int64_t chunk, int64_t **first_row,
                                              int64_t *chunks);

/* Selection by the rules of the papers (thresholds refitted per backend,
 * select_rules.c); writes the reasoning into why. */
LOOM_INTERNAL void loom__select_rules(const loom_features *f, int64_t n, loom_layout layout,
                                      loom_backend_id backend, loom_strategy *s, char *why,
                                      size_t len);

#endif /* LOOM_INTERNAL_H */
