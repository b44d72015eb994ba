/*
 * loom.h - the public C API of loom, a library of sparse-matrix kernels.
 *
 * One operation today: SpMM, Y = alpha*A*X + beta*Y, with A a sparse CSR
 * matrix (M x K) and X, Y dense (K x N and M x N).  N = 1 is SpMV.
 *
 * The shape of the API is inspector-executor: describe the matrix, make a
 * plan once (validation, selection of a design, preprocessing), execute it
 * many times, ask the plan to explain its choice.
 *
 * The contract: a strategy fixes the exact order of floating-point
 * operations.  Every backend running a strategy with the same arithmetic
 * parameters produces the same bits as the sequential reference.  See
 * loom-designs(7).
 *
 * Every function that can fail returns a loom_status; on failure a message
 * naming what is wrong is kept for the calling thread (loom_last_error).
 */
#ifndef LOOM_H
#define LOOM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) && !defined(LOOM_STATIC_BUILD)
#define LOOM_API __attribute__((visibility("default")))
#else
#define LOOM_API
#endif

#define LOOM_VERSION_MAJOR 0
#define LOOM_VERSION_MINOR 1
#define LOOM_VERSION_PATCH 0

/* ---------------------------------------------------------------- status */

typedef enum loom_status {
    LOOM_SUCCESS = 0,
    LOOM_ERR_NULL_POINTER = -1,        /* a required pointer argument is NULL */
    LOOM_ERR_INVALID_ARGUMENT = -2,    /* a value out of its documented range */
    LOOM_ERR_INVALID_MATRIX = -3,      /* CSR arrays violate the format */
    LOOM_ERR_DIMENSION_MISMATCH = -4,  /* operand shapes do not fit */
    LOOM_ERR_OUT_OF_MEMORY = -5,       /* host or device allocation failed */
    LOOM_ERR_NOT_SUPPORTED = -6,       /* valid request this build/backend cannot do */
    LOOM_ERR_BACKEND_UNAVAILABLE = -7, /* backend not built, or no device/driver */
    LOOM_ERR_IO = -8,                  /* a file could not be opened, read or written */
    LOOM_ERR_PARSE = -9,               /* a file's content is malformed */
    LOOM_ERR_OVERFLOW = -10,           /* a size does not fit the index types */
    LOOM_ERR_DEVICE = -11,             /* the device runtime reported an error */
    LOOM_ERR_INVALID_OBJECT = -12,     /* a handle that is freed or uninitialised */
    LOOM_ERR_INTERNAL = -13            /* a bug in loom; please report it */
} loom_status;

LOOM_API const char *loom_strerror(loom_status status);
LOOM_API const char *loom_last_error(void);
LOOM_API void loom_version(int *major, int *minor, int *patch);

/* ----------------------------------------------------------------- types */

typedef enum loom_dtype {
    LOOM_F32 = 0,
    LOOM_F64 = 1,
    LOOM_F16 = 2, /* IEEE binary16, stored as its 16 bits; tensor-core strategies only */
    LOOM_BF16 = 3 /* bfloat16 (the top half of a float), 16 bits; tensor-core strategies only */
} loom_dtype;

typedef enum loom_memory {
    LOOM_MEMORY_HOST = 0,
    LOOM_MEMORY_DEVICE = 1 /* CUDA device memory of the context's device */
} loom_memory;

typedef enum loom_layout {
    LOOM_ROW_MAJOR = 0,
    LOOM_COL_MAJOR = 1
} loom_layout;

typedef enum loom_backend_id {
    LOOM_BACKEND_AUTO = -1, /* the context's first available backend */
    LOOM_BACKEND_REFERENCE = 0,
    LOOM_BACKEND_OPENMP = 1,
    LOOM_BACKEND_CUDA = 2,
    LOOM_BACKEND_COUNT = 3
} loom_backend_id;

LOOM_API size_t loom_dtype_size(loom_dtype dtype);
LOOM_API const char *loom_dtype_name(loom_dtype dtype);
LOOM_API const char *loom_backend_name(loom_backend_id id);
LOOM_API loom_status loom_backend_from_name(const char *name, loom_backend_id *id);
LOOM_API loom_status loom_backend_available(loom_backend_id id);
LOOM_API loom_status loom_backend_describe_hardware(loom_backend_id id, char *buf, size_t len);

/* --------------------------------------------------------------- context */

typedef struct loom_context loom_context;

LOOM_API loom_status loom_context_create(loom_context **ctx);
LOOM_API loom_status loom_context_destroy(loom_context **ctx);
LOOM_API loom_status loom_context_set_backend(loom_context *ctx, loom_backend_id id);
LOOM_API loom_status loom_context_get_backend(const loom_context *ctx, loom_backend_id *id);
LOOM_API loom_status loom_context_set_threads(loom_context *ctx, int threads);
LOOM_API loom_status loom_context_set_stream(loom_context *ctx, void *cuda_stream);

/* ------------------------------------------------------------ CSR matrix */

typedef struct loom_csr loom_csr;

