/*
 * test_matrices.h - sparse matrices the tests run on: generated shapes that
 * stress each design (empty rows, one dense row, power-law rows,
 * rectangular) and the real unit-test matrices shipped in data/unittest.
 */
#ifndef LOOM_TEST_MATRICES_H
#define LOOM_TEST_MATRICES_H

#include <loom.h>
#include <stdint.h>

typedef enum test_shape {
    SHAPE_UNIFORM,   /* every row a few non-zeros */
    SHAPE_EMPTY_ROWS,/* half the rows empty, including the first and last */
    SHAPE_DENSE_ROW, /* one row with every column set */
    SHAPE_POWER_LAW, /* row lengths from a Zipf-like law, some very long */
    SHAPE_TALL,      /* rectangular, rows >> cols */
    SHAPE_WIDE,      /* rectangular, cols >> rows */
    SHAPE_COUNT
} test_shape;

const char *test_shape_name(test_shape shape);

/* A random matrix of the given shape; values uniform in [-1, 1) with full
 * random mantissas.  Returns NULL (and fails the test) on error. */
loom_csr *test_matrix_make(loom_context *ctx, test_shape shape, loom_dtype dtype, uint64_t seed);

/* The unit-test matrices of data/unittest that are real-valued or pattern. */
extern const char *const test_unittest_files[];

/* A loom_csr read from LOOM_SRCDIR/data/unittest/<name>, or NULL. */
loom_csr *test_matrix_read(loom_context *ctx, const char *name, loom_dtype dtype);

uint64_t test_rand(uint64_t *state);

#endif
