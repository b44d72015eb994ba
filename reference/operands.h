/*
 * operands.h - how the reference sees its operands: the CSR arrays, and a
 * dense matrix as a base pointer with a row stride and a column stride
 * (so one code path serves row-major and column-major storage).
 */
#ifndef LOOM_REFERENCE_OPERANDS_H
#define LOOM_REFERENCE_OPERANDS_H

#include <stdint.h>

typedef struct ref_csr {
    int64_t rows, cols;
    const int64_t *row_offsets; /* row i holds non-zeros row_offsets[i] .. row_offsets[i+1]-1 */
    const int32_t *col_indices;
    const void *values;
} ref_csr;

typedef struct ref_dense {
    void *data;
    int64_t row_stride; /* distance between (i, j) and (i+1, j) */
    int64_t col_stride; /* distance between (i, j) and (i, j+1) */
} ref_dense;

/* The arithmetic parameters of a strategy: all that changes the bits. */
typedef struct ref_order {
    int64_t chunk; /* EB: non-zeros per chunk */
    int lanes;     /* PR: lane width w */
} ref_order;

#endif