LOOM_API loom_status loom_csr_create(loom_context *ctx, loom_csr **A, int64_t rows,
                                     int64_t cols, int64_t nnz, loom_dtype dtype,
                                     const int64_t *row_offsets, const int32_t *col_indices,
                                     const void *values);
LOOM_API loom_status loom_csr_destroy(loom_csr **A);
LOOM_API loom_status loom_csr_copy(loom_context *ctx, const loom_csr *A, loom_memory memory,
                                   loom_csr **copy);
LOOM_API loom_status loom_csr_info(const loom_csr *A, int64_t *rows, int64_t *cols,
                                   int64_t *nnz, loom_dtype *dtype, loom_memory *memory);
LOOM_API loom_status loom_csr_arrays(const loom_csr *A, const int64_t **row_offsets,
                                     const int32_t **col_indices, const void **values);
LOOM_API loom_status loom_csr_validate(int64_t rows, int64_t cols, int64_t nnz,
                                       const int64_t *row_offsets, const int32_t *col_indices);

typedef struct loom_features {
    int64_t rows, cols, nnz;
    double row_mean, row_std, row_max, row_min; /* non-zeros per row */
    double row_cv;                              /* std / mean (0 when mean is 0) */
    double max_over_mean;                       /* max / mean (0 when mean is 0) */
    int64_t empty_rows;
    double density; /* nnz / (rows * cols) */
} loom_features;

LOOM_API loom_status loom_csr_features(const loom_csr *A, loom_features *features);

/* ---------------------------------------------------------- dense matrix */

/* A plain descriptor; the caller owns data unless loom_dense_alloc made it.
 * Element (i, j) is data[i*ld + j] (row-major) or data[i + j*ld] (column-major). */
typedef struct loom_dense {
    int64_t rows, cols, ld;
    loom_layout layout;
    loom_dtype dtype;
    loom_memory memory;
    void *data;
} loom_dense;

LOOM_API loom_status loom_dense_init(loom_dense *d, int64_t rows, int64_t cols, int64_t ld,
                                     loom_layout layout, loom_dtype dtype, loom_memory memory,
                                     void *data);
LOOM_API loom_status loom_dense_alloc(loom_context *ctx, loom_dense *d, int64_t rows,
                                      int64_t cols, loom_layout layout, loom_dtype dtype,
                                      loom_memory memory);
LOOM_API loom_status loom_dense_free(loom_context *ctx, loom_dense *d);
LOOM_API loom_status loom_dense_copy(loom_context *ctx, const loom_dense *src, loom_dense *dst);
LOOM_API loom_status loom_dense_fill_random(loom_dense *d, uint64_t seed);

typedef struct loom_compare_result {
    int64_t differing;     /* elements whose bits differ */
    int64_t first_row, first_col; /* first differing element (-1 when none) */
    double first_a, first_b;
    uint64_t max_ulp;      /* largest ULP distance over all elements */
    double max_abs_diff;
} loom_compare_result;

LOOM_API loom_status loom_dense_compare(const loom_dense *a, const loom_dense *b,
                                        loom_compare_result *result);

/* -------------------------------------------------------------- strategy */

typedef enum loom_mloop { LOOM_M_RB = 0, LOOM_M_EB = 1 } loom_mloop;
typedef enum loom_nloop { LOOM_N_RM = 0, LOOM_N_CM = 1 } loom_nloop;
typedef enum loom_kloop {
    LOOM_K_SR = 0,
    LOOM_K_PR = 1,
    LOOM_K_TC = 2 /* tensor cores (TCA-SpMM): row pieces as small matrix products */
} loom_kloop;

/* Operand precision of a tensor-core strategy (the MMA's input type); the
 * products accumulate in float.  Part of the arithmetic, like lanes. */
typedef enum loom_tc_precision {
    LOOM_TC_NONE = 0, /* not a tensor-core strategy */
    LOOM_TC_F16 = 1,  /* fp16 operands: mma m16n8k16 or m16n8k8 */
    LOOM_TC_BF16 = 2, /* bf16 operands: mma m16n8k16 or m16n8k8 */
    LOOM_TC_TF32 = 3  /* tf32 operands (float input): mma m16n8k8 or m16n8k4 */
} loom_tc_precision;

/* How a tensor-core strategy cuts the products into MMAs; part of the
 * arithmetic.  ROWS (TCA-SpMM): groups of k consecutive non-zeros of a row.
 * TILES: slices of k consecutive columns of K, a dense MMA per 16-row tile
 * (pays for large layers of moderate sparsity; f16/bf16 with k = 16 on
 * cuda).  loom-designs(7) gives both summation orders. */
typedef enum loom_tc_form {
    LOOM_TC_ROWS = 0,
    LOOM_TC_TILES = 1
} loom_tc_form;

/* Techniques change speed, never the arithmetic. */
#define LOOM_TECH_VDL 0x1u     /* vector loads of dense rows (float2/float4) */
#define LOOM_TECH_CSC 0x2u     /* cache a sparse row segment in shared memory */
#define LOOM_TECH_BINNING 0x4u /* group rows of similar length */
#define LOOM_TECH_TILE_MAJOR 0x8u /* wide SR walks: a column tile over all rows, then the next */

