/*
 * order_eb.h - what EB (element balance) designs share: the chunks.
 *
 * The non-zeros 0 .. nnz-1 are cut into chunks of C consecutive non-zeros,
 * chunk c holding [c*C, (c+1)*C).  A worker owns a chunk, whatever rows it
 * crosses.  The part of row i inside chunk c is a "piece"; the worker sums
 * each of its pieces (by SR or PR, see order_eb_sr.h and order_eb_pr.h).
 * A row that lies in one chunk is finished by that worker; a row that
 * crosses chunk boundaries is finished by the fix-up, which adds the row's
 * pieces in chunk order, left to right:
 *
 *     result = piece(first chunk)
 *     for each later chunk c touching row i:  result = result + piece(c)
 *
 * (no atomics: the order is fixed, so every run gives the same bits).
 * An empty row touches no chunk and its result is +0.
 *
 * The reference computes this row by row: for row i it visits the chunks
 * i touches in increasing order.  That is the same sequence of operations
 * the chunk workers and the fix-up perform; only the bookkeeping differs.
 */
#ifndef LOOM_REFERENCE_ORDER_EB_H
#define LOOM_REFERENCE_ORDER_EB_H

#include <stdint.h>

/* The piece of row [row_start, row_end) inside chunk c. */
static inline void eb_piece(int64_t row_start, int64_t row_end, int64_t chunk, int64_t c,
                            int64_t *begin, int64_t *end)
{
    int64_t chunk_begin = c * chunk, chunk_end = chunk_begin + chunk;
    *begin = row_start > chunk_begin ? row_start : chunk_begin;
    *end = row_end < chunk_end ? row_end : chunk_end;
}

#endif
