/*
 * test_mmio.c - Matrix Market and DLMC input/output: every unit-test matrix
 * reads with the shape of data/README.md, gzip and memory input give the same
 * bits as a plain file, writing then reading is exact, and every malformed or
 * hostile input is refused with the right status and a message that names
 * the file and line, without crashing or allocating what the file merely
 * claims.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <loom.h>

#define UNITTEST_DIR LOOM_SRCDIR "/data/unittest/"
#define MALFORMED_DIR LOOM_SRCDIR "/data/malformed/"

static loom_context *ctx;
static char temp_dir[64]; /* made by the group setup, removed by its teardown */

/* ---------------------------------------------------------------- helpers */

static const char *temp_path(const char *name)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", temp_dir, name);
    return path;
}

static void write_file(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        fail_msg("cannot create %s: %s", path, strerror(errno));
    assert_int_equal(fwrite(data, 1, size, f), size);
    assert_int_equal(fclose(f), 0);
}

/* The whole file in a malloc'd buffer. */
static unsigned char *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s: %s", path, strerror(errno));
    size_t cap = 1 << 16, n = 0;
    unsigned char *buf = malloc(cap);
    assert_non_null(buf);
    size_t got;
    while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            cap *= 2;
            buf = realloc(buf, cap);
            assert_non_null(buf);
        }
    }
    fclose(f);
    *size = n;
    return buf;
}

static loom_csr *read_ok(const char *path, loom_dtype dtype)
{
    loom_csr *A = NULL;
    loom_status st = loom_csr_read(ctx, path, dtype, &A);
    if (st != LOOM_SUCCESS)
        fail_msg("%s: %s (%s)", path, loom_strerror(st), loom_last_error());
    return A;
}

static void expect_error(loom_status got, loom_status want, const char *needle, const char *what)
{
    if (got != want)
        fail_msg("%s: got %s (%s), expected %s", what, loom_strerror(got), loom_last_error(),
                 loom_strerror(want));
    if (needle && !strstr(loom_last_error(), needle))
        fail_msg("%s: message \"%s\" does not contain \"%s\"", what, loom_last_error(), needle);
}

/* A(i, j) as a double (0 when not stored); *found tells which. */
static double csr_at(const loom_csr *A, int64_t i, int32_t j, bool *found)
{
    const int64_t *ro;
    const int32_t *ci;
    const void *v;
    loom_dtype dtype;
    assert_int_equal(loom_csr_info(A, NULL, NULL, NULL, &dtype, NULL), LOOM_SUCCESS);
    assert_int_equal(loom_csr_arrays(A, &ro, &ci, &v), LOOM_SUCCESS);
    for (int64_t k = ro[i]; k < ro[i + 1]; k++) {
        if (ci[k] == j) {
            if (found)
                *found = true;
            return dtype == LOOM_F32 ? ((const float *)v)[k] : ((const double *)v)[k];
        }
    }
    if (found)
        *found = false;
    return 0;
}

/* Same shape, same structure, and values equal bit for bit. */
static void assert_same_csr(const loom_csr *A, const loom_csr *B)
{
    int64_t ra, ca, na, rb, cb, nb;
    loom_dtype da, db;
    assert_int_equal(loom_csr_info(A, &ra, &ca, &na, &da, NULL), LOOM_SUCCESS);
    assert_int_equal(loom_csr_info(B, &rb, &cb, &nb, &db, NULL), LOOM_SUCCESS);
    assert_int_equal(ra, rb);
    assert_int_equal(ca, cb);
    assert_int_equal(na, nb);
    assert_int_equal(da, db);
    const int64_t *roa, *rob;
    const int32_t *cia, *cib;
    const void *va, *vb;
    loom_csr_arrays(A, &roa, &cia, &va);
    loom_csr_arrays(B, &rob, &cib, &vb);
    assert_memory_equal(roa, rob, (size_t)(ra + 1) * sizeof *roa);
    if (na > 0) {
        assert_memory_equal(cia, cib, (size_t)na * sizeof *cia);
        assert_memory_equal(va, vb, (size_t)na * loom_dtype_size(da));
    }
}

/* Rows strictly increasing by column: sorted, no duplicates left. */
static void assert_rows_sorted(const loom_csr *A)
{
    int64_t rows;
    const int64_t *ro;
    const int32_t *ci;
    loom_csr_info(A, &rows, NULL, NULL, NULL, NULL);
    loom_csr_arrays(A, &ro, &ci, NULL);
    for (int64_t r = 0; r < rows; r++)
        for (int64_t k = ro[r] + 1; k < ro[r + 1]; k++)
            if (ci[k - 1] >= ci[k])
                fail_msg("row %lld not strictly sorted at %lld", (long long)r, (long long)k);
}

static int64_t empty_rows(const loom_csr *A)
{
    int64_t rows, n = 0;
    const int64_t *ro;
    loom_csr_info(A, &rows, NULL, NULL, NULL, NULL);
    loom_csr_arrays(A, &ro, NULL, NULL);
    for (int64_t r = 0; r < rows; r++)
        n += ro[r] == ro[r + 1];
    return n;
}

/* Whether this loom reads gzip (it is built without zlib on request). */
static bool gzip_available(void)
{
    static int have = -1;
    if (have < 0) {
        loom_csr *A = NULL;
        loom_status st = loom_csr_read(ctx, UNITTEST_DIR "west0067.mtx.gz", LOOM_F64, &A);
        have = !(st == LOOM_ERR_NOT_SUPPORTED && strstr(loom_last_error(), "without zlib"));
        loom_csr_destroy(&A);
    }
    return have;
}

/* Skips the calling test when loom was built without zlib. */
static void require_gzip(void)
{
    if (!gzip_available())
        skip();
}

static bool is_gzip_name(const char *name)
{
    size_t n = strlen(name);
    return n > 3 && strcmp(name + n - 3, ".gz") == 0;
}

/* ------------------------------------------------- gzip without zlib */

/* Tests build gzip files with "stored" (uncompressed) deflate blocks, so
 * they do not need zlib themselves. */
static uint32_t crc32_of(const unsigned char *p, size_t n)
{
    uint32_t crc = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int b = 0; b < 8; b++)
            crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

static size_t gzip_stored(const char *text, unsigned char *out, size_t cap)
{
    size_t n = strlen(text);
    assert_true(n < 65536 && n + 18 + 5 <= cap);
    static const unsigned char header[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff};
    size_t k = 0;
    memcpy(out, header, sizeof header);
    k += sizeof header;
    out[k++] = 1; /* BFINAL, stored */
    out[k++] = (unsigned char)(n & 0xff);
    out[k++] = (unsigned char)(n >> 8);
    out[k++] = (unsigned char)(~n & 0xff);
    out[k++] = (unsigned char)((~n >> 8) & 0xff);
    memcpy(out + k, text, n);
    k += n;
    uint32_t crc = crc32_of((const unsigned char *)text, n);
    for (int b = 0; b < 4; b++)
        out[k++] = (unsigned char)(crc >> (8 * b));
    for (int b = 0; b < 4; b++)
        out[k++] = (unsigned char)((uint32_t)n >> (8 * b));
    return k;
}

