/*
 * csr_validate.c - the CSR format's rules, checked with a message that names
 * the first violation (row, position, index):
 *   0 <= rows, 0 <= cols <= INT32_MAX (column indices are int32), 0 <= nnz;
 *   row_offsets[0] == 0, non-decreasing, row_offsets[rows] == nnz;
 *   every column index in [0, cols), strictly increasing within a row
 *   (sorted, no duplicates: the designs' summation order is defined on the
 *   stored order, and a duplicate would be a second term the user did not mean).
 */
#include "config.h"
#include "loom_internal.h"

#include <inttypes.h>

static loom_status check_dimensions(int64_t rows, int64_t cols, int64_t nnz)
{
    if (rows < 0 || cols < 0 || nnz < 0)
        return loom__error(LOOM_ERR_INVALID_ARGUMENT,
                           "CSR: negative size (rows %" PRId64 ", cols %" PRId64 ", nnz %" PRId64 ")",
                           rows, cols, nnz);
    if (cols > INT32_MAX)
        return loom__error(LOOM_ERR_OVERFLOW,
                           "CSR: %" PRId64 " columns do not fit 32-bit column indices (max %d)",
                           cols, INT32_MAX);
    size_t bytes;
    if (rows == INT64_MAX || !loom__mul_size((size_t)rows + 1, sizeof(int64_t), &bytes) ||
        !loom__mul_size((size_t)nnz, sizeof(double), &bytes))
        return loom__error(LOOM_ERR_OVERFLOW,
                           "CSR: rows %" PRId64 " or nnz %" PRId64 " overflows the address space",
                           rows, nnz);
    return LOOM_SUCCESS;
}

static loom_status check_row_offsets(int64_t rows, int64_t nnz, const int64_t *row_offsets)
{
    if (row_offsets[0] != 0)
        return loom__error(LOOM_ERR_INVALID_MATRIX,
                           "CSR: row_offsets[0] is %" PRId64 ", must be 0", row_offsets[0]);
    for (int64_t i = 0; i < rows; i++)
        if (row_offsets[i + 1] < row_offsets[i])
            return loom__error(LOOM_ERR_INVALID_MATRIX,
                               "CSR: row offsets decrease at row %" PRId64 " (%" PRId64
                               " then %" PRId64 ")",
                               i, row_offsets[i], row_offsets[i + 1]);
    if (row_offsets[rows] != nnz)
        return loom__error(LOOM_ERR_INVALID_MATRIX,
                           "CSR: row_offsets[%" PRId64 "] is %" PRId64 ", must equal nnz %" PRId64,
                           rows, row_offsets[rows], nnz);
    return LOOM_SUCCESS;
}

static loom_status check_columns(int64_t rows, int64_t cols, const int64_t *row_offsets,
                                 const int32_t *col_indices)
{
    for (int64_t i = 0; i < rows; i++) {
        for (int64_t j = row_offsets[i]; j < row_offsets[i + 1]; j++) {
            int32_t c = col_indices[j];
            if (c < 0 || c >= cols)
                return loom__error(LOOM_ERR_INVALID_MATRIX,
                                   "CSR: row %" PRId64 ", non-zero %" PRId64
                                   ": column index %d out of range 0..%" PRId64,
                                   i, j, (int)c, cols - 1);
            if (j > row_offsets[i] && c <= col_indices[j - 1])
                return loom__error(LOOM_ERR_INVALID_MATRIX,
                                   "CSR: row %" PRId64 ", non-zero %" PRId64 ": column %d %s "
                                   "column %d (columns must be sorted and unique within a row)",
                                   i, j, (int)c, c == col_indices[j - 1] ? "duplicates" : "follows",
                                   (int)col_indices[j - 1]);
        }
    }
    return LOOM_SUCCESS;
}

loom_status loom_csr_validate(int64_t rows, int64_t cols, int64_t nnz, const int64_t *row_offsets,
                              const int32_t *col_indices)
{
    loom_status st = check_dimensions(rows, cols, nnz);
    if (st != LOOM_SUCCESS)
        return st;
    if (!row_offsets)
        return loom__error(LOOM_ERR_NULL_POINTER, "CSR: row_offsets is NULL");
    if (!col_indices && nnz > 0)
        return loom__error(LOOM_ERR_NULL_POINTER, "CSR: col_indices is NULL with nnz %" PRId64, nnz);
    st = check_row_offsets(rows, nnz, row_offsets);
    if (st != LOOM_SUCCESS)
        return st;
    return check_columns(rows, cols, row_offsets, col_indices);
}
