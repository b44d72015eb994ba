/* run_record.c - writing cross-check files (see run_record.h). */
#include "run_record.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record_format.h"

/* A host, row-major, packed copy of d, as the file stores it. */
static int packed_copy(loom_context *ctx, const loom_dense *d, loom_dense *out)
{
    if (loom_dense_alloc(ctx, out, d->rows, d->cols, LOOM_ROW_MAJOR, d->dtype, LOOM_MEMORY_HOST) !=
        LOOM_SUCCESS)
        return -1;
    if (d->rows * d->cols > 0 && loom_dense_copy(ctx, d, out) != LOOM_SUCCESS) {
        loom_dense_free(ctx, out);
        return -1;
    }
    return 0;
}

int tool_record_save(loom_context *ctx, const char *path, const loom_csr *A, const loom_dense *X,
                     const loom_dense *Y0, const loom_dense *Y, const loom_strategy *s,
                     loom_backend_id backend, double alpha, double beta)
{
    int64_t m, k, nnz;
    loom_dtype dtype;
    const int64_t *ro;
    const int32_t *ci;
    const void *vals;
    loom_csr_info(A, &m, &k, &nnz, &dtype, NULL);
    loom_csr_arrays(A, &ro, &ci, &vals);
    int64_t n = X->cols;
    size_t es = loom_dtype_size(dtype);

    loom_dense x = {0}, y0 = {0}, y = {0};
    if (packed_copy(ctx, X, &x) || (beta != 0 && packed_copy(ctx, Y0, &y0)) || packed_copy(ctx, Y, &y)) {
        fprintf(stderr, "loom: --save: %s\n", loom_last_error());
        loom_dense_free(ctx, &x);
        loom_dense_free(ctx, &y0);
        return 2;
    }
    char design[256];
    loom_strategy_format(s, design, sizeof design);
    char header[1024];
    int hl = snprintf(header, sizeof header,
                      "dtype %s\nstrategy %s\nbackend %s\nalpha %a\nbeta %a\nrows %" PRId64
                      "\ncols %" PRId64 "\nn %" PRId64 "\nnnz %" PRId64 "\n",
                      loom_dtype_name(dtype), design, loom_backend_name(backend), alpha, beta, m, k,
                      n, nnz);
    record_section sections[5] = {
        {ro, (size_t)(m + 1) * sizeof(int64_t)},
        {ci, (size_t)nnz * sizeof(int32_t)},
        {vals, (size_t)nnz * es},
        {x.data, (size_t)(k * n) * es},
        {beta != 0 ? y0.data : NULL, beta != 0 ? (size_t)(m * n) * es : 0},
    };
    uint64_t h = record_hash(RECORD_HASH_SEED, header, (size_t)hl);
    for (int i = 0; i < 5; i++)
        h = record_hash(h, sections[i].data, sections[i].bytes);
    size_t y_bytes = (size_t)(m * n) * es;
    uint64_t hy = record_hash(RECORD_HASH_SEED, y.data, y_bytes);

    int status = 0;
    FILE *f = fopen(path, "wb");
    if (!f) {
        fprintf(stderr, "loom: --save: cannot create %s: %s\n", path, strerror(errno));
        status = 2;
    } else {
        fwrite(RECORD_MAGIC, 1, 8, f);
        fwrite(header, 1, (size_t)hl, f);
        fprintf(f, "inputs %016" PRIx64 "\noutput %016" PRIx64 "\n\n", h, hy);
        for (int i = 0; i < 5; i++)
            if (sections[i].bytes)
                fwrite(sections[i].data, 1, sections[i].bytes, f);
        if (y_bytes)
            fwrite(y.data, 1, y_bytes, f);
        if (ferror(f) | fclose(f)) {
            fprintf(stderr, "loom: --save: writing %s failed: %s\n", path, strerror(errno));
            status = 2;
        }
    }
    loom_dense_free(ctx, &x);
    loom_dense_free(ctx, &y0);
    loom_dense_free(ctx, &y);
    return status;
}