/* ------------------------------------------------- the unit-test matrices */

typedef struct shape_case {
    const char *file;
    int64_t rows, cols, nnz; /* nnz after symmetric expansion */
    int64_t empty_rows;      /* -1: not checked */
} shape_case;

/* From /work/shared/data/MANIFEST.md (see data/README.md). */
static const shape_case shapes[] = {
    {"LFAT5.mtx", 14, 14, 46, -1}, /* 30 stored, 14 on the diagonal */
    {"arrow_klu.mtx", 100, 100, 298, -1},
    {"dlmc_rn50_mp0.98_bottleneck_1_g1_1_1.mtx", 64, 256, 327, -1},
    {"dlmc_rn50_mp0.98_bottleneck_1_g1_1_1.smtx", 64, 256, 327, -1},
    {"email-Eu-core.mtx", 1005, 1005, 25571, 137},
    {"jagmesh7.mtx", 1138, 1138, 7450, -1}, /* 4294 stored */
    {"karate.mtx", 34, 34, 156, -1},       /* 78 stored */
    {"lp_afiro.mtx", 27, 51, 102, -1},
    {"west0067.mtx", 67, 67, 294, -1},
    {"west0067.mtx.gz", 67, 67, 294, -1},
};

static void test_shape(void **state)
{
    const shape_case *c = *state;
    if (is_gzip_name(c->file))
        require_gzip();
    char path[512];
    snprintf(path, sizeof path, UNITTEST_DIR "%s", c->file);
    for (int d = 0; d < 2; d++) {
        loom_csr *A = read_ok(path, d ? LOOM_F64 : LOOM_F32);
        int64_t rows, cols, nnz;
        loom_csr_info(A, &rows, &cols, &nnz, NULL, NULL);
        assert_int_equal(rows, c->rows);
        assert_int_equal(cols, c->cols);
        assert_int_equal(nnz, c->nnz);
        assert_rows_sorted(A);
        if (c->empty_rows >= 0)
            assert_int_equal(empty_rows(A), c->empty_rows);
        loom_csr_destroy(&A);
    }
}

typedef struct value_case {
    const char *name;
    const char *file;
    int64_t row, col; /* 1-based, as in the file */
    const char *text; /* the value as the file writes it */
} value_case;

static const value_case values[] = {
    {"west0067(5,1)", "west0067.mtx", 5, 1, "-.2788416"},
    {"west0067(49,67)", "west0067.mtx", 49, 67, "-.2541193"},
    {"LFAT5(4,1)", "LFAT5.mtx", 4, 1, "-94.2528"},
    {"LFAT5(1,4)", "LFAT5.mtx", 1, 4, "-94.2528"}, /* the mirror of a lower-triangle entry */
    {"LFAT5(2,2)", "LFAT5.mtx", 2, 2, "1.25664e7"},
    {"arrow_klu(1,1)", "arrow_klu.mtx", 1, 1, "2"}, /* integer field */
    {"arrow_klu(100,100)", "arrow_klu.mtx", 100, 100, "1"},
    {"lp_afiro(3,1)", "lp_afiro.mtx", 3, 1, "1"},
    {"karate(2,1)", "karate.mtx", 2, 1, "1"}, /* pattern */
    {"karate(1,2)", "karate.mtx", 1, 2, "1"},
};

/* The value read equals strtof/strtod of the file's text, bit for bit. */
static void test_value(void **state)
{
    const value_case *c = *state;
    char path[512];
    snprintf(path, sizeof path, UNITTEST_DIR "%s", c->file);
    loom_csr *A = read_ok(path, LOOM_F32);
    loom_csr *B = read_ok(path, LOOM_F64);
    bool found_a, found_b;
    float a = (float)csr_at(A, c->row - 1, (int32_t)(c->col - 1), &found_a);
    double b = csr_at(B, c->row - 1, (int32_t)(c->col - 1), &found_b);
    assert_true(found_a && found_b);
    float want_a = strtof(c->text, NULL);
    double want_b = strtod(c->text, NULL);
    assert_memory_equal(&a, &want_a, sizeof a);
    assert_memory_equal(&b, &want_b, sizeof b);
    loom_csr_destroy(&A);
    loom_csr_destroy(&B);
}

static void test_pattern_values_are_one(void **state)
{
    (void)state;
    loom_csr *A = read_ok(UNITTEST_DIR "jagmesh7.mtx", LOOM_F64);
    int64_t nnz;
    const double *v;
    loom_csr_info(A, NULL, NULL, &nnz, NULL, NULL);
    loom_csr_arrays(A, NULL, NULL, (const void **)&v);
    for (int64_t k = 0; k < nnz; k++)
        assert_true(v[k] == 1.0);
    loom_csr_destroy(&A);
}

static void test_symmetric_expansion_is_symmetric(void **state)
{
    (void)state;
    loom_csr *A = read_ok(UNITTEST_DIR "LFAT5.mtx", LOOM_F64);
    for (int64_t i = 0; i < 14; i++) {
        for (int32_t j = 0; j < 14; j++) {
            bool f1, f2;
            double a = csr_at(A, i, j, &f1), b = csr_at(A, j, i, &f2);
            assert_int_equal(f1, f2);
            assert_memory_equal(&a, &b, sizeof a);
        }
    }
    loom_csr_destroy(&A);
}

static void test_complex_is_not_supported(void **state)
{
    (void)state;
    loom_csr *A = (loom_csr *)0x1;
    expect_error(loom_csr_read(ctx, UNITTEST_DIR "young1c.mtx", LOOM_F64, &A),
                 LOOM_ERR_NOT_SUPPORTED, "young1c.mtx", "young1c.mtx");
    assert_non_null(strstr(loom_last_error(), "complex"));
    assert_null(A);
}

static void test_dlmc_smtx_matches_mtx(void **state)
{
    (void)state;
    for (int d = 0; d < 2; d++) {
        loom_dtype dtype = d ? LOOM_F64 : LOOM_F32;
        loom_csr *A = read_ok(UNITTEST_DIR "dlmc_rn50_mp0.98_bottleneck_1_g1_1_1.smtx", dtype);
        loom_csr *B = read_ok(UNITTEST_DIR "dlmc_rn50_mp0.98_bottleneck_1_g1_1_1.mtx", dtype);
        assert_same_csr(A, B); /* values: 1 in both (pattern) */
        loom_csr_destroy(&A);
        loom_csr_destroy(&B);
    }
}

