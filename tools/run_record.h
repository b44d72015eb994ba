/*
 * run_record.h - the cross-check file of `loom spmm --save run.loom` and
 * `loom verify run.loom`: everything needed to recompute a result with the
 * reference on another machine, and the result itself.
 *
 * Layout (all integers and floats little-endian, as on every machine loom
 * builds for; verify refuses a big-endian host):
 *   "LOOMRUN1"                      8 bytes
 *   header: text lines "key value\n", ending with an empty line:
 *     dtype f32|f64   strategy <text>   backend <name>   alpha <%a>  beta <%a>
 *     rows M  cols K  n N  nnz NNZ   inputs <fnv1a64 hex>   output <fnv1a64 hex>
 *   row offsets (int64 x M+1), column indices (int32 x NNZ), values (dtype x NNZ),
 *   X (K x N, row-major), Y before the call (M x N, row-major; only when beta != 0),
 *   Y after the call (M x N, row-major).
 * "inputs" hashes the header lines before it and every section but the last;
 * "output" hashes the last section, so a changed file is told apart from a
 * result that does not reproduce.
 */
#ifndef TOOL_RUN_RECORD_H
#define TOOL_RUN_RECORD_H

#include <loom.h>

/* Write the record; Y0 is Y's content before the call (NULL when beta == 0).
 * Returns 0, or prints "loom: ..." and returns non-zero. */
int tool_record_save(loom_context *ctx, const char *path, const loom_csr *A, const loom_dense *X,
                     const loom_dense *Y0, const loom_dense *Y, const loom_strategy *s,
                     loom_backend_id backend, double alpha, double beta);

#endif /* TOOL_RUN_RECORD_H */
