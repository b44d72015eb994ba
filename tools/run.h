/*
 * run.h - run one SpMM plan on one backend and time it: the step that
 * `loom spmm` does once and `loom designs` does for every design and backend.
 */
#ifndef TOOL_RUN_H
#define TOOL_RUN_H

#include <loom.h>

/* The host operands of one problem, Y = alpha*A*X + beta*Y.  A device copy
 * of A is made on first use by a device backend and kept for later runs. */
typedef struct tool_problem {
    loom_csr *A;        /* host */
    loom_csr *A_device; /* NULL until a device backend needs it */
    loom_dense X;       /* host, packed */
    int64_t m, k, n, nnz;
    loom_dtype dtype;
    loom_layout layout;
    double alpha, beta;
} tool_problem;

typedef struct tool_run {
    /* In. */
    loom_backend_id backend; /* LOOM_BACKEND_AUTO: the library chooses */
    loom_selector selector;
    loom_strategy strategy;  /* with LOOM_SELECT_FIXED */
    int repeat;              /* timed runs after one warm-up; 0: run once, untimed */
    /* Out. */
    loom_backend_id used_backend;
    loom_strategy used_strategy;
    char explain[2048];
    double seconds;    /* median of the timed runs */
    loom_dense Y;      /* host; free with loom_dense_free */
    char failed[128];  /* on failure: the step that failed (loom_last_error() says why) */
} tool_run;

/* Initialise a run of `backend` with `design`: a selector ("auto", "rules",
 * "model", "tune") or a design name; NULL is "auto". */
loom_status tool_run_init(tool_run *run, loom_backend_id backend, const char *design, int repeat);

/* Plan, execute and time; on success run->Y holds the result (beta = 0, so
 * Y's initial contents do not matter).  Device backends get operands copied
 * to the device first and Y copied back after the timing. */
loom_status tool_run_spmm(loom_context *ctx, tool_problem *p, tool_run *run);

void tool_problem_release(loom_context *ctx, tool_problem *p);

#endif /* TOOL_RUN_H */