static void test_gzip_matches_plain(void **state)
{
    (void)state;
    require_gzip();
    for (int d = 0; d < 2; d++) {
        loom_dtype dtype = d ? LOOM_F64 : LOOM_F32;
        loom_csr *A = read_ok(UNITTEST_DIR "west0067.mtx", dtype);
        loom_csr *B = read_ok(UNITTEST_DIR "west0067.mtx.gz", dtype);
        assert_same_csr(A, B);
        loom_csr_destroy(&A);
        loom_csr_destroy(&B);
    }
}

/* A build without zlib says so, naming the file, instead of misreading it. */
static void test_gzip_without_zlib_is_explained(void **state)
{
    (void)state;
    if (gzip_available())
        skip();
    loom_csr *A = NULL;
    expect_error(loom_csr_read(ctx, UNITTEST_DIR "west0067.mtx.gz", LOOM_F64, &A),
                 LOOM_ERR_NOT_SUPPORTED, "west0067.mtx.gz: the content is gzip-compressed",
                 "no zlib");
}

/* Two gzip members one after the other (pigz, bgzip, cat a.gz b.gz) are one text. */
static void test_gzip_multiple_members(void **state)
{
    (void)state;
    require_gzip();
    unsigned char buf[512];
    size_t n = gzip_stored("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1.5\n", buf,
                           sizeof buf);
    n += gzip_stored("2 2 -3\n", buf + n, sizeof buf - n);
    loom_csr *A = NULL;
    assert_int_equal(loom_csr_read_memory(ctx, buf, n, "two-members", LOOM_F64, &A), LOOM_SUCCESS);
    assert_true(csr_at(A, 0, 0, NULL) == 1.5);
    assert_true(csr_at(A, 1, 1, NULL) == -3);
    loom_csr_destroy(&A);
}

static void test_memory_matches_file(void **state)
{
    (void)state;
    static const char *files[] = {"west0067.mtx", "west0067.mtx.gz", "LFAT5.mtx",
                                  "dlmc_rn50_mp0.98_bottleneck_1_g1_1_1.smtx"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        if (is_gzip_name(files[i]) && !gzip_available())
            continue;
        char path[512];
        snprintf(path, sizeof path, UNITTEST_DIR "%s", files[i]);
        size_t size;
        unsigned char *data = slurp(path, &size);
        loom_csr *A = read_ok(path, LOOM_F64), *B = NULL;
        assert_int_equal(loom_csr_read_memory(ctx, data, size, files[i], LOOM_F64, &B),
                         LOOM_SUCCESS);
        assert_same_csr(A, B);
        loom_csr_destroy(&A);
        loom_csr_destroy(&B);
        free(data);
    }
}

static void test_memory_error_names_the_buffer(void **state)
{
    (void)state;
    static const char text[] = "%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1\n";
    loom_csr *A = NULL;
    expect_error(loom_csr_read_memory(ctx, text, sizeof text - 1, "inline-matrix", LOOM_F32, &A),
                 LOOM_ERR_PARSE, "inline-matrix:3: row index 3 out of range 1..2", "memory");
    expect_error(loom_csr_read_memory(ctx, text, sizeof text - 1, NULL, LOOM_F32, &A),
                 LOOM_ERR_PARSE, "<memory>:3:", "memory, no name");
}

/* ------------------------------------------------------ malformed files */

typedef struct malformed_case {
    const char *file;
    loom_status status; /* LOOM_SUCCESS: legal but odd, must read */
    const char *message; /* after "FILE:" */
} malformed_case;

/* The decision table of data/README.md. */
static const malformed_case malformed[] = {
    {"mangle1.mtx", LOOM_ERR_PARSE, "1: unknown object 'junk'"},
    {"mangle2.mtx", LOOM_ERR_PARSE, "1: unknown format 'junk'"},
    {"mangle3.mtx", LOOM_ERR_PARSE, "1: unknown field 'junk'"},
    {"mangle4.mtx", LOOM_ERR_PARSE, "1: unknown symmetry 'junk'"},
    {"mangled1.mtx", LOOM_ERR_PARSE, "1: unknown object 'mangled'"},
    {"mangled2.mtx", LOOM_ERR_PARSE, "1: unknown format 'mangled'"},
    {"mangled5.mtx", LOOM_ERR_PARSE, "1: 'hermitian' is defined only for complex matrices"},
    {"mangled6.mtx", LOOM_ERR_PARSE, "1: 'hermitian' is defined only for complex matrices"},
    {"mangled9.mtx", LOOM_ERR_PARSE, "4: a symmetric matrix must be square"},
    {"paru_row0.mtx", LOOM_ERR_PARSE, "12: row index 0 out of range 1..4"},
};

static void test_malformed(void **state)
{
    const malformed_case *c = *state;
    char path[512], needle[512];
    snprintf(path, sizeof path, MALFORMED_DIR "%s", c->file);
    snprintf(needle, sizeof needle, "%s:%s", c->file, c->message);
    for (int d = 0; d < 2; d++) {
        loom_csr *A = (loom_csr *)0x1;
        expect_error(loom_csr_read(ctx, path, d ? LOOM_F64 : LOOM_F32, &A), c->status, needle,
                     c->file);
        assert_null(A);
    }
}

/* ----------------------------------------------------- hostile inputs */

typedef struct hostile_case {
    const char *name;    /* the temporary file's name (.smtx selects DLMC) */
    const char *content;
    loom_status status;
    const char *message; /* expected in loom_last_error() after "NAME:" */
} hostile_case;

#define BANNER "%%MatrixMarket matrix coordinate real general\n"
#define PATTERN "%%MatrixMarket matrix coordinate pattern general\n"

