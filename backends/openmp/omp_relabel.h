/*
 * omp_relabel.h - N = 1: A's columns relabeled at plan time so that the
 * entries of x that most non-zeros read share cache lines, and x gathered
 * into that order at each execution (omp_relabel.c).
 */
#ifndef LOOM_OMP_RELABEL_H
#define LOOM_OMP_RELABEL_H

#include "loom.h"

#include <stddef.h>
#include <stdint.h>

/* kp == 0: no relabeling (x is read in place). */
typedef struct omp_relabel {
    int64_t kp;   /* relabeled columns: A's columns that hold a non-zero */
    int32_t *src; /* kp: the column of A that relabeled column j stands for */
    int32_t *cols; /* nnz: A's column indices relabeled, CSR order (NULL once
                    * a sliced copy carries them instead) */
    void *xp;     /* kp reals: x in the relabeled order, rewritten at each execution */
    size_t bytes; /* of src, cols and xp */
    /* What decided it (the plan's explain text): the share of x's reads
     * that the hottest `budget` bytes of x take, as A's columns lie and
     * relabeled; budget is the L2 of one core. */
    size_t budget;
    double hot_before, hot_after;
    char why[400];
} omp_relabel;

#define OMP_RELABEL_API __attribute__((visibility("hidden")))

/* Decide for A (N = 1, es-byte reals, l2 bytes of L2 per core, l2_source
 * saying where that number came from) and, when it pays, make the
 * relabeling in *r; r->why says which way and why either way.  force: 1
 * always relabel (tests), 0 never, -1 decide.  threads: for the O(nnz)
 * relabeling of the column indices. */
OMP_RELABEL_API loom_status omp_relabel_plan(omp_relabel *r, const loom_csr *A, size_t es,
                                             size_t l2, const char *l2_source, int force,
                                             int threads);
/* x (stride xs) into r->xp in the relabeled order, with threads threads. */
OMP_RELABEL_API void omp_relabel_gather(const omp_relabel *r, const void *x, int64_t xs, size_t es,
                                        int threads);
OMP_RELABEL_API void omp_relabel_free(omp_relabel *r);

#endif
