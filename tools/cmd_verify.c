/*
 * cmd_verify.c - `loom verify run.loom`: recompute a saved result with the
 * reference (on any machine, no GPU needed) and report bit-exact agreement
 * or the first differing elements with their ULP distance.
 *
 * Exit status: 0 bit-exact; 3 the result does not reproduce; 2 the file is
 * unreadable, truncated or was changed after it was written.
 */
#include "config.h"
#include "commands.h"
#include "options.h"
#include "record_format.h"

#include <loom.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHOW_DIFFERENCES 10

typedef struct record {
    char dtype[8], strategy[256], backend[32];
    double alpha, beta;
    int64_t rows, cols, n, nnz;
    uint64_t inputs_hash, output_hash;
    size_t header_hashed; /* bytes of header covered by inputs_hash */
    unsigned char *bytes;
    size_t size, body; /* whole file; offset of the first section */
} record;

static int fail(const char *path, const char *what)
{
    fprintf(stderr, "loom: verify: %s: %s\n", path, what);
    return TOOL_EXIT_RUNTIME;
}

static int read_file(const char *path, record *r)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "loom: verify: cannot open %s: %s\n", path, strerror(errno));
        return TOOL_EXIT_RUNTIME;
    }
    size_t cap = 1 << 16, size = 0;
    unsigned char *buf = malloc(cap);
    for (size_t got; buf && (got = fread(buf + size, 1, cap - size, f)) > 0;) {
        size += got;
        if (size < cap)
            continue;
        unsigned char *grown = realloc(buf, cap * 2);
        if (!grown) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = grown;
        cap *= 2;
    }
    fclose(f);
    if (!buf)
        return fail(path, "out of memory");
    r->bytes = buf;
    r->size = size;
    return 0;
}

/* Parse "key value" lines up to the empty line. */
static int parse_header(const char *path, record *r)
{
    if (r->size < 8 || memcmp(r->bytes, RECORD_MAGIC, 8) != 0)
        return fail(path, "not a loom run record (no LOOMRUN1 magic)");
    size_t pos = 8;
    int seen = 0;
    while (pos < r->size) {
        unsigned char *nl = memchr(r->bytes + pos, '\n', r->size - pos);
        if (!nl)
            return fail(path, "truncated header");
        size_t len = (size_t)(nl - (r->bytes + pos));
        if (len == 0) {
            r->body = pos + 1;
            break;
        }
        char line[512];
        if (len >= sizeof line)
            return fail(path, "header line too long");
        memcpy(line, r->bytes + pos, len);
        line[len] = '\0';
        char key[32], value[480];
        if (sscanf(line, "%31s %479s", key, value) != 2)
            return fail(path, "malformed header line");
        if (strcmp(key, "inputs") == 0) {
            r->header_hashed = pos - 8;
            r->inputs_hash = strtoull(value, NULL, 16);
        } else if (strcmp(key, "output") == 0) {
            r->output_hash = strtoull(value, NULL, 16);
        } else if (strcmp(key, "dtype") == 0) {
            snprintf(r->dtype, sizeof r->dtype, "%.7s", value);
        } else if (strcmp(key, "strategy") == 0) {
            snprintf(r->strategy, sizeof r->strategy, "%.255s", value);
        } else if (strcmp(key, "backend") == 0) {
            snprintf(r->backend, sizeof r->backend, "%.31s", value);
        } else if (strcmp(key, "alpha") == 0) {
            r->alpha = strtod(value, NULL);
        } else if (strcmp(key, "beta") == 0) {
            r->beta = strtod(value, NULL);
        } else {
            int64_t v = strtoll(value, NULL, 10);
            if (strcmp(key, "rows") == 0) r->rows = v;
            else if (strcmp(key, "cols") == 0) r->cols = v;
            else if (strcmp(key, "n") == 0) r->n = v;
            else if (strcmp(key, "nnz") == 0) r->nnz = v;
            else return fail(path, "unknown header key");
        }
        seen++;
        pos += len + 1;
    }
    if (!r->body || seen < 11)
        return fail(path, "incomplete header");
    if (r->rows < 0 || r->cols < 0 || r->n < 0 || r->nnz < 0 || r->rows > (1ll << 40) ||
        r->cols > (1ll << 40) || r->n > (1ll << 30) || r->nnz > (1ll << 40))
        return fail(path, "sizes in the header are out of range");
    return 0;
}