static const hostile_case hostile[] = {
    {"empty.mtx", "", LOOM_ERR_PARSE, " the input is empty"},
    {"blank.mtx", "\n  \n\n", LOOM_ERR_PARSE, " the input is empty"},
    {"missing_banner.mtx", "3 3 1\n1 1 1\n", LOOM_ERR_PARSE, "1: expected the %%MatrixMarket banner, found '3'"},
    {"comment_before_banner.mtx", "% hello\n" BANNER "1 1 0\n", LOOM_ERR_PARSE, "1: expected the %%MatrixMarket banner"},
    {"short_banner.mtx", "%%MatrixMarket matrix coordinate real\n1 1 0\n", LOOM_ERR_PARSE, "1: the banner ends before the symmetry"},
    {"glued_banner.mtx", "%%MatrixMarketmatrix coordinate real general\n1 1 0\n", LOOM_ERR_PARSE, "1: expected the %%MatrixMarket banner"},
    {"long_banner.mtx", "%%MatrixMarket matrix coordinate real general extra\n1 1 0\n", LOOM_ERR_PARSE, "1: unexpected 'extra' at the end of the banner"},
    {"xz.mtx", "\xfd" "7zXZ\n", LOOM_ERR_NOT_SUPPORTED, "1: the content looks xz-compressed"},
    {"vector.mtx", "%%MatrixMarket vector coordinate real general\n1 1 0\n", LOOM_ERR_PARSE, "1: unknown object 'vector'"},
    {"pattern_skew.mtx", "%%MatrixMarket matrix coordinate pattern skew-symmetric\n1 1 0\n", LOOM_ERR_PARSE, "1: 'skew-symmetric' is not allowed"},
    {"no_size_line.mtx", BANNER "% only a comment\n", LOOM_ERR_PARSE, "2: the input ends before the size line"},
    {"short_size_line.mtx", BANNER "3 3\n", LOOM_ERR_PARSE, "2: the size line ends before the number of entries"},
    {"long_size_line.mtx", BANNER "3 3 0 0\n", LOOM_ERR_PARSE, "2: unexpected '0' at the end of the size line"},
    {"negative_rows.mtx", BANNER "-3 3 1\n1 1 1\n", LOOM_ERR_PARSE, "2: negative number of rows (-3)"},
    {"negative_nnz.mtx", BANNER "3 3 -1\n", LOOM_ERR_PARSE, "2: negative number of entries (-1)"},
    {"nan_rows.mtx", BANNER "nan 3 1\n1 1 1\n", LOOM_ERR_PARSE, "2: expected the number of rows, found 'nan'"},
    {"float_cols.mtx", BANNER "3 3.0 1\n1 1 1\n", LOOM_ERR_PARSE, "2: expected the number of columns, found '3.0'"},
    {"rows_2e40.mtx", BANNER "1099511627776 3 1\n1 1 1\n", LOOM_ERR_OVERFLOW, "2: 1099511627776 rows exceed the reader's limit"},
    {"cols_2e31.mtx", BANNER "3 2147483648 1\n1 1 1\n", LOOM_ERR_OVERFLOW, "2: 2147483648 columns exceed 2147483647"},
    {"rows_2e70.mtx", BANNER "1180591620717411303424 3 1\n", LOOM_ERR_OVERFLOW, "2: the number of rows '1180591620717411303424' does not fit"},
    {"fewer_entries.mtx", BANNER "3 3 3\n1 1 1\n2 2 2\n", LOOM_ERR_PARSE, "4: the input ends after 2 of the 3 entries"},
    {"more_entries.mtx", BANNER "3 3 1\n1 1 1\n2 2 2\n", LOOM_ERR_PARSE, "4: more entries than the 1 the size line declares"},
    {"huge_nnz_claim.mtx", BANNER "2 2 1000000000000\n1 1 1\n", LOOM_ERR_PARSE, "3: the input ends after 1 of the 1000000000000 entries"},
    {"row_index_0.mtx", BANNER "3 3 1\n0 1 1\n", LOOM_ERR_PARSE, "3: row index 0 out of range 1..3"},
    {"row_index_big.mtx", BANNER "3 3 1\n4 1 1\n", LOOM_ERR_PARSE, "3: row index 4 out of range 1..3"},
    {"col_index_big.mtx", BANNER "3 3 1\n1 4 1\n", LOOM_ERR_PARSE, "3: column index 4 out of range 1..3"},
    {"negative_index.mtx", BANNER "3 3 1\n-1 1 1\n", LOOM_ERR_PARSE, "3: row index -1 out of range 1..3"},
    {"index_2e64.mtx", BANNER "3 3 1\n18446744073709551616 1 1\n", LOOM_ERR_PARSE, "3: row index 18446744073709551616 out of range 1..3"},
    {"float_index.mtx", BANNER "3 3 1\n1.0 1 1\n", LOOM_ERR_PARSE, "3: expected an integer row index, found '1.0'"},
    {"missing_col.mtx", BANNER "3 3 1\n1\n", LOOM_ERR_PARSE, "3: the entry ends before its column index"},
    {"missing_value.mtx", BANNER "3 3 1\n1 1\n", LOOM_ERR_PARSE, "3: missing value"},
    {"word_value.mtx", BANNER "3 3 1\n1 1 abc\n", LOOM_ERR_PARSE, "3: expected a real value, found 'abc'"},
    {"glued_value.mtx", BANNER "3 3 1\n1 1 1.5x\n", LOOM_ERR_PARSE, "3: expected a real value, found '1.5x'"},
    {"extra_token.mtx", BANNER "3 3 1\n1 1 1 7\n", LOOM_ERR_PARSE, "3: unexpected '7' after the entry"},
    {"pattern_with_value.mtx", PATTERN "3 3 1\n1 1 5\n", LOOM_ERR_PARSE, "3: unexpected '5' after the entry"},
    {"integer_fraction.mtx", "%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 1 1.5\n", LOOM_ERR_PARSE, "3: expected an integer value, found '1.5'"},
    {"skew_diagonal.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 1\n2 2 1\n", LOOM_ERR_PARSE, "3: diagonal entry (2, 2) in a skew-symmetric matrix"},
    {"symmetric_rectangular.mtx", "%%MatrixMarket matrix coordinate real symmetric\n3 4 0\n", LOOM_ERR_PARSE, "2: a symmetric matrix must be square; the size line says 3 x 4"},
    {"array_as_csr.mtx", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", LOOM_ERR_NOT_SUPPORTED, "1: a dense (array) Matrix Market file"},
    /* DLMC .smtx */
    {"bad_header.smtx", "2 x 4\n", LOOM_ERR_PARSE, "1: expected the DLMC header"},
    {"missing_offsets.smtx", "2, 4, 3\n", LOOM_ERR_PARSE, "2: the input ends before the row offsets"},
    {"missing_indices.smtx", "2, 4, 3\n0 2 3\n", LOOM_ERR_PARSE, "3: the input ends before the column indices"},
    {"few_offsets.smtx", "2, 4, 3\n0 2\n1 3 0\n", LOOM_ERR_PARSE, "2: found 2 row offsets; expected 3"},
    {"many_offsets.smtx", "2, 4, 3\n0 2 3 3\n1 3 0\n", LOOM_ERR_PARSE, "2: more than the 3 row offsets expected"},
    {"first_offset.smtx", "2, 4, 3\n1 2 3\n1 3 0\n", LOOM_ERR_PARSE, "2: the first row offset is 1; expected 0"},
    {"decreasing_offsets.smtx", "3, 4, 3\n0 2 1 3\n1 3 0\n", LOOM_ERR_PARSE, "2: row offsets decrease"},
    {"last_offset.smtx", "2, 4, 3\n0 1 2\n1 3 0\n", LOOM_ERR_PARSE, "2: the last row offset is 2; the header declares 3"},
    {"index_range.smtx", "2, 4, 3\n0 2 3\n1 4 0\n", LOOM_ERR_PARSE, "3: column indices number 1 is 4, out of range 0..3"},
    {"negative_index.smtx", "2, 4, 3\n0 2 3\n1 -1 0\n", LOOM_ERR_PARSE, "3: column indices number 1 is -1"},
    {"few_indices.smtx", "2, 4, 3\n0 2 3\n1 3\n", LOOM_ERR_PARSE, "3: found 2 column indices; expected 3"},
    {"duplicate_column.smtx", "2, 4, 3\n0 2 3\n1 1 0\n", LOOM_ERR_PARSE, "3: row 0 (0-based) has column 1 twice"},
    {"fourth_line.smtx", "2, 4, 3\n0 2 3\n1 3 0\n7\n", LOOM_ERR_PARSE, "4: unexpected text after the column indices"},
    {"nnz_exceeds_cells.smtx", "2, 2, 1000000000000\n0 0 1000000000000\n", LOOM_ERR_PARSE, "1: 1000000000000 non-zeros do not fit a 2 x 2 pattern"},
    {"huge_claim.smtx", "2000000000, 2000000000, 1000000000\n0 1\n", LOOM_ERR_PARSE, "2: found 2 row offsets; expected 2000000001"},
    {"rows_2e40.smtx", "1099511627776, 3, 0\n", LOOM_ERR_OVERFLOW, "1: 1099511627776 rows exceed"},
};

/* A case is run from a file in the temporary folder, and again from memory. */
static void test_hostile(void **state)
{
    const hostile_case *c = *state;
    const char *content = c->content;
    const char *path = temp_path(c->name);
    write_file(path, content, strlen(content));
    char needle[512];
    snprintf(needle, sizeof needle, "%s:%s", path, c->message);
    loom_csr *A = (loom_csr *)0x1;
    expect_error(loom_csr_read(ctx, path, LOOM_F64, &A), c->status, needle, c->name);
    assert_null(A);
    snprintf(needle, sizeof needle, "%s:%s", c->name, c->message);
    expect_error(loom_csr_read_memory(ctx, content, strlen(content), c->name, LOOM_F32, &A),
                 c->status, needle, c->name);
    assert_null(A);
    remove(path);
}

static void test_nul_byte_in_line(void **state)
{
    (void)state;
    static const char text[] = BANNER "2 2 1\n1 1 1\0 junk\n";
    loom_csr *A = NULL;
    expect_error(loom_csr_read_memory(ctx, text, sizeof text - 1, "nul.mtx", LOOM_F64, &A),
                 LOOM_ERR_PARSE, "nul.mtx:3:", "NUL byte");
}

static void test_truncated_gzip(void **state)
{
    (void)state;
    require_gzip();
    size_t size;
    unsigned char *gz = slurp(UNITTEST_DIR "west0067.mtx.gz", &size);
    const char *path = temp_path("truncated.mtx.gz");
    size_t cuts[] = {1, 2, 10, size / 2, size - 4, size - 1};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        write_file(path, gz, cuts[i]);
        loom_csr *A = (loom_csr *)0x1;
        loom_status st = loom_csr_read(ctx, path, LOOM_F64, &A);
        assert_null(A);
        /* One byte is not the gzip magic yet: then it is a text without banner. */
        expect_error(st, LOOM_ERR_PARSE, "truncated.mtx.gz", "truncated gzip");
        if (cuts[i] > 10)
            assert_non_null(strstr(loom_last_error(), "truncated"));
    }
    remove(path);
    free(gz);
}

