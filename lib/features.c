/*
 * features.c - the features of a sparse matrix that selection uses (and
 * `loom info` prints): sizes and the distribution of row lengths.
 * One pass over the row offsets: O(rows), cheap next to one SpMM.
 */
#include "config.h"
#include "loom_internal.h"

#include <math.h>

loom_status loom_csr_features(const loom_csr *A, loom_features *f)
{
    loom_status st = loom__check_csr(A, "loom_csr_features");
    if (st != LOOM_SUCCESS)
        return st;
    if (!f)
        return loom__error(LOOM_ERR_NULL_POINTER, "loom_csr_features: features is NULL");
    const int64_t *ro = A->memory == LOOM_MEMORY_HOST ? A->row_offsets : A->host_row_offsets;
    loom_features r = {0};
    r.rows = A->rows;
    r.cols = A->cols;
    r.nnz = A->nnz;
    /* Integer lengths, and the squares summed in four lanes: one chain of
     * dependent double additions costs 1 ns a row (260 us on a matrix of
     * 258k rows, more than its SpMV on a GPU).  The squares are integers,
     * so the sum is exact in any order while it stays below 2^53. */
    int64_t max = 0, min = A->rows > 0 ? INT64_MAX : 0, empty = 0, i = 0;
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
#define LOOM_FEATURES_ROW(i, s)                                                                    \
    do {                                                                                           \
        const int64_t len = ro[(i) + 1] - ro[(i)];                                                 \
        max = len > max ? len : max;                                                               \
        min = len < min ? len : min;                                                               \
        empty += len == 0;                                                                         \
        s += (double)len * (double)len;                                                            \
    } while (0)
    for (; i + 4 <= A->rows; i += 4) {
        LOOM_FEATURES_ROW(i, s0);
        LOOM_FEATURES_ROW(i + 1, s1);
        LOOM_FEATURES_ROW(i + 2, s2);
        LOOM_FEATURES_ROW(i + 3, s3);
    }
    for (; i < A->rows; i++)
        LOOM_FEATURES_ROW(i, s0);
#undef LOOM_FEATURES_ROW
    const double sum = (double)(A->rows > 0 ? ro[A->rows] - ro[0] : 0);
    const double sum_sq = (s0 + s1) + (s2 + s3);
    r.row_max = (double)max;
    r.row_min = (double)min;
    r.empty_rows = empty;
    if (A->rows > 0) {
        r.row_mean = sum / (double)A->rows;
        double var = sum_sq / (double)A->rows - r.row_mean * r.row_mean;
        r.row_std = var > 0 ? sqrt(var) : 0;
    }
    r.row_cv = r.row_mean > 0 ? r.row_std / r.row_mean : 0;
    r.max_over_mean = r.row_mean > 0 ? r.row_max / r.row_mean : 0;
    r.density = (A->rows > 0 && A->cols > 0) ? (double)A->nnz / ((double)A->rows * (double)A->cols) : 0;
    *f = r;
    return LOOM_SUCCESS;
}
