/*
 * select.h - what the selectors share (lib/select_*.c): the feature vector
 * a model sees, the device it runs on, the model and the tuner.
 *
 * select_features.c depends on nothing but libc (and hwloc when built
 * with it), so bench/loom-sweep compiles the same file and writes the
 * very features the library computes: a model trained on the sweep's CSV
 * sees the same numbers at plan time.
 */
#ifndef LOOM_SELECT_H
#define LOOM_SELECT_H

#include "loom.h"

#include <stdbool.h>
#include <stddef.h>

/* The features, by index.  Their names (loom__feature_name) are what model
 * files refer to; see loom-model(5) for the definitions. */
enum {
    LOOM__F_ROWS,
    LOOM__F_COLS,
    LOOM__F_NNZ,
    LOOM__F_ROW_MEAN,
    LOOM__F_ROW_STD,
    LOOM__F_ROW_MAX,
    LOOM__F_ROW_CV,
    LOOM__F_MAX_OVER_MEAN,
    LOOM__F_EMPTY_FRAC,
    LOOM__F_DENSITY,
    LOOM__F_N,
    LOOM__F_X_LAYOUT,
    LOOM__F_Y_LAYOUT,
    LOOM__F_DTYPE_BYTES,
    LOOM__F_WORK,       /* nnz * N: multiply-adds */
    LOOM__F_X_OVER_LLC, /* bytes of X over the last-level cache */
    LOOM__F_Y_OVER_LLC, /* bytes of Y over the last-level cache */
    LOOM__F_CORES,
    LOOM__F_THREADS,
    LOOM__F_LLC_KB,
    LOOM__F_SMS,
    LOOM__F_GPU_L2_KB,
    LOOM__F_MEM_BW_GBS,
    LOOM__FEATURE_COUNT
};

/* What selection knows about the machine a plan runs on. */
typedef struct loom__device_info {
    int cores;          /* CPU physical cores */
    int threads;        /* worker threads the plan will use */
    double l2_kb;       /* CPU L2 per core */
    double llc_kb;      /* CPU last-level cache (L3, else L2) */
    int sms;            /* GPU streaming multiprocessors (0: not a GPU plan) */
    double gpu_l2_kb;   /* GPU L2 */
    double mem_bw_gbs;  /* GPU memory bandwidth, GB/s */
    int64_t tc_resident_max_k; /* GPU: the largest K whose X strips the tensor-core rows
                                * form holds in shared memory (0: unknown, not a GPU) */
    int64_t tc_resident_max_k_narrow; /* ... in its narrower strips (32 columns, not 64) */
    char id[96];        /* one token naming the device, for tune-cache keys */
    const char *source; /* "hwloc", "sysconf" */
} loom__device_info;

const char *loom__feature_name(int index);
int loom__feature_index(const char *name); /* -1 when unknown */

/* The host CPU, measured once per process; threads is set to `threads`
 * (0: all cores). */
void loom__cpu_info(int threads, loom__device_info *dev);

/* The feature vector of one problem. */
void loom__feature_vector(const loom_features *f, int64_t n, loom_layout x_layout,
                          loom_layout y_layout, loom_dtype dtype, const loom__device_info *dev,
                          double out[LOOM__FEATURE_COUNT]);

/* The candidate strategies the sweep measures, the model ranks and the
 * tuner times, for a backend: the eight designs with the backend's default
 * lanes and chunk, then a few other lane widths and chunk sizes.  Returns
 * the count; names[i] parse with loom_strategy_parse. */
int loom__candidate_names(loom_backend_id backend, const char *const **names);

/* Whether a candidate is inside the range its timings cover on A: RB + PR
 * with lanes across warps (more than 32) only where rows x lanes <= 2^20.
 * They were timed winning on at most about 7000 rows x 64 lanes and losing
 * 2-12x on more rows (bench/results/cuda-2026-11-27-h100-wide-lanes/);
 * beyond the sweep's matrices the model would extrapolate, and tune would
 * spend a slow run on them. */
bool loom__candidate_fits(const loom_features *f, const loom_strategy *s);

/* The product s computes at N columns on a backend, as text: its
 * strategy's, with the N-loop dropped where it changes no code: at N = 1
 * (RM and CM walk the one column alike) and on the OpenMP backend at any N
 * (its kernels walk X and Y in the layouts they are given and never read
 * the N-loop).  Two strategies with equal texts are one product, timed
 * once; timing both would make the oracle the faster of two noisy timings
 * of one kernel.  False when s does not format. */
bool loom__n_loop_matters(loom_backend_id backend, int64_t n);
bool loom__product_name(loom_backend_id backend, const loom_strategy *s, int64_t n, char *buf,
                        size_t len);

/* ------------------------------------------------------------- model */

/* A trained model (loom-model(5)): for each candidate strategy, a tree
 * ensemble predicting the natural log of its time in milliseconds. */
typedef struct loom__model loom__model;

#define LOOM__MODEL_MAX_CANDIDATES 64

/* Parse a model from text; `origin` names it in error messages, which
 * give the line number of the first problem. */
loom_status loom__model_parse(const char *text, size_t len, const char *origin, loom__model **m);
loom_status loom__model_read(const char *path, loom__model **m);
void loom__model_free(loom__model *m);
const char *loom__model_backend_name(const loom__model *m);
int loom__model_candidates(const loom__model *m);
const loom_strategy *loom__model_candidate(const loom__model *m, int i);
/* Predicted log(milliseconds) of every candidate for a feature vector:
 * pred[i] for candidate i (loom__model_candidates entries). */
void loom__model_predict_all(const loom__model *m, const double x[LOOM__FEATURE_COUNT],
                             double *pred);

/* The model the library uses for a backend: one given to loom_model_load,
 * else <name>.model from $LOOM_MODEL_DIR, else from LOOM_DATADIR; NULL when
 * none.  `where` (may be NULL) receives the file used or the reason there
 * is none.  A model returned is locked against loom_model_load replacing
 * it: give it back with loom__model_release, soon. */
const loom__model *loom__model_acquire(loom_backend_id backend, char *where, size_t len);
void loom__model_release(const loom__model *m);

/* -------------------------------------------------------------- tune */

/* A 64-bit fingerprint of a matrix's structure: sizes, row offsets and
 * (for host matrices) column indices; values are left out. */
uint64_t loom__tune_fingerprint(const loom_csr *A);

#endif /* LOOM_SELECT_H */