static void test_corrupt_gzip(void **state)
{
    (void)state;
    require_gzip();
    unsigned char buf[256];
    size_t n = gzip_stored(BANNER "1 1 1\n1 1 2\n", buf, sizeof buf);
    loom_csr *A = NULL;
    buf[n - 6] ^= 0xff; /* the CRC */
    expect_error(loom_csr_read_memory(ctx, buf, n, "crc.mtx.gz", LOOM_F64, &A), LOOM_ERR_PARSE,
                 "crc.mtx.gz: corrupt gzip data", "bad CRC");
    buf[n - 6] ^= 0xff;
    memcpy(buf + n, "junk", 4);
    expect_error(loom_csr_read_memory(ctx, buf, n + 4, "tail.mtx.gz", LOOM_F64, &A),
                 LOOM_ERR_PARSE, "tail.mtx.gz: unexpected data after the end of the gzip stream",
                 "trailing data");
    memset(buf + n, 0, 4); /* zero padding is ignored, as gzip(1) does */
    assert_int_equal(loom_csr_read_memory(ctx, buf, n + 4, "pad.mtx.gz", LOOM_F64, &A),
                     LOOM_SUCCESS);
    loom_csr_destroy(&A);
}

/* A gzip text claiming 10^12 entries fails at its end, after the one entry. */
static void test_gzip_huge_claim(void **state)
{
    (void)state;
    require_gzip();
    unsigned char buf[256];
    size_t n = gzip_stored(BANNER "2 2 1000000000000\n1 1 1\n", buf, sizeof buf);
    loom_csr *A = NULL;
    expect_error(loom_csr_read_memory(ctx, buf, n, "claim.mtx.gz", LOOM_F64, &A),
                 LOOM_ERR_PARSE, "claim.mtx.gz:3: the input ends after 1 of the 1000000000000",
                 "huge claim");
}

/* ---------------------------------------------------- legal but odd input */

static loom_csr *read_text(const char *name, const char *text, loom_dtype dtype)
{
    loom_csr *A = NULL;
    loom_status st = loom_csr_read_memory(ctx, text, strlen(text), name, dtype, &A);
    if (st != LOOM_SUCCESS)
        fail_msg("%s: %s (%s)", name, loom_strerror(st), loom_last_error());
    return A;
}

static void test_layout_tolerance(void **state)
{
    (void)state;
    static const char text[] =
        "\n" /* a blank line before the banner (data/malformed/paru_row0.mtx has one) */
        "%%MATRIXMARKET Matrix Coordinate REAL General\r\n"
        "%\r\n"
        "\r\n"
        "  % indented comment\n"
        "\t3   3\t 2 \n"
        "% a comment between entries\n"
        "\n"
        "   3 1   -2.5e+00  \r\n"
        "1 3 +4";
    loom_csr *A = read_text("tolerant.mtx", text, LOOM_F64);
    assert_true(csr_at(A, 2, 0, NULL) == -2.5);
    assert_true(csr_at(A, 0, 2, NULL) == 4.0);
    loom_csr_destroy(&A);
}

/* Entries in any order come out sorted; duplicates are summed in file order. */
static void test_duplicates_summed_in_file_order(void **state)
{
    (void)state;
    static const char text[] = BANNER "3 3 6\n3 3 1\n1 2 0.1\n1 1 5\n1 2 0.2\n1 2 0.3\n2 1 7\n";
    loom_csr *A = read_text("dups.mtx", text, LOOM_F32);
    loom_csr *B = read_text("dups.mtx", text, LOOM_F64);
    int64_t nnz;
    loom_csr_info(A, NULL, NULL, &nnz, NULL, NULL);
    assert_int_equal(nnz, 4);
    assert_rows_sorted(A);
    float fa = (float)csr_at(A, 0, 1, NULL);
    float fw = (0.1f + 0.2f) + 0.3f;
    assert_memory_equal(&fa, &fw, sizeof fa);
    double da = csr_at(B, 0, 1, NULL);
    volatile double d1 = 0.1, d2 = 0.2, d3 = 0.3; /* computed at run time, in order */
    double dw = (d1 + d2) + d3;
    assert_memory_equal(&da, &dw, sizeof da);
    assert_true(csr_at(B, 0, 0, NULL) == 5 && csr_at(B, 1, 0, NULL) == 7 &&
                csr_at(B, 2, 2, NULL) == 1);
    loom_csr_destroy(&A);
    loom_csr_destroy(&B);
}