static void print_difference(const loom_dense *got, const loom_dense *want, int64_t i, int64_t j)
{
    size_t es = loom_dtype_size(got->dtype);
    int64_t off = i * got->ld + j;
    double a, b;
    uint64_t ua = 0, ub = 0;
    if (got->dtype == LOOM_F32) {
        float fa = ((float *)got->data)[off], fb = ((float *)want->data)[off];
        a = fa, b = fb;
        memcpy(&ua, &fa, es), memcpy(&ub, &fb, es);
    } else {
        a = ((double *)got->data)[off], b = ((double *)want->data)[off];
        memcpy(&ua, &a, es), memcpy(&ub, &b, es);
    }
    /* ULP distance on the ordered integer line of the format. */
    int64_t sa, sb;
    if (got->dtype == LOOM_F32) {
        int32_t x = (int32_t)ua, y = (int32_t)ub;
        sa = x < 0 ? (int64_t)INT32_MIN - x : x;
        sb = y < 0 ? (int64_t)INT32_MIN - y : y;
    } else {
        int64_t x = (int64_t)ua, y = (int64_t)ub;
        sa = x < 0 ? INT64_MIN - x : x;
        sb = y < 0 ? INT64_MIN - y : y;
    }
    uint64_t ulp = sa > sb ? (uint64_t)sa - (uint64_t)sb : (uint64_t)sb - (uint64_t)sa;
    printf("  Y(%" PRId64 ",%" PRId64 "): recorded %.17g, reference %.17g, %" PRIu64 " ulp apart\n",
           i, j, a, b, ulp);
}

