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

/* A of the given row offsets ro (rows + 1 of them; taken over and freed):
 * sorted distinct random columns drawn from *state, values with full random
 * mantissas in [-1, 1) and some exact zeros and -0, f32 or f64.  Returns
 * NULL (with the message on stderr) on error. */
loom_csr *test_matrix_with_lengths(loom_context *ctx, loom_dtype dtype, int64_t rows, int64_t cols, int64_t *ro,
                                   uint64_t *state);

/* The unit-test matrices of data/unittest that are real-valued or pattern. */
extern const char *const test_unittest_files[];

/* A loom_csr read from LOOM_SRCDIR/data/unittest/<name>, or NULL. */
loom_csr *test_matrix_read(loom_context *ctx, const char *name, loom_dtype dtype);

uint64_t test_rand(uint64_t *state);

#endif