static void test_skew_symmetric_mirror_negated(void **state)
{
    (void)state;
    static const char text[] =
        "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 5\n3 1 -2\n";
    loom_csr *A = read_text("skew.mtx", text, LOOM_F64);
    int64_t nnz;
    loom_csr_info(A, NULL, NULL, &nnz, NULL, NULL);
    assert_int_equal(nnz, 4);
    assert_true(csr_at(A, 1, 0, NULL) == 5 && csr_at(A, 0, 1, NULL) == -5);
    assert_true(csr_at(A, 2, 0, NULL) == -2 && csr_at(A, 0, 2, NULL) == 2);
    loom_csr_destroy(&A);
}

static void test_inf_nan_values_accepted(void **state)
{
    (void)state;
    static const char text[] = BANNER "3 3 3\n1 1 inf\n2 2 -Infinity\n3 3 nan\n";
    for (int d = 0; d < 2; d++) {
        loom_csr *A = read_text("ieee.mtx", text, d ? LOOM_F64 : LOOM_F32);
        assert_true(isinf(csr_at(A, 0, 0, NULL)) && csr_at(A, 0, 0, NULL) > 0);
        assert_true(isinf(csr_at(A, 1, 1, NULL)) && csr_at(A, 1, 1, NULL) < 0);
        assert_true(isnan(csr_at(A, 2, 2, NULL)));
        loom_csr_destroy(&A);
    }
}

static void test_empty_and_zero_size(void **state)
{
    (void)state;
    loom_csr *A = read_text("zero.mtx", BANNER "0 0 0\n", LOOM_F64);
    int64_t rows, nnz;
    loom_csr_info(A, &rows, NULL, &nnz, NULL, NULL);
    assert_int_equal(rows, 0);
    assert_int_equal(nnz, 0);
    loom_csr_destroy(&A);
    A = read_text("empty_rows.mtx", BANNER "5 7 0\n% nothing stored\n", LOOM_F32);
    assert_int_equal(empty_rows(A), 5);
    loom_csr_destroy(&A);
    A = read_text("no_nnz.smtx", "2, 3, 0\n0 0 0\n", LOOM_F32);
    loom_csr_info(A, &rows, NULL, &nnz, NULL, NULL);
    assert_int_equal(rows, 2);
    assert_int_equal(nnz, 0);
    loom_csr_destroy(&A);
}

static void test_smtx_unsorted_row_is_sorted(void **state)
{
    (void)state;
    loom_csr *A = read_text("unsorted.smtx", "2, 4, 3\n0 2 3\n3 1 0\n", LOOM_F64);
    const int32_t *ci;
    loom_csr_arrays(A, NULL, &ci, NULL);
    assert_int_equal(ci[0], 1);
    assert_int_equal(ci[1], 3);
    assert_int_equal(ci[2], 0);
    assert_true(csr_at(A, 0, 3, NULL) == 1.0);
    loom_csr_destroy(&A);
    A = read_text("no_commas.smtx", "2 4 3\n0 2 3\n1 3 0\n\n", LOOM_F32);
    loom_csr_destroy(&A);
}

/* ----------------------------------------------------------- round trips */

static void test_csr_round_trip(void **state)
{
    (void)state;
    /* Values that print badly with too few digits, a subnormal, -0, extremes. */
    static const double v64[] = {1.0 / 3.0, -0.0, 4.9406564584124654e-324, 1.7976931348623157e308,
                                 0.1, -2.718281828459045, 1e-300, 123456789.123456789};
    static const float v32[] = {1.0f / 3.0f, -0.0f, 1.4e-45f, 3.4028235e38f,
                                0.1f, -2.7182817f, 1e-38f, 16777217.0f};
    int64_t ro[5] = {0, 3, 3, 5, 8}; /* row 1 empty */
    int32_t ci[8] = {0, 4, 5, 1, 2, 0, 3, 5};
    for (int d = 0; d < 2; d++) {
        loom_dtype dtype = d ? LOOM_F64 : LOOM_F32;
        loom_csr *A = NULL, *B = NULL;
        assert_int_equal(loom_csr_create(ctx, &A, 4, 6, 8, dtype, ro, ci,
                                         d ? (const void *)v64 : (const void *)v32),
                         LOOM_SUCCESS);
        const char *path = temp_path("round_trip.mtx");
        assert_int_equal(loom_csr_write(A, path), LOOM_SUCCESS);
        B = read_ok(path, dtype);
        assert_same_csr(A, B);
        loom_csr_destroy(&A);
        loom_csr_destroy(&B);
        remove(path);
    }
}

/* A real matrix (not a pattern) written and read back gives the same bits. */
static void test_csr_round_trip_file(void **state)
{
    (void)state;
    const char *path = temp_path("west_copy.mtx");
    for (int d = 0; d < 2; d++) {
        loom_dtype dtype = d ? LOOM_F64 : LOOM_F32;
        loom_csr *A = read_ok(UNITTEST_DIR "west0067.mtx", dtype);
        assert_int_equal(loom_csr_write(A, path), LOOM_SUCCESS);
        loom_csr *B = read_ok(path, dtype);
        assert_same_csr(A, B);
        loom_csr_destroy(&A);
        loom_csr_destroy(&B);
    }
    remove(path);
}

static void fill_awkward(loom_dense *d)
{
    for (int64_t i = 0; i < d->rows; i++) {
        for (int64_t j = 0; j < d->cols; j++) {
            double v = (double)(i * 31 + j * 7 + 1) / 3.0 - 5.0;
            int64_t at = d->layout == LOOM_ROW_MAJOR ? i * d->ld + j : i + j * d->ld;
            if (d->dtype == LOOM_F32)
                ((float *)d->data)[at] = (float)v;
            else
                ((double *)d->data)[at] = v;
        }
    }
}

static void assert_same_dense(const loom_dense *a, const loom_dense *b)
{
    assert_int_equal(a->rows, b->rows);
    assert_int_equal(a->cols, b->cols);
    loom_compare_result r;
    assert_int_equal(loom_dense_compare(a, b, &r), LOOM_SUCCESS);
    assert_int_equal(r.differing, 0);
}

