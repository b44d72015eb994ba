/*
 * eb_chunks.c - EB preprocessing: the row holding the first non-zero of
 * each chunk, so a worker can start its chunk without searching.
 * first_row[chunks] = rows closes the array.
 */
#include "config.h"
#include "loom_internal.h"

/* The first row whose end lies beyond position p: the row holding non-zero p
 * (empty rows before it are skipped). */
static int64_t row_of(const int64_t *row_offsets, int64_t rows, int64_t p)
{
    int64_t lo = 0, hi = rows; /* answer in [lo, hi] */
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (row_offsets[mid + 1] <= p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

loom_status loom__eb_chunk_rows(const int64_t *row_offsets, int64_t rows, int64_t nnz, int64_t chunk,
                                int64_t **first_row, int64_t *chunks)
{
    int64_t n = nnz == 0 ? 0 : (nnz - 1) / chunk + 1;
    int64_t *fr = loom__malloc(((size_t)n + 1) * sizeof *fr);
    if (!fr)
        return loom__error(LOOM_ERR_OUT_OF_MEMORY, "EB preprocessing: out of memory");
    for (int64_t c = 0; c < n; c++)
        fr[c] = row_of(row_offsets, rows, c * chunk);
    fr[n] = rows;
    *first_row = fr;
    *chunks = n;
    return LOOM_SUCCESS;
}