#define LOOM_DESIGN_COUNT 8
#define LOOM_LANES_MAX 256   /* RB + PR: a row's lanes may span up to 8 warps */
#define LOOM_EB_LANES_MAX 32 /* EB + PR: a chunk's segmented tree is one warp */

typedef struct loom_strategy {
    loom_mloop mloop;
    int64_t chunk;       /* EB: non-zeros per chunk (>= 1; multiple of lanes under PR) */
    loom_nloop nloop;
    loom_kloop kloop;
    int lanes;           /* PR: lane width, a power of two in 2..256 (2..32 under EB) */
    unsigned techniques; /* LOOM_TECH_* flags */
    int coarsen;         /* output columns per worker; 0 lets the backend choose */
    /* LOOM_K_TC only: operand precision and MMA depth k (16 or 8 for
     * F16/BF16, 8 or 4 for TF32), and the form.  Text form:
     * rb-rm-tc:f16,k=16 (rows) or rb-rm-tc:f16,k=16,tiles. */
    loom_tc_precision tc_precision;
    int tc_k;
    loom_tc_form tc_form;
} loom_strategy;

LOOM_API loom_status loom_strategy_design(int index, loom_strategy *s);
LOOM_API loom_status loom_strategy_parse(const char *text, loom_strategy *s);
LOOM_API loom_status loom_strategy_format(const loom_strategy *s, char *buf, size_t len);
LOOM_API loom_status loom_strategy_check(const loom_strategy *s);

/* ------------------------------------------------------------ SpMM plans */

typedef enum loom_selector {
    LOOM_SELECT_AUTO = 0,  /* the trained model when one exists, else the rules */
    LOOM_SELECT_RULES = 1, /* the decision procedure of the papers */
    LOOM_SELECT_FIXED = 2, /* use options.strategy as given */
    LOOM_SELECT_MODEL = 3, /* the backend's trained model (loom-model(5)); an error when none */
    LOOM_SELECT_TUNE = 4   /* time candidates on this input once, cache the winner */
} loom_selector;

/* Selection data: the model a backend's plans use (path NULL: go back to
 * $LOOM_MODEL_DIR or the installed one), and the tune cache, a text file
 * ($LOOM_TUNE_CACHE, else $XDG_CACHE_HOME/loom/tune.txt). */
LOOM_API loom_status loom_model_load(loom_backend_id backend, const char *path);
LOOM_API loom_status loom_tune_cache_path(char *buf, size_t len);
LOOM_API loom_status loom_tune_cache_clear(void);

typedef struct loom_plan_options {
    loom_backend_id backend;       /* LOOM_BACKEND_AUTO: the context's choice */
    loom_selector selector;
    loom_strategy strategy;        /* used when selector is LOOM_SELECT_FIXED */
} loom_plan_options;

/* A plan borrows A: destroy the plan before the matrix.  Several threads
 * may execute one plan at once on different Y; those executions take turns
 * (a plan owns scratch space), so give each thread its own plan to run in
 * parallel. */
typedef struct loom_plan loom_plan;

LOOM_API loom_status loom_plan_options_init(loom_plan_options *opts);
LOOM_API loom_status loom_spmm_plan_create(loom_context *ctx, loom_plan **plan,
                                           const loom_csr *A, const loom_dense *X,
                                           const loom_dense *Y, const loom_plan_options *opts);
LOOM_API loom_status loom_spmm_execute(loom_plan *plan, double alpha, const loom_dense *X,
                                       double beta, loom_dense *Y);
LOOM_API loom_status loom_plan_destroy(loom_plan **plan);
LOOM_API loom_status loom_plan_strategy(const loom_plan *plan, loom_strategy *s,
                                        loom_backend_id *backend);
LOOM_API const char *loom_plan_explain(const loom_plan *plan);

/* ------------------------------------------------------- Matrix Market */

/* Reads .mtx and DLMC .smtx files, gzip-compressed or not (by content).
 * Pattern matrices get value 1; symmetric storage is expanded. */
LOOM_API loom_status loom_csr_read(loom_context *ctx, const char *path, loom_dtype dtype,
                                   loom_csr **A);
/* The same from a buffer in memory; `name` is used in messages and, like a
 * file name, may end in .smtx to select the DLMC format (gzip is detected). */
LOOM_API loom_status loom_csr_read_memory(loom_context *ctx, const void *data, size_t size,
                                          const char *name, loom_dtype dtype, loom_csr **A);
LOOM_API loom_status loom_csr_write(const loom_csr *A, const char *path);
LOOM_API loom_status loom_dense_read(loom_context *ctx, const char *path, loom_dtype dtype,
                                     loom_layout layout, loom_dense *d);
LOOM_API loom_status loom_dense_write(const loom_dense *d, const char *path);

#ifdef __cplusplus
}
#endif

/* Dual-side sparsity: the bitmap format, dual-side GEMM, sparse convolution. */
#include "loom/bitmap.h"

#endif /* LOOM_H */