static void test_dense_round_trip(void **state)
{
    (void)state;
    const char *path = temp_path("dense.mtx");
    for (int d = 0; d < 2; d++) {
        for (int from = 0; from < 2; from++) {
            for (int to = 0; to < 2; to++) {
                loom_dtype dtype = d ? LOOM_F64 : LOOM_F32;
                loom_dense A, B;
                assert_int_equal(loom_dense_alloc(ctx, &A, 5, 3, (loom_layout)from, dtype,
                                                  LOOM_MEMORY_HOST),
                                 LOOM_SUCCESS);
                fill_awkward(&A);
                assert_int_equal(loom_dense_write(&A, path), LOOM_SUCCESS);
                assert_int_equal(loom_dense_read(ctx, path, dtype, (loom_layout)to, &B),
                                 LOOM_SUCCESS);
                assert_int_equal(B.layout, to);
                assert_int_equal(B.memory, LOOM_MEMORY_HOST);
                assert_int_equal(B.ld, to == LOOM_ROW_MAJOR ? 3 : 5);
                assert_same_dense(&A, &B);
                loom_dense_free(ctx, &A);
                loom_dense_free(ctx, &B);
            }
        }
    }
    remove(path);
}

static void test_dense_read_errors(void **state)
{
    (void)state;
    static const struct {
        const char *name, *text;
        loom_status status;
        const char *message;
    } cases[] = {
        {"few.mtx", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n", LOOM_ERR_PARSE, "5: the input ends after 3 of the 4 values"},
        {"many.mtx", "%%MatrixMarket matrix array real general\n1 2\n1\n2\n3\n", LOOM_ERR_PARSE, "5: more values than the 2"},
        {"two_per_line.mtx", "%%MatrixMarket matrix array real general\n1 2\n1 2\n", LOOM_ERR_PARSE, "3: unexpected '2' after the value"},
        {"coordinate.mtx", BANNER "1 1 0\n", LOOM_ERR_NOT_SUPPORTED, "1: a sparse (coordinate) Matrix Market file"},
        {"symmetric.mtx", "%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n3\n", LOOM_ERR_NOT_SUPPORTED, "1: only general dense"},
        {"pattern.mtx", "%%MatrixMarket matrix array pattern general\n2 2\n", LOOM_ERR_PARSE, "1: 'pattern' is not allowed"},
        {"huge.mtx", "%%MatrixMarket matrix array real general\n1000000 1000000\n1\n", LOOM_ERR_PARSE, "3: the input ends after 1 of the 1000000000000 values"},
        {"overflow.mtx", "%%MatrixMarket matrix array real general\n4294967296 4294967296\n", LOOM_ERR_OVERFLOW, "2: a 4294967296 x 4294967296 matrix does not fit"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *path = temp_path(cases[i].name);
        write_file(path, cases[i].text, strlen(cases[i].text));
        char needle[512];
        snprintf(needle, sizeof needle, "%s:%s", path, cases[i].message);
        loom_dense d = {0};
        expect_error(loom_dense_read(ctx, path, LOOM_F64, LOOM_ROW_MAJOR, &d), cases[i].status,
                     needle, cases[i].name);
        assert_null(d.data);
        remove(path);
    }
    loom_dense d;
    loom_status st = loom_dense_read(ctx, temp_path("integer.mtx"), LOOM_F64, LOOM_COL_MAJOR, &d);
    expect_error(st, LOOM_ERR_IO, "integer.mtx: cannot open", "missing file");
    static const char ints[] = "%%MatrixMarket matrix array integer general\n2 1\n-7\n9\n";
    write_file(temp_path("integer.mtx"), ints, strlen(ints));
    assert_int_equal(loom_dense_read(ctx, temp_path("integer.mtx"), LOOM_F32, LOOM_COL_MAJOR, &d),
                     LOOM_SUCCESS);
    assert_true(((float *)d.data)[0] == -7.0f && ((float *)d.data)[1] == 9.0f);
    loom_dense_free(ctx, &d);
    remove(temp_path("integer.mtx"));
}

/* ------------------------------------------------------ argument checks */

static void test_arguments(void **state)
{
    (void)state;
    loom_csr *A = NULL;
    expect_error(loom_csr_read(NULL, UNITTEST_DIR "karate.mtx", LOOM_F32, &A),
                 LOOM_ERR_NULL_POINTER, "loom_csr_read", "NULL ctx");
    expect_error(loom_csr_read(ctx, NULL, LOOM_F32, &A), LOOM_ERR_NULL_POINTER, "path", "NULL path");
    expect_error(loom_csr_read(ctx, UNITTEST_DIR "karate.mtx", LOOM_F32, NULL),
                 LOOM_ERR_NULL_POINTER, "loom_csr_read", "NULL out");
    expect_error(loom_csr_read(ctx, UNITTEST_DIR "karate.mtx", (loom_dtype)7, &A),
                 LOOM_ERR_INVALID_ARGUMENT, "dtype 7", "bad dtype");
    expect_error(loom_csr_read_memory(ctx, NULL, 10, "x", LOOM_F32, &A), LOOM_ERR_NULL_POINTER,
                 "data", "NULL data");
    expect_error(loom_csr_read(ctx, temp_path("no-such-file.mtx"), LOOM_F32, &A), LOOM_ERR_IO,
                 "no-such-file.mtx: cannot open: No such file or directory", "missing file");
    expect_error(loom_csr_read(ctx, temp_dir, LOOM_F32, &A), LOOM_ERR_IO, "Is a directory",
                 "a directory");
    loom_dense d;
    expect_error(loom_dense_read(ctx, UNITTEST_DIR "karate.mtx", LOOM_F32, (loom_layout)3, &d),
                 LOOM_ERR_INVALID_ARGUMENT, "layout 3", "bad layout");
    assert_null(A);
}

static void test_write_errors(void **state)
{
    (void)state;
    loom_csr *A = read_ok(UNITTEST_DIR "karate.mtx", LOOM_F32);
    /* /dev/null is a file, so nothing can ever be created below it */
    expect_error(loom_csr_write(A, "/dev/null/out.mtx"), LOOM_ERR_IO,
                 "/dev/null/out.mtx: cannot open for writing: Not a directory",
                 "csr below a file");
    expect_error(loom_csr_write(A, NULL), LOOM_ERR_NULL_POINTER, "path", "NULL path");
    expect_error(loom_csr_write(NULL, temp_path("x.mtx")), LOOM_ERR_NULL_POINTER, NULL, "NULL A");
    if (access("/dev/full", W_OK) == 0) /* a full disk: the error shows at flush time */
        expect_error(loom_csr_write(A, "/dev/full"), LOOM_ERR_IO,
                     "/dev/full: write error: No space left on device", "full disk");
    loom_csr_destroy(&A);
    float x[2] = {1, 2};
    loom_dense d;
    assert_int_equal(loom_dense_init(&d, 2, 1, 1, LOOM_ROW_MAJOR, LOOM_F32, LOOM_MEMORY_HOST, x),
                     LOOM_SUCCESS);
    expect_error(loom_dense_write(&d, "/dev/null/d.mtx"), LOOM_ERR_IO,
                 "/dev/null/d.mtx: cannot open for writing", "dense below a file");
    d.memory = LOOM_MEMORY_DEVICE;
    expect_error(loom_dense_write(&d, temp_path("d.mtx")), LOOM_ERR_NOT_SUPPORTED,
                 "copy it to host memory first", "device memory");
}

/* ------------------------------------------- allocation failure walk */

/* In a child process (LOOM_FAIL_ALLOC is read once per process), every
 * reader and writer either succeeds or reports LOOM_ERR_OUT_OF_MEMORY. */
#define OOM_CHILD_FLAG "--oom-child"
static const char *self_path; /* argv[0]: the child is this program again */

static int oom_child(void)
{
    loom_context *c = NULL;
    if (loom_context_create(&c) != LOOM_SUCCESS)
        return 2; /* the injected failure hit the context */
    static const char *files[] = {UNITTEST_DIR "LFAT5.mtx", UNITTEST_DIR "west0067.mtx.gz",
                                  UNITTEST_DIR "dlmc_rn50_mp0.98_bottleneck_1_g1_1_1.smtx",
                                  UNITTEST_DIR "young1c.mtx", MALFORMED_DIR "paru_row0.mtx"};
    int result = 0;
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        loom_csr *A = NULL;
        loom_status st = loom_csr_read(c, files[i], LOOM_F64, &A);
        if (st == LOOM_SUCCESS) {
            const char *out = getenv("LOOM_TEST_OUT");
            st = out ? loom_csr_write(A, out) : LOOM_SUCCESS;
            loom_csr_destroy(&A);
        }
        if (st != LOOM_SUCCESS && st != LOOM_ERR_OUT_OF_MEMORY && st != LOOM_ERR_PARSE &&
            st != LOOM_ERR_NOT_SUPPORTED)
            result = 3;
        if (st == LOOM_ERR_OUT_OF_MEMORY)
            result = result ? result : 2; /* 2: an injected failure was seen */
    }
    loom_context_destroy(&c);
    return result;
}

static void test_allocation_failures(void **state)
{
    (void)state;
    int last = -1;
    for (int n = 1; n <= 400; n++) {
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            char count[16];
            snprintf(count, sizeof count, "%d", n);
            setenv("LOOM_FAIL_ALLOC", count, 1);
            setenv("LOOM_TEST_OUT", temp_path("oom.mtx"), 1);
            execlp(self_path, self_path, OOM_CHILD_FLAG, (char *)NULL);
            _exit(127);
        }
        int status;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        if (WIFSIGNALED(status))
            fail_msg("LOOM_FAIL_ALLOC=%d: killed by signal %d", n, WTERMSIG(status));
        assert_true(WIFEXITED(status));
        last = WEXITSTATUS(status);
        if (last == 127)
            skip(); /* the program cannot run itself again */
        if (last != 0 && last != 2)
            fail_msg("LOOM_FAIL_ALLOC=%d: a reader failed with a status other than out of memory", n);
        if (last == 0) /* no reader met the injected failure any more: all paths walked */
            break;
    }
    assert_int_equal(last, 0);
    remove(temp_path("oom.mtx"));
}