static int recompute(const char *path, record *r)
{
    loom_dtype dtype = strcmp(r->dtype, "f64") == 0 ? LOOM_F64 : LOOM_F32;
    size_t es = loom_dtype_size(dtype);
    size_t y_bytes = (size_t)(r->rows * r->n) * es;
    size_t sizes[6] = {(size_t)(r->rows + 1) * 8, (size_t)r->nnz * 4, (size_t)r->nnz * es,
                       (size_t)(r->cols * r->n) * es, r->beta != 0 ? y_bytes : 0, y_bytes};
    size_t need = r->body;
    for (int i = 0; i < 6; i++)
        need += sizes[i];
    if (r->size != need)
        return fail(path, r->size < need ? "truncated: sections are shorter than the header says"
                                         : "longer than the header says");
    uint64_t h = record_hash(RECORD_HASH_SEED, r->bytes + 8, r->header_hashed);
    const unsigned char *p = r->bytes + r->body;
    for (int i = 0; i < 5; i++) {
        h = record_hash(h, p, sizes[i]);
        p += sizes[i];
    }
    if (h != r->inputs_hash)
        return fail(path, "the inputs do not match their recorded fingerprint: the file was "
                          "changed after it was written");
    const unsigned char *recorded_y = p;
    if (record_hash(RECORD_HASH_SEED, recorded_y, y_bytes) != r->output_hash)
        return fail(path, "the output does not match its recorded fingerprint: the file was "
                          "changed after it was written");

    /* Sections are copied so that each is aligned for its type. */
    const unsigned char *s = r->bytes + r->body;
    void *part[5];
    for (int i = 0; i < 5; i++) {
        part[i] = malloc(sizes[i] + 8);
        memcpy(part[i], s, sizes[i]);
        s += sizes[i];
    }
    int status = TOOL_EXIT_RUNTIME;
    loom_context *ctx = NULL;
    loom_csr *A = NULL;
    loom_plan *plan = NULL;
    loom_dense X, Y, want;
    loom_plan_options opts;
    loom_plan_options_init(&opts);
    opts.backend = LOOM_BACKEND_REFERENCE;
    opts.selector = LOOM_SELECT_FIXED;
    void *y = malloc(y_bytes + 8);
    if (r->beta != 0)
        memcpy(y, part[4], y_bytes);
    if (loom_context_create(&ctx) != LOOM_SUCCESS ||
        loom_strategy_parse(r->strategy, &opts.strategy) != LOOM_SUCCESS ||
        loom_csr_create(ctx, &A, r->rows, r->cols, r->nnz, dtype, part[0], part[1], part[2]) !=
            LOOM_SUCCESS ||
        loom_dense_init(&X, r->cols, r->n, r->n ? r->n : 1, LOOM_ROW_MAJOR, dtype, LOOM_MEMORY_HOST,
                        part[3]) != LOOM_SUCCESS ||
        loom_dense_init(&Y, r->rows, r->n, r->n ? r->n : 1, LOOM_ROW_MAJOR, dtype, LOOM_MEMORY_HOST,
                        y) != LOOM_SUCCESS ||
        loom_spmm_plan_create(ctx, &plan, A, &X, &Y, &opts) != LOOM_SUCCESS ||
        loom_spmm_execute(plan, r->alpha, &X, r->beta, &Y) != LOOM_SUCCESS) {
        fprintf(stderr, "loom: verify: %s: %s\n", path, loom_last_error());
    } else {
        void *rec = malloc(y_bytes + 8);
        memcpy(rec, recorded_y, y_bytes);
        loom_dense_init(&want, r->rows, r->n, r->n ? r->n : 1, LOOM_ROW_MAJOR, dtype,
                        LOOM_MEMORY_HOST, rec);
        loom_compare_result cmp;
        loom_dense_compare(&want, &Y, &cmp);
        printf("verify: %s: %s, %s, %" PRId64 " x %" PRId64 " times %" PRId64 " x %" PRId64
               ", computed on backend %s\n",
               path, r->strategy, r->dtype, r->rows, r->cols, r->cols, r->n, r->backend);
        if (cmp.differing == 0) {
            printf("verify: bit-exact: all %" PRId64 " elements match the reference\n", r->rows * r->n);
            status = TOOL_EXIT_OK;
        } else {
            printf("verify: MISMATCH: %" PRId64 " of %" PRId64 " elements differ from the "
                   "reference (largest distance %" PRIu64 " ulp); the first:\n",
                   cmp.differing, r->rows * r->n, cmp.max_ulp);
            int shown = 0;
            size_t off = 0;
            for (int64_t i = 0; i < r->rows && shown < SHOW_DIFFERENCES; i++)
                for (int64_t j = 0; j < r->n && shown < SHOW_DIFFERENCES; j++, off += es)
                    if (memcmp((char *)rec + off, (char *)y + off, es) != 0) {
                        print_difference(&want, &Y, i, j);
                        shown++;
                    }
            if (opts.strategy.kloop == LOOM_K_TC)
                printf("verify: (a tensor-core design: the reference reproduces a GPU's bits only "
                       "with that GPU's MMA model, LOOM_TC_MODEL (loom-designs(7)); without one, "
                       "'loom spmm' checks such a result against the tensor-core bound)\n");
            status = TOOL_EXIT_CHECK;
        }
        free(rec);
    }
    loom_plan_destroy(&plan);
    loom_csr_destroy(&A);
    loom_context_destroy(&ctx);
    for (int i = 0; i < 5; i++)
        free(part[i]);
    free(y);
    return status;
}

int tool_cmd_verify(int argc, char **argv)
{
    if (argc < 1 || strcmp(argv[0], "--help") == 0 || strcmp(argv[0], "-h") == 0) {
        FILE *to = argc < 1 ? stderr : stdout;
        fprintf(to, "Usage: loom verify RUN.loom\n"
                    "Recompute a result saved by 'loom spmm --save RUN.loom' with the reference\n"
                    "backend and report bit-exact agreement or the first differing elements.\n"
                    "Exit status: 0 bit-exact, 3 mismatch, 2 unreadable or changed file.\n");
        return argc < 1 ? TOOL_EXIT_USAGE : TOOL_EXIT_OK;
    }
    const uint16_t probe = 1;
    if (*(const unsigned char *)&probe != 1)
        return fail(argv[0], "run records are little-endian; this host is not");
    record r;
    memset(&r, 0, sizeof r);
    int status = read_file(argv[0], &r);
    if (status == 0)
        status = parse_header(argv[0], &r);
    if (status == 0)
        status = recompute(argv[0], &r);
    free(r.bytes);
    return status;
}
