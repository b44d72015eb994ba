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
    double sum = 0, sum_sq = 0;
    r.row_min = A->rows > 0 ? INFINITY : 0;
    for (int64_t i = 0; i < A->rows; i++) {
        double len = (double)(ro[i + 1] - ro[i]);
        sum += len;
        sum_sq += len * len;
        if (len > r.row_max)
            r.row_max = len;
        if (len < r.row_min)
            r.row_min = len;
        if (len == 0)
            r.empty_rows++;
    }
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