/* ------------------------------------------------------------------ main */

static int group_setup(void **state)
{
    (void)state;
    snprintf(temp_dir, sizeof temp_dir, "/tmp/loom_test_mmio_XXXXXX");
    if (!mkdtemp(temp_dir))
        return -1;
    return loom_context_create(&ctx) == LOOM_SUCCESS ? 0 : -1;
}

static int group_teardown(void **state)
{
    (void)state;
    rmdir(temp_dir);
    return loom_context_destroy(&ctx) == LOOM_SUCCESS ? 0 : -1;
}

/* One test per row of a table, named "prefix/row". */
static char test_names[256][96];
static size_t named;

static const char *test_name(const char *prefix, const char *row)
{
    assert_true(named < sizeof test_names / sizeof test_names[0]);
    snprintf(test_names[named], sizeof test_names[named], "%s/%s", prefix, row);
    return test_names[named++];
}

#define ADD_TABLE(tests, n, table, function, prefix, name_field)                            \
    for (size_t i_ = 0; i_ < sizeof(table) / sizeof((table)[0]); i_++) {                     \
        struct CMUnitTest t_ = {test_name(prefix, (table)[i_].name_field), function, NULL,   \
                                NULL, (void *)&(table)[i_]};                                 \
        (tests)[(n)++] = t_;                                                                 \
    }

int main(int argc, char **argv)
{
    self_path = argv[0];
    if (argc > 1 && strcmp(argv[1], OOM_CHILD_FLAG) == 0)
        return oom_child();

    static const struct CMUnitTest fixed[] = {
        cmocka_unit_test(test_pattern_values_are_one),
        cmocka_unit_test(test_symmetric_expansion_is_symmetric),
        cmocka_unit_test(test_complex_is_not_supported),
        cmocka_unit_test(test_dlmc_smtx_matches_mtx),
        cmocka_unit_test(test_gzip_matches_plain),
        cmocka_unit_test(test_gzip_multiple_members),
        cmocka_unit_test(test_gzip_without_zlib_is_explained),
        cmocka_unit_test(test_memory_matches_file),
        cmocka_unit_test(test_memory_error_names_the_buffer),
        cmocka_unit_test(test_nul_byte_in_line),
        cmocka_unit_test(test_truncated_gzip),
        cmocka_unit_test(test_corrupt_gzip),
        cmocka_unit_test(test_gzip_huge_claim),
        cmocka_unit_test(test_layout_tolerance),
        cmocka_unit_test(test_duplicates_summed_in_file_order),
        cmocka_unit_test(test_skew_symmetric_mirror_negated),
        cmocka_unit_test(test_inf_nan_values_accepted),
        cmocka_unit_test(test_empty_and_zero_size),
        cmocka_unit_test(test_smtx_unsorted_row_is_sorted),
        cmocka_unit_test(test_csr_round_trip),
        cmocka_unit_test(test_csr_round_trip_file),
        cmocka_unit_test(test_dense_round_trip),
        cmocka_unit_test(test_dense_read_errors),
        cmocka_unit_test(test_arguments),
        cmocka_unit_test(test_write_errors),
        cmocka_unit_test(test_allocation_failures),
    };
    enum {
        TOTAL = sizeof shapes / sizeof shapes[0] + sizeof values / sizeof values[0] +
                sizeof malformed / sizeof malformed[0] + sizeof hostile / sizeof hostile[0] +
                sizeof fixed / sizeof fixed[0]
    };
    static struct CMUnitTest tests[TOTAL];
    size_t n = 0;
    ADD_TABLE(tests, n, shapes, test_shape, "shape", file);
    ADD_TABLE(tests, n, values, test_value, "value", name);
    ADD_TABLE(tests, n, malformed, test_malformed, "malformed", file);
    ADD_TABLE(tests, n, hostile, test_hostile, "hostile", name);
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        tests[n++] = fixed[i];
    return _cmocka_run_group_tests("mmio", tests, n, group_setup, group_teardown);
}
