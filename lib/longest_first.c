/*
 * longest_first.c - positions ordered by length, longest first, ties in
 * position order: the row orders of the sliced and binned layouts
 * (backends/openmp/omp_sell.c, backends/cuda/cuda_plan.c).
 */
#include "config.h"
#include "loom_internal.h"

#include <stdint.h>
#include <stdlib.h>

typedef struct {
    int64_t len, row;
} row_len;

static int longest_first(const void *a, const void *b)
{
    const row_len *x = a, *y = b;
    if (x->len != y->len)
        return x->len > y->len ? -1 : 1;
    return (x->row > y->row) - (x->row < y->row);
}

/* The positions 0..count-1 ordered by len, largest first, ties in position
 * order.  A counting sort, O(count + range): qsort took most of a plan's
 * preparation on matrices of many long rows (1 ms for 8.7k rows), and tune
 * prepares several plans.  qsort only when the lengths spread far wider
 * than their count.  NULL when out of memory. */
int64_t *loom__longest_first_order(const int64_t *len, int64_t count)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (int64_t i = 0; i < count; i++) {
        lo = len[i] < lo ? len[i] : lo;
        hi = len[i] > hi ? len[i] : hi;
    }
    int64_t *out = loom__malloc((size_t)(count > 0 ? count : 1) * sizeof *out);
    if (!out || count == 0)
        return out;
    const int64_t range = hi - lo + 1;
    if (range > 4 * count + 4096) {
        row_len *pairs = loom__malloc((size_t)count * sizeof *pairs);
        if (!pairs) {
            loom__free(out);
            return NULL;
        }
        for (int64_t i = 0; i < count; i++)
            pairs[i] = (row_len){len[i], i};
        qsort(pairs, (size_t)count, sizeof *pairs, longest_first);
        for (int64_t i = 0; i < count; i++)
            out[i] = pairs[i].row;
        loom__free(pairs);
        return out;
    }
    int64_t *start = loom__calloc((size_t)range + 1, sizeof *start);
    if (!start) {
        loom__free(out);
        return NULL;
    }
    for (int64_t i = 0; i < count; i++)
        start[hi - len[i] + 1]++;
    for (int64_t b = 0; b < range; b++)
        start[b + 1] += start[b];
    for (int64_t i = 0; i < count; i++)
        out[start[hi - len[i]]++] = i;
    loom__free(start);
    return out;
}
