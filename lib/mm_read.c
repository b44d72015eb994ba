/*
 * mm_read.c - reading Matrix Market (.mtx) and DLMC (.smtx) files into CSR,
 * and Matrix Market array files into dense matrices.
 *
 * Every failure names the file and, where one is to blame, the line.  Counts
 * announced by a file are never trusted for allocation: buffers start at what
 * the remaining input could hold and grow with the data actually read, so a
 * ten-byte file that claims 10^12 entries costs ten bytes of reading.
 */
#include "config.h"
#include "loom_internal.h"
#include "mm_stream.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Coordinate indices are stored as int32; rows are limited the same way
 * (see check_dimensions). */
#define INDEX_LIMIT INT32_MAX
/* Initial entry capacity when the input size is unknown (gzip). */
#define UNKNOWN_SIZE_START ((size_t)1 << 16)

/* --------------------------------------------------------------- messages */

/* Sets "FILE:LINE: message" for the line the stream last returned. */
static loom_status at_line(const loom__mm_stream *s, loom_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static loom_status at_line(const loom__mm_stream *s, loom_status status, const char *fmt, ...)
{
    char message[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    return loom__error(status, "%s:%" PRId64 ": %s", loom__mm_stream_name(s),
                       loom__mm_stream_line_number(s), message);
}

static loom_status out_of_memory(const loom__mm_stream *s, const char *what)
{
    return loom__error(LOOM_ERR_OUT_OF_MEMORY, "%s: out of memory for %s",
                       loom__mm_stream_name(s), what);
}

/* ----------------------------------------------------------------- tokens */

typedef struct cursor {
    char *p;   /* next unread character */
    char *end; /* the line's terminating NUL */
} cursor;

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static void skip_blanks(cursor *c)
{
    while (c->p < c->end && is_blank(*c->p))
        c->p++;
}

static bool at_end(cursor *c)
{
    skip_blanks(c);
    return c->p == c->end;
}

/* The token at the cursor, printable, for quoting in a message. */
static const char *token_text(const cursor *c, char *buf, size_t size)
{
    size_t n = 0;
    for (const char *q = c->p; q < c->end && !is_blank(*q) && n + 1 < size; q++)
        buf[n++] = (*q >= 0x20 && *q < 0x7f) ? *q : '?';
    buf[n] = '\0';
    return n ? buf : "end of line";
}

typedef enum token_result { TOKEN_OK, TOKEN_MISSING, TOKEN_BAD, TOKEN_TOO_BIG } token_result;

/* A decimal integer ending at a blank, a comma (DLMC headers) or the end of
 * the line.  On failure the cursor stays on the token, for the message. */
static token_result parse_int64(cursor *c, int64_t *value)
{
    skip_blanks(c);
    if (c->p == c->end)
        return TOKEN_MISSING;
    const char *q = c->p;
    bool negative = *q == '-';
    if (*q == '-' || *q == '+')
        q++;
    if (q == c->end || *q < '0' || *q > '9')
        return TOKEN_BAD;
    while (q + 1 < c->end && *q == '0' && q[1] >= '0' && q[1] <= '9')
        q++; /* leading zeros do not count towards the 19 digits below */
    const char *digits = q;
    uint64_t acc = 0;
    for (; q < c->end && *q >= '0' && *q <= '9'; q++)
        acc = acc * 10 + (unsigned)(*q - '0');
    /* Up to 19 digits cannot wrap a uint64; 20 or more exceed any int64. */
    bool too_big = q - digits > 19;
    if (q < c->end && !is_blank(*q) && *q != ',')
        return TOKEN_BAD;
    uint64_t limit = negative ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    if (too_big || acc > limit)
        return TOKEN_TOO_BIG;
    *value = negative ? (acc == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)acc)
                      : (int64_t)acc;
    c->p = (char *)q;
    return TOKEN_OK;
}

/* A floating-point value, rounded once to the target type (strtof for f32:
 * strtod then a cast would round twice).  Inf and NaN are accepted. */
static token_result parse_real(cursor *c, loom_dtype dtype, void *out)
{
    skip_blanks(c);
    if (c->p == c->end)
        return TOKEN_MISSING;
    char *e;
    if (dtype == LOOM_F32) {
        float f = strtof(c->p, &e);
        memcpy(out, &f, sizeof f);
    } else {
        double d = strtod(c->p, &e);
        memcpy(out, &d, sizeof d);
    }
    /* The line is NUL-terminated, so strtod never reads past its end; a NUL
     * inside the line stops it early and fails the test below. */
    if (e == c->p || (e < c->end && !is_blank(*e)))
        return TOKEN_BAD;
    c->p = e;
    return TOKEN_OK;
}

static void store_int(loom_dtype dtype, int64_t v, void *out)
{
    if (dtype == LOOM_F32) {
        float f = (float)v;
        memcpy(out, &f, sizeof f);
    } else {
        double d = (double)v;
        memcpy(out, &d, sizeof d);
    }
}

static void negate_value(loom_dtype dtype, void *v)
{
    if (dtype == LOOM_F32) {
        float f;
        memcpy(&f, v, sizeof f);
        f = -f;
        memcpy(v, &f, sizeof f);
    } else {
        double d;
        memcpy(&d, v, sizeof d);
        d = -d;
        memcpy(v, &d, sizeof d);
    }
}

/* ------------------------------------------------------------------ lines */

static bool is_blank_line(const char *line, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (!is_blank(line[i]))
            return false;
    return true;
}

/* The next line that is neither blank nor a comment; c->p is NULL at the end. */
static loom_status next_content_line(loom__mm_stream *s, cursor *c)
{
    for (;;) {
        char *line;
        size_t len;
        loom_status st = loom__mm_stream_next_line(s, &line, &len);
        if (st != LOOM_SUCCESS || !line) {
            c->p = c->end = NULL;
            return st;
        }
        c->p = line;
        c->end = line + len;
        skip_blanks(c);
        if (c->p < c->end && *c->p != '%')
            return LOOM_SUCCESS;
    }
}

/* --------------------------------------------------------------- growable */

/* An array that grows by doubling up to a limit (the count the file
 * announced), so allocation follows the data actually read. */
typedef struct growable {
    unsigned char *data;
    size_t count, cap, limit, elem;
} growable;

static bool growable_reserve(growable *g, size_t want)
{
    if (want <= g->cap)
        return true;
    size_t cap = g->cap ? g->cap : 16;
    while (cap < want)
        cap = cap > SIZE_MAX / 2 ? SIZE_MAX : cap * 2;
    if (cap > g->limit)
        cap = g->limit > want ? g->limit : want;
    size_t bytes;
    if (!loom__mul_size(cap, g->elem, &bytes))
        return false;
    unsigned char *bigger = loom__malloc(bytes);
    if (!bigger)
        return false;
    if (g->count)
        memcpy(bigger, g->data, g->count * g->elem);
    loom__free(g->data);
    g->data = bigger;
    g->cap = cap;
    return true;
}

/* What a buffer for `limit` items may start at, when each item takes at
 * least `min_bytes` of text: no more than the rest of the input can hold. */
static size_t start_capacity(const loom__mm_stream *s, size_t limit, size_t min_bytes,
                             size_t items_per_record)
{
    uint64_t left = loom__mm_stream_bytes_left(s);
    uint64_t fits = left == UINT64_MAX ? UNKNOWN_SIZE_START
                                       : (left / min_bytes + 1) * items_per_record;
    return fits < limit ? (size_t)fits : limit;
}

/* ----------------------------------------------------------------- banner */

typedef enum mm_format { MM_COORDINATE, MM_ARRAY } mm_format;
typedef enum mm_field { MM_REAL, MM_INTEGER, MM_PATTERN, MM_COMPLEX } mm_field;
typedef enum mm_symmetry { MM_GENERAL, MM_SYMMETRIC, MM_SKEW, MM_HERMITIAN } mm_symmetry;

typedef struct mm_header {
    mm_format format;
    mm_field field;
    mm_symmetry symmetry;
} mm_header;

typedef struct keyword {
    const char *text;
    int value;
} keyword;

static const keyword objects[] = {{"matrix", 0}};
static const keyword formats[] = {{"coordinate", MM_COORDINATE}, {"array", MM_ARRAY}};
/* "double" is not in the NIST text but some writers use it for real. */
static const keyword fields[] = {{"real", MM_REAL},
                                 {"double", MM_REAL},
                                 {"integer", MM_INTEGER},
                                 {"pattern", MM_PATTERN},
                                 {"complex", MM_COMPLEX}};
static const keyword symmetries[] = {{"general", MM_GENERAL},
                                     {"symmetric", MM_SYMMETRIC},
                                     {"skew-symmetric", MM_SKEW},
                                     {"hermitian", MM_HERMITIAN}};

#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

/* ASCII case-insensitive comparison of a word of `len` bytes with `text`. */
static bool word_equals(const char *word, size_t len, const char *text)
{
    for (size_t i = 0; i < len; i++) {
        char a = word[i], b = text[i];
        if (a >= 'A' && a <= 'Z')
            a = (char)(a - 'A' + 'a');
        if (b == '\0' || a != b)
            return false;
    }
    return text[len] == '\0';
}

static size_t word_length(const cursor *c)
{
    size_t n = 0;
    while (c->p + n < c->end && !is_blank(c->p[n]))
        n++;
    return n;
}

static loom_status banner_word(const loom__mm_stream *s, cursor *c, const char *what,
                               const keyword *table, size_t count, const char *expected,
                               int *value)
{
    skip_blanks(c);
    size_t len = word_length(c);
    if (len == 0)
        return at_line(s, LOOM_ERR_PARSE, "the banner ends before the %s (expected %s)", what,
                       expected);
    for (size_t i = 0; i < count; i++) {
        if (word_equals(c->p, len, table[i].text)) {
            *value = table[i].value;
            c->p += len;
            return LOOM_SUCCESS;
        }
    }
    char text[48];
    return at_line(s, LOOM_ERR_PARSE, "unknown %s '%s' in the banner (expected %s)", what,
                   token_text(c, text, sizeof text), expected);
}

/* The banner must be the first line; blank lines before it are tolerated
 * (some generators write one). */
static loom_status first_nonblank_line(loom__mm_stream *s, cursor *c)
{
    for (;;) {
        char *line;
        size_t len;
        loom_status st = loom__mm_stream_next_line(s, &line, &len);
        if (st != LOOM_SUCCESS)
            return st;
        if (!line)
            return loom__error(LOOM_ERR_PARSE,
                               "%s: the input is empty (expected a %%%%MatrixMarket banner)",
                               loom__mm_stream_name(s));
        if (!is_blank_line(line, len)) {
            c->p = line;
            c->end = line + len;
            return LOOM_SUCCESS;
        }
    }
}

static loom_status check_header_combination(const loom__mm_stream *s, const mm_header *h)
{
    if (h->field == MM_COMPLEX)
        return at_line(s, LOOM_ERR_NOT_SUPPORTED,
                       "complex matrices are not supported (loom computes with real values)");
    if (h->symmetry == MM_HERMITIAN)
        return at_line(s, LOOM_ERR_PARSE,
                       "'hermitian' is defined only for complex matrices; a %s matrix equal to "
                       "its transpose is 'symmetric'",
                       h->field == MM_PATTERN ? "pattern" : "real");
    if (h->field == MM_PATTERN && h->format == MM_ARRAY)
        return at_line(s, LOOM_ERR_PARSE, "'pattern' is not allowed with the array format");
    if (h->field == MM_PATTERN && h->symmetry == MM_SKEW)
        return at_line(s, LOOM_ERR_PARSE,
                       "'skew-symmetric' is not allowed for pattern matrices (no values to negate)");
    return LOOM_SUCCESS;
}

/* Names the compressor whose magic bytes start the text, if one that loom
 * does not read does. */
static const char *other_compression(const char *p, size_t n)
{
    static const struct {
        const char *magic;
        size_t len;
        const char *name;
    } magics[] = {{"BZh", 3, "bzip2"}, {"\xfd" "7zXZ", 5, "xz"}, {"\x28\xb5\x2f\xfd", 4, "zstd"},
                  {"PK\x03\x04", 4, "zip"}};
    for (size_t i = 0; i < COUNT_OF(magics); i++)
        if (n >= magics[i].len && memcmp(p, magics[i].magic, magics[i].len) == 0)
            return magics[i].name;
    return NULL;
}

static loom_status read_banner(loom__mm_stream *s, mm_header *h)
{
    cursor c;
    loom_status st = first_nonblank_line(s, &c);
    if (st != LOOM_SUCCESS)
        return st;
    static const char tag[] = "%%matrixmarket";
    size_t len = word_length(&c);
    if (!word_equals(c.p, len, tag)) {
        const char *packer = other_compression(c.p, (size_t)(c.end - c.p));
        if (packer)
            return at_line(s, LOOM_ERR_NOT_SUPPORTED,
                           "the content looks %s-compressed; loom reads plain and gzip files "
                           "only", packer);
        char text[48];
        int64_t number;
        cursor probe = c;
        bool dlmc_like = parse_int64(&probe, &number) == TOKEN_OK && probe.p < probe.end &&
                         *probe.p == ',';
        return at_line(s, LOOM_ERR_PARSE, "expected the %%%%MatrixMarket banner, found '%s'%s",
                       token_text(&c, text, sizeof text),
                       dlmc_like ? " (a DLMC file? its name must end in .smtx or .smtx.gz)" : "");
    }
    c.p += len;
    int object, format, field, symmetry;
    st = banner_word(s, &c, "object", objects, COUNT_OF(objects), "matrix", &object);
    if (st == LOOM_SUCCESS)
        st = banner_word(s, &c, "format", formats, COUNT_OF(formats), "coordinate or array",
                         &format);
    if (st == LOOM_SUCCESS)
        st = banner_word(s, &c, "field", fields, COUNT_OF(fields),
                         "real, integer, pattern or complex", &field);
    if (st == LOOM_SUCCESS)
        st = banner_word(s, &c, "symmetry", symmetries, COUNT_OF(symmetries),
                         "general, symmetric, skew-symmetric or hermitian", &symmetry);
    if (st != LOOM_SUCCESS)
        return st;
    if (!at_end(&c)) {
        char text[48];
        return at_line(s, LOOM_ERR_PARSE, "unexpected '%s' at the end of the banner",
                       token_text(&c, text, sizeof text));
    }
    h->format = (mm_format)format;
    h->field = (mm_field)field;
    h->symmetry = (mm_symmetry)symmetry;
    return check_header_combination(s, h);
}

/* ------------------------------------------------------------ size line */

/* Reads `count` non-negative integers named by `names` from the first
 * content line after the banner. */
static loom_status read_size_line(loom__mm_stream *s, int count, const char *const *names,
                                  int64_t *values)
{
    cursor c;
    loom_status st = next_content_line(s, &c);
    if (st != LOOM_SUCCESS)
        return st;
    if (!c.p)
        return at_line(s, LOOM_ERR_PARSE, "the input ends before the size line");
    char text[48];
    for (int k = 0; k < count; k++) {
        switch (parse_int64(&c, &values[k])) {
        case TOKEN_OK:
            break;
        case TOKEN_MISSING:
            return at_line(s, LOOM_ERR_PARSE, "the size line ends before the number of %s",
                           names[k]);
        case TOKEN_BAD:
            return at_line(s, LOOM_ERR_PARSE, "expected the number of %s, found '%s'",
                           names[k], token_text(&c, text, sizeof text));
        case TOKEN_TOO_BIG:
            return at_line(s, LOOM_ERR_OVERFLOW, "the number of %s '%s' does not fit in 64 bits",
                           names[k], token_text(&c, text, sizeof text));
        }
        if (values[k] < 0)
            return at_line(s, LOOM_ERR_PARSE, "negative number of %s (%" PRId64 ")", names[k],
                           values[k]);
    }
    if (!at_end(&c))
        return at_line(s, LOOM_ERR_PARSE, "unexpected '%s' at the end of the size line",
                       token_text(&c, text, sizeof text));
    return LOOM_SUCCESS;
}

/* Column indices are int32.  Rows are held to the same limit: the row
 * offsets alone of a matrix with 2^40 rows would take 8 TiB, and a reader
 * must not try to allocate that because a header said so. */
static loom_status check_dimensions(const loom__mm_stream *s, int64_t rows, int64_t cols)
{
    if (rows > INDEX_LIMIT)
        return at_line(s, LOOM_ERR_OVERFLOW,
                       "%" PRId64 " rows exceed the reader's limit of %d (row offsets alone would "
                       "take %" PRId64 " GiB)",
                       rows, INDEX_LIMIT, (int64_t)(((uint64_t)rows + 1) * 8 >> 30));
    if (cols > INDEX_LIMIT)
        return at_line(s, LOOM_ERR_OVERFLOW,
                       "%" PRId64 " columns exceed %d: column indices are 32-bit", cols,
                       INDEX_LIMIT);
    return LOOM_SUCCESS;
}

/* ------------------------------------------------------- coordinate data */

/* Entries in file order (symmetric mirrors right after their original). */
typedef struct coo {
    growable row, col, val;
} coo;

static void coo_free(coo *e)
{
    loom__free(e->row.data);
    loom__free(e->col.data);
    loom__free(e->val.data);
    memset(e, 0, sizeof *e);
}

static bool coo_reserve(coo *e, size_t want)
{
    return growable_reserve(&e->row, want) && growable_reserve(&e->col, want) &&
           growable_reserve(&e->val, want);
}

static loom_status coo_push(const loom__mm_stream *s, coo *e, int32_t row, int32_t col,
                            const void *value)
{
    size_t n = e->row.count;
    bool full = n == e->row.cap || n == e->col.cap || n == e->val.cap;
    if (full && !coo_reserve(e, n + 1))
        return out_of_memory(s, "the entries");
    ((int32_t *)(void *)e->row.data)[n] = row;
    ((int32_t *)(void *)e->col.data)[n] = col;
    if (e->val.elem == sizeof(float)) /* fixed sizes: an inline move, not a call */
        memcpy(e->val.data + n * sizeof(float), value, sizeof(float));
    else
        memcpy(e->val.data + n * sizeof(double), value, sizeof(double));
    e->row.count = e->col.count = e->val.count = n + 1;
    return LOOM_SUCCESS;
}

static loom_status parse_index(const loom__mm_stream *s, cursor *c, const char *what,
                               int64_t limit, int32_t *index0)
{
    int64_t v = 0;
    char text[48];
    switch (parse_int64(c, &v)) {
    case TOKEN_OK:
        break;
    case TOKEN_MISSING:
        return at_line(s, LOOM_ERR_PARSE, "the entry ends before its %s index", what);
    case TOKEN_BAD:
        return at_line(s, LOOM_ERR_PARSE, "expected an integer %s index, found '%s'", what,
                       token_text(c, text, sizeof text));
    case TOKEN_TOO_BIG:
        return at_line(s, LOOM_ERR_PARSE, "%s index %s out of range 1..%" PRId64, what,
                       token_text(c, text, sizeof text), limit);
    }
    if (v < 1 || v > limit)
        return at_line(s, LOOM_ERR_PARSE, "%s index %" PRId64 " out of range 1..%" PRId64, what,
                       v, limit);
    *index0 = (int32_t)(v - 1);
    return LOOM_SUCCESS;
}

/* One value of the given field into the target type. */
static loom_status parse_value(const loom__mm_stream *s, cursor *c, mm_field field,
                               loom_dtype dtype, void *out)
{
    if (field == MM_PATTERN) {
        store_int(dtype, 1, out);
        return LOOM_SUCCESS;
    }
    token_result r;
    if (field == MM_INTEGER) {
        int64_t v = 0;
        r = parse_int64(c, &v);
        if (r == TOKEN_OK)
            store_int(dtype, v, out);
        else if (r == TOKEN_TOO_BIG) /* still an integer; the target type rounds it */
            r = parse_real(c, dtype, out);
    } else {
        r = parse_real(c, dtype, out);
    }
    char text[48];
    if (r == TOKEN_MISSING)
        return at_line(s, LOOM_ERR_PARSE, "missing value");
    if (r != TOKEN_OK)
        return at_line(s, LOOM_ERR_PARSE, "expected %s value, found '%s'",
                       field == MM_INTEGER ? "an integer" : "a real",
                       token_text(c, text, sizeof text));
    return LOOM_SUCCESS;
}

typedef struct coordinate_shape {
    int64_t rows, cols, entries; /* entries: as the size line declares */
} coordinate_shape;

/* Parses one entry line and stores it, and its mirror under symmetry.  The
 * format stores the lower triangle; an entry above the diagonal is mirrored
 * all the same (as MATLAB's and SciPy's readers do) rather than refused. */
static loom_status read_entry(const loom__mm_stream *s, cursor *c, const mm_header *h,
                              const coordinate_shape *shape, loom_dtype dtype, coo *e)
{
    int32_t i, j;
    double value[1]; /* room for either dtype, suitably aligned */
    loom_status st = parse_index(s, c, "row", shape->rows, &i);
    if (st == LOOM_SUCCESS)
        st = parse_index(s, c, "column", shape->cols, &j);
    if (st == LOOM_SUCCESS)
        st = parse_value(s, c, h->field, dtype, value);
    if (st != LOOM_SUCCESS)
        return st;
    if (!at_end(c)) {
        char text[48];
        return at_line(s, LOOM_ERR_PARSE, "unexpected '%s' after the entry",
                       token_text(c, text, sizeof text));
    }
    if (h->symmetry == MM_SKEW && i == j)
        return at_line(s, LOOM_ERR_PARSE,
                       "diagonal entry (%d, %d) in a skew-symmetric matrix (its diagonal is "
                       "zero and must not be stored)", i + 1, j + 1);
    st = coo_push(s, e, i, j, value);
    if (st != LOOM_SUCCESS || h->symmetry == MM_GENERAL || i == j)
        return st;
    if (h->symmetry == MM_SKEW)
        negate_value(dtype, value);
    return coo_push(s, e, j, i, value);
}

static loom_status read_entries(loom__mm_stream *s, const mm_header *h,
                                const coordinate_shape *shape, loom_dtype dtype, coo *e)
{
    bool mirrored = h->symmetry != MM_GENERAL;
    size_t limit = (size_t)shape->entries * (mirrored ? 2 : 1);
    e->row.elem = e->col.elem = sizeof(int32_t);
    e->val.elem = loom_dtype_size(dtype);
    e->row.limit = e->col.limit = e->val.limit = limit;
    /* "1 1\n" is the shortest entry line: 4 bytes. */
    if (!coo_reserve(e, start_capacity(s, limit, 4, mirrored ? 2 : 1)))
        return out_of_memory(s, "the entries");
    int64_t seen = 0;
    for (;;) {
        cursor c;
        loom_status st = next_content_line(s, &c);
        if (st != LOOM_SUCCESS)
            return st;
        if (!c.p)
            break;
        if (seen == shape->entries)
            return at_line(s, LOOM_ERR_PARSE,
                           "more entries than the %" PRId64 " the size line declares",
                           shape->entries);
        st = read_entry(s, &c, h, shape, dtype, e);
        if (st != LOOM_SUCCESS)
            return st;
        seen++;
    }
    if (seen < shape->entries)
        return at_line(s, LOOM_ERR_PARSE,
                       "the input ends after %" PRId64 " of the %" PRId64
                       " entries the size line declares",
                       seen, shape->entries);
    return LOOM_SUCCESS;
}

/* ------------------------------------------------------- building the CSR */

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static void sort_u64(uint64_t *keys, size_t n)
{
    if (n > 32) {
        qsort(keys, n, sizeof *keys, compare_u64);
        return;
    }
    for (size_t i = 1; i < n; i++) {
        uint64_t k = keys[i];
        size_t j = i;
        for (; j > 0 && keys[j - 1] > k; j--)
            keys[j] = keys[j - 1];
        keys[j] = k;
    }
}

static bool columns_sorted(const int32_t *cols, int64_t n)
{
    for (int64_t k = 1; k < n; k++)
        if (cols[k - 1] > cols[k])
            return false;
    return true;
}

/* Scratch space for sorting one row, grown to the longest unsorted row. */
typedef struct row_scratch {
    uint64_t *keys;
    unsigned char *values;
    size_t cap;
} row_scratch;

static bool row_scratch_reserve(row_scratch *w, size_t n, size_t vsize)
{
    if (n <= w->cap)
        return true;
    size_t key_bytes, value_bytes;
    if (!loom__mul_size(n, sizeof(uint64_t), &key_bytes) || !loom__mul_size(n, vsize, &value_bytes))
        return false;
    loom__free(w->keys);
    loom__free(w->values);
    w->keys = loom__malloc(key_bytes);
    w->values = loom__malloc(value_bytes);
    w->cap = w->keys && w->values ? n : 0;
    return w->cap != 0;
}

/* Sorts one row by column, keeping file order among equal columns: the key
 * is (column, position in the row), so any sort is stable. */
static void sort_row(int32_t *cols, unsigned char *values, size_t n, size_t vsize,
                     row_scratch *w)
{
    for (size_t k = 0; k < n; k++)
        w->keys[k] = (uint64_t)(uint32_t)cols[k] << 32 | k;
    sort_u64(w->keys, n);
    for (size_t k = 0; k < n; k++) {
        size_t from = (size_t)(uint32_t)w->keys[k];
        cols[k] = (int32_t)(w->keys[k] >> 32);
        memcpy(w->values + k * vsize, values + from * vsize, vsize);
    }
    memcpy(values, w->values, n * vsize);
}

static loom_status sort_rows(const loom__mm_stream *s, int64_t rows, const int64_t *offsets,
                             int32_t *cols, unsigned char *values, size_t vsize)
{
    row_scratch w = {0};
    loom_status st = LOOM_SUCCESS;
    for (int64_t r = 0; r < rows && st == LOOM_SUCCESS; r++) {
        int64_t b = offsets[r], n = offsets[r + 1] - b;
        if (columns_sorted(cols + b, n))
            continue;
        if ((uint64_t)n > UINT32_MAX)
            st = loom__error(LOOM_ERR_OVERFLOW, "%s: row %" PRId64 " holds %" PRId64
                             " entries; at most 2^32 per row can be sorted",
                             loom__mm_stream_name(s), r + 1, n);
        else if (!row_scratch_reserve(&w, (size_t)n, vsize))
            st = out_of_memory(s, "sorting a row");
        else
            sort_row(cols + b, values + (size_t)b * vsize, (size_t)n, vsize, &w);
    }
    loom__free(w.keys);
    loom__free(w.values);
    return st;
}

static void add_value(loom_dtype dtype, unsigned char *values, int64_t to, int64_t from)
{
    if (dtype == LOOM_F32) {
        float *v = (float *)(void *)values;
        v[to] = v[to] + v[from];
    } else {
        double *v = (double *)(void *)values;
        v[to] = v[to] + v[from];
    }
}

/* Duplicate (row, column) entries are summed, in file order and in the
 * target type: what SuiteSparse (mmread, sparse2) and MATLAB's sparse() do,
 * so loom reads the same matrix they do.  Returns the new count. */
static int64_t sum_duplicates(int64_t rows, int64_t *offsets, int32_t *cols,
                              unsigned char *values, loom_dtype dtype)
{
    size_t vsize = loom_dtype_size(dtype);
    int64_t w = 0;
    for (int64_t r = 0; r < rows; r++) {
        int64_t b = offsets[r], e = offsets[r + 1];
        offsets[r] = w;
        for (int64_t k = b; k < e; k++) {
            if (w > offsets[r] && cols[w - 1] == cols[k]) {
                add_value(dtype, values, w - 1, k);
                continue;
            }
            cols[w] = cols[k];
            if (w != k)
                memcpy(values + (size_t)w * vsize, values + (size_t)k * vsize, vsize);
            w++;
        }
    }
    offsets[rows] = w;
    return w;
}

/* Counting sort by row: stable, so each row keeps its entries in file order. */
static void bucket_by_row(int64_t rows, const coo *e, int64_t *offsets, int32_t *cols,
                          unsigned char *values)
{
    const int32_t *row = (const int32_t *)(const void *)e->row.data;
    const int32_t *col = (const int32_t *)(const void *)e->col.data;
    size_t n = e->row.count, vsize = e->val.elem;
    for (size_t k = 0; k < n; k++)
        offsets[row[k] + 1]++;
    for (int64_t r = 0; r < rows; r++)
        offsets[r + 1] += offsets[r];
    /* offsets[r] serves as row r's insertion point, ending at row r+1's start. */
    for (size_t k = 0; k < n; k++) {
        int64_t at = offsets[row[k]]++;
        cols[at] = col[k];
        if (vsize == sizeof(float)) /* fixed sizes: an inline move, not a call */
            memcpy(values + (size_t)at * sizeof(float), e->val.data + k * sizeof(float),
                   sizeof(float));
        else
            memcpy(values + (size_t)at * sizeof(double), e->val.data + k * sizeof(double),
                   sizeof(double));
    }
    memmove(offsets + 1, offsets, (size_t)rows * sizeof *offsets);
    offsets[0] = 0;
}

static loom_status csr_from_coo(loom_context *ctx, const loom__mm_stream *s, int64_t rows,
                                int64_t cols, loom_dtype dtype, coo *e, loom_csr **A)
{
    size_t n = e->row.count, vsize = loom_dtype_size(dtype);
    size_t index_bytes, value_bytes;
    if (!loom__mul_size(n, sizeof(int32_t), &index_bytes) || !loom__mul_size(n, vsize, &value_bytes))
        return loom__error(LOOM_ERR_OVERFLOW, "%s: too many entries", loom__mm_stream_name(s));
    int64_t *offsets = loom__calloc((size_t)rows + 1, sizeof *offsets);
    int32_t *col_indices = loom__malloc(index_bytes);
    unsigned char *values = loom__malloc(value_bytes);
    if (!offsets || !col_indices || !values) {
        loom__free(offsets);
        loom__free(col_indices);
        loom__free(values);
        return out_of_memory(s, "the CSR arrays");
    }
    bucket_by_row(rows, e, offsets, col_indices, values);
    coo_free(e);
    loom_status st = sort_rows(s, rows, offsets, col_indices, values, vsize);
    if (st != LOOM_SUCCESS) {
        loom__free(offsets);
        loom__free(col_indices);
        loom__free(values);
        return st;
    }
    /* After summing duplicates the arrays may be longer than nnz; the tail
     * is unused, which is cheaper than copying into exact-size arrays. */
    int64_t nnz = sum_duplicates(rows, offsets, col_indices, values, dtype);
    return loom__csr_adopt(ctx, rows, cols, nnz, dtype, offsets, col_indices, values,
                           loom__mm_stream_name(s), A);
}

static loom_status read_coordinate(loom_context *ctx, loom__mm_stream *s, const mm_header *h,
                                   loom_dtype dtype, loom_csr **A)
{
    static const char *const names[] = {"rows", "columns", "entries"};
    int64_t size[3];
    loom_status st = read_size_line(s, 3, names, size);
    if (st != LOOM_SUCCESS)
        return st;
    coordinate_shape shape = {size[0], size[1], size[2]};
    st = check_dimensions(s, shape.rows, shape.cols);
    if (st != LOOM_SUCCESS)
        return st;
    if (h->symmetry != MM_GENERAL && shape.rows != shape.cols)
        return at_line(s, LOOM_ERR_PARSE,
                       "a %s matrix must be square; the size line says %" PRId64 " x %" PRId64,
                       h->symmetry == MM_SKEW ? "skew-symmetric" : "symmetric", shape.rows,
                       shape.cols);
    if ((uint64_t)shape.entries > SIZE_MAX / 2)
        return at_line(s, LOOM_ERR_OVERFLOW, "%" PRId64 " entries do not fit in memory",
                       shape.entries);
    coo e = {0};
    st = read_entries(s, h, &shape, dtype, &e);
    if (st == LOOM_SUCCESS)
        st = csr_from_coo(ctx, s, shape.rows, shape.cols, dtype, &e, A);
    coo_free(&e);
    return st;
}

/* ------------------------------------------------------------- DLMC .smtx */

static bool ends_with_nocase(const char *name, const char *suffix)
{
    size_t n = strlen(name), k = strlen(suffix);
    return n >= k && word_equals(name + n - k, k, suffix);
}

static bool is_smtx_name(const char *name)
{
    return ends_with_nocase(name, ".smtx") || ends_with_nocase(name, ".smtx.gz");
}

static loom_status smtx_line(loom__mm_stream *s, const char *what, cursor *c)
{
    char *line;
    size_t len;
    loom_status st = loom__mm_stream_next_line(s, &line, &len);
    if (st != LOOM_SUCCESS)
        return st;
    if (!line)
        return loom__error(LOOM_ERR_PARSE, "%s:%" PRId64 ": the input ends before the %s",
                           loom__mm_stream_name(s), loom__mm_stream_line_number(s) + 1, what);
    c->p = line;
    c->end = line + len;
    return LOOM_SUCCESS;
}

/* Line 1: "M, K, nnz" (commas optional). */
static loom_status smtx_header(loom__mm_stream *s, int64_t size[3])
{
    static const char *const names[] = {"rows", "columns", "non-zeros"};
    cursor c;
    loom_status st = smtx_line(s, "DLMC header 'rows, columns, non-zeros'", &c);
    if (st != LOOM_SUCCESS)
        return st;
    char text[48];
    for (int k = 0; k < 3; k++) {
        token_result r = parse_int64(&c, &size[k]);
        if (r == TOKEN_TOO_BIG)
            return at_line(s, LOOM_ERR_OVERFLOW, "the number of %s '%s' does not fit in 64 bits",
                           names[k], token_text(&c, text, sizeof text));
        if (r != TOKEN_OK)
            return at_line(s, LOOM_ERR_PARSE,
                           "expected the DLMC header 'rows, columns, non-zeros'; found '%s' "
                           "for the number of %s", token_text(&c, text, sizeof text), names[k]);
        if (size[k] < 0)
            return at_line(s, LOOM_ERR_PARSE, "negative number of %s (%" PRId64 ")", names[k],
                           size[k]);
        skip_blanks(&c);
        if (k < 2 && c.p < c.end && *c.p == ',')
            c.p++;
    }
    if (!at_end(&c))
        return at_line(s, LOOM_ERR_PARSE, "unexpected '%s' after the DLMC header",
                       token_text(&c, text, sizeof text));
    return LOOM_SUCCESS;
}

static size_t count_tokens(cursor c)
{
    size_t n = 0;
    while (!at_end(&c)) {
        n++;
        while (c.p < c.end && !is_blank(*c.p))
            c.p++;
    }
    return n;
}

/* Reads exactly `count` integers in [0, max] from one line into `out`.
 * Each takes at least two bytes ("0 "), so a line too short to hold them
 * is rejected before anything is allocated. */
static loom_status smtx_integers(loom__mm_stream *s, const char *what, size_t count,
                                 int64_t max, size_t elem, void **out)
{
    *out = NULL;
    cursor c;
    loom_status st = count == 0 ? LOOM_SUCCESS : smtx_line(s, what, &c);
    if (st != LOOM_SUCCESS || count == 0)
        return st;
    if (count > (size_t)(c.end - c.p) / 2 + 1)
        return at_line(s, LOOM_ERR_PARSE, "found %zu %s; expected %zu", count_tokens(c), what,
                       count);
    size_t bytes;
    if (!loom__mul_size(count, elem, &bytes))
        return at_line(s, LOOM_ERR_OVERFLOW, "%zu %s do not fit in memory", count, what);
    unsigned char *values = loom__malloc(bytes);
    if (!values)
        return out_of_memory(s, what);
    char text[48];
    for (size_t k = 0; k < count && st == LOOM_SUCCESS; k++) {
        int64_t v = 0;
        token_result r = parse_int64(&c, &v);
        if (r == TOKEN_MISSING)
            st = at_line(s, LOOM_ERR_PARSE, "found %zu %s; expected %zu", k, what, count);
        else if (r == TOKEN_BAD)
            st = at_line(s, LOOM_ERR_PARSE, "expected an integer in the %s, found '%s'", what,
                         token_text(&c, text, sizeof text));
        else if (r == TOKEN_TOO_BIG)
            st = at_line(s, LOOM_ERR_PARSE, "%s number %zu ('%s') does not fit in 64 bits", what,
                         k, token_text(&c, text, sizeof text));
        else if (v < 0 || v > max)
            st = at_line(s, LOOM_ERR_PARSE,
                         "%s number %zu is %" PRId64 ", out of range 0..%" PRId64, what, k, v,
                         max);
        else if (elem == sizeof(int64_t))
            ((int64_t *)(void *)values)[k] = v;
        else
            ((int32_t *)(void *)values)[k] = (int32_t)v;
    }
    if (st == LOOM_SUCCESS && !at_end(&c))
        st = at_line(s, LOOM_ERR_PARSE, "more than the %zu %s expected", count, what);
    if (st != LOOM_SUCCESS) {
        loom__free(values);
        return st;
    }
    *out = values;
    return LOOM_SUCCESS;
}

static loom_status check_smtx_offsets(const loom__mm_stream *s, const int64_t *offsets,
                                      int64_t rows, int64_t nnz)
{
    if (offsets[0] != 0)
        return at_line(s, LOOM_ERR_PARSE, "the first row offset is %" PRId64 "; expected 0",
                       offsets[0]);
    for (int64_t r = 0; r < rows; r++)
        if (offsets[r + 1] < offsets[r])
            return at_line(s, LOOM_ERR_PARSE,
                           "row offsets decrease: offset %" PRId64 " is %" PRId64
                           ", after %" PRId64, r + 1, offsets[r + 1], offsets[r]);
    if (offsets[rows] != nnz)
        return at_line(s, LOOM_ERR_PARSE,
                       "the last row offset is %" PRId64 "; the header declares %" PRId64
                       " non-zeros", offsets[rows], nnz);
    return LOOM_SUCCESS;
}

static int compare_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Some DLMC files list a row's columns out of order; a column twice is an
 * error (a pattern has no values to sum). */
static loom_status sort_smtx_rows(const loom__mm_stream *s, int64_t rows, const int64_t *offsets,
                                  int32_t *cols)
{
    for (int64_t r = 0; r < rows; r++) {
        int32_t *row = cols + offsets[r];
        int64_t n = offsets[r + 1] - offsets[r];
        if (!columns_sorted(row, n))
            qsort(row, (size_t)n, sizeof *row, compare_i32);
        for (int64_t k = 1; k < n; k++)
            if (row[k] == row[k - 1])
                return at_line(s, LOOM_ERR_PARSE, "row %" PRId64 " (0-based) has column %" PRId32
                               " twice", r, row[k]);
    }
    return LOOM_SUCCESS;
}

static loom_status check_smtx_end(loom__mm_stream *s)
{
    for (;;) {
        char *line;
        size_t len;
        loom_status st = loom__mm_stream_next_line(s, &line, &len);
        if (st != LOOM_SUCCESS || !line)
            return st;
        if (!is_blank_line(line, len))
            return at_line(s, LOOM_ERR_PARSE,
                           "unexpected text after the column indices (a DLMC file has 3 lines)");
    }
}

static void *ones(loom_dtype dtype, int64_t n)
{
    size_t vsize = loom_dtype_size(dtype), bytes;
    if (!loom__mul_size((size_t)n, vsize, &bytes))
        return NULL;
    unsigned char *v = loom__malloc(bytes);
    for (int64_t k = 0; v && k < n; k++)
        store_int(dtype, 1, v + (size_t)k * vsize);
    return v;
}

static loom_status read_smtx(loom_context *ctx, loom__mm_stream *s, loom_dtype dtype,
                             loom_csr **A)
{
    int64_t size[3];
    loom_status st = smtx_header(s, size);
    if (st == LOOM_SUCCESS)
        st = check_dimensions(s, size[0], size[1]);
    if (st != LOOM_SUCCESS)
        return st;
    int64_t rows = size[0], cols = size[1], nnz = size[2], cells;
    if (__builtin_mul_overflow(rows, cols, &cells) || nnz > cells)
        return at_line(s, LOOM_ERR_PARSE,
                       "%" PRId64 " non-zeros do not fit a %" PRId64 " x %" PRId64 " pattern",
                       nnz, rows, cols);
    void *offsets = NULL, *indices = NULL, *values = NULL;
    st = smtx_integers(s, "row offsets", (size_t)rows + 1, nnz, sizeof(int64_t), &offsets);
    if (st == LOOM_SUCCESS)
        st = check_smtx_offsets(s, offsets, rows, nnz);
    if (st == LOOM_SUCCESS)
        st = smtx_integers(s, "column indices", (size_t)nnz, cols - 1, sizeof(int32_t), &indices);
    if (st == LOOM_SUCCESS)
        st = sort_smtx_rows(s, rows, offsets, indices);
    if (st == LOOM_SUCCESS)
        st = check_smtx_end(s);
    if (st == LOOM_SUCCESS && !(values = ones(dtype, nnz)))
        st = out_of_memory(s, "the values");
    if (st != LOOM_SUCCESS) {
        loom__free(offsets);
        loom__free(indices);
        return st;
    }
    if (!indices) /* nnz == 0: nothing was read, but the handle wants arrays */
        indices = loom__malloc(1);
    if (!indices) {
        loom__free(offsets);
        loom__free(values);
        return out_of_memory(s, "the column indices");
    }
    return loom__csr_adopt(ctx, rows, cols, nnz, dtype, offsets, indices, values,
                           loom__mm_stream_name(s), A);
}

/* ------------------------------------------------------------ dense array */

static loom_status read_array_values(loom__mm_stream *s, const mm_header *h, loom_dtype dtype,
                                     size_t total, growable *g)
{
    g->elem = loom_dtype_size(dtype);
    g->limit = total;
    /* "1\n" is the shortest value line: 2 bytes. */
    if (!growable_reserve(g, start_capacity(s, total, 2, 1)))
        return out_of_memory(s, "the values");
    for (;;) {
        cursor c;
        loom_status st = next_content_line(s, &c);
        if (st != LOOM_SUCCESS)
            return st;
        if (!c.p)
            break;
        if (g->count == total)
            return at_line(s, LOOM_ERR_PARSE, "more values than the %zu of the size line", total);
        if (g->count == g->cap && !growable_reserve(g, g->count + 1))
            return out_of_memory(s, "the values");
        st = parse_value(s, &c, h->field, dtype, g->data + g->count * g->elem);
        if (st != LOOM_SUCCESS)
            return st;
        if (!at_end(&c)) {
            char text[48];
            return at_line(s, LOOM_ERR_PARSE, "unexpected '%s' after the value (one per line)",
                           token_text(&c, text, sizeof text));
        }
        g->count++;
    }
    if (g->count < total)
        return at_line(s, LOOM_ERR_PARSE,
                       "the input ends after %zu of the %zu values the size line declares",
                       g->count, total);
    return LOOM_SUCCESS;
}

/* The file holds columns one after another; a row-major result is transposed. */
static void *to_row_major(const unsigned char *col_major, int64_t rows, int64_t cols, size_t vsize)
{
    unsigned char *out = loom__malloc((size_t)rows * (size_t)cols * vsize);
    if (!out)
        return NULL;
    for (int64_t j = 0; j < cols; j++)
        for (int64_t i = 0; i < rows; i++)
            memcpy(out + ((size_t)i * (size_t)cols + (size_t)j) * vsize,
                   col_major + ((size_t)j * (size_t)rows + (size_t)i) * vsize, vsize);
    return out;
}

static loom_status read_array(loom__mm_stream *s, const mm_header *h, loom_dtype dtype,
                              loom_layout layout, loom_dense *d)
{
    if (h->symmetry != MM_GENERAL)
        return at_line(s, LOOM_ERR_NOT_SUPPORTED,
                       "only general dense (array) matrices are supported, not %s ones",
                       h->symmetry == MM_SKEW ? "skew-symmetric" : "symmetric");
    static const char *const names[] = {"rows", "columns"};
    int64_t size[2];
    loom_status st = read_size_line(s, 2, names, size);
    if (st != LOOM_SUCCESS)
        return st;
    size_t total, bytes;
    if (!loom__mul_size((size_t)size[0], (size_t)size[1], &total) ||
        !loom__mul_size(total, loom_dtype_size(dtype), &bytes))
        return at_line(s, LOOM_ERR_OVERFLOW, "a %" PRId64 " x %" PRId64 " matrix does not fit in memory",
                       size[0], size[1]);
    growable g = {0};
    st = read_array_values(s, h, dtype, total, &g);
    void *data = g.data;
    if (st == LOOM_SUCCESS && layout == LOOM_ROW_MAJOR && total > 0) {
        data = to_row_major(g.data, size[0], size[1], g.elem);
        loom__free(g.data);
        if (!data)
            st = out_of_memory(s, "the row-major matrix");
    }
    if (st != LOOM_SUCCESS) {
        loom__free(g.data);
        return st;
    }
    int64_t inner = layout == LOOM_ROW_MAJOR ? size[1] : size[0];
    loom_dense result = {size[0], size[1], inner > 1 ? inner : 1, layout, dtype,
                         LOOM_MEMORY_HOST, data};
    *d = result;
    return LOOM_SUCCESS;
}

/* ------------------------------------------------------------------- API */

static loom_status check_read_arguments(loom_context *ctx, const void *source, loom_dtype dtype,
                                        const void *out, const char *fn)
{
    loom_status st = loom__check_context(ctx, fn);
    if (st != LOOM_SUCCESS)
        return st;
    if (!source)
        return loom__error(LOOM_ERR_NULL_POINTER, "%s: the %s is NULL", fn,
                           strcmp(fn, "loom_csr_read_memory") == 0 ? "data" : "path");
    if (!out)
        return loom__error(LOOM_ERR_NULL_POINTER, "%s: the output pointer is NULL", fn);
    if (dtype != LOOM_F32 && dtype != LOOM_F64)
        return loom__error(LOOM_ERR_INVALID_ARGUMENT, "%s: dtype %d is not f32 or f64", fn,
                           (int)dtype);
    return LOOM_SUCCESS;
}

static loom_status read_csr_stream(loom_context *ctx, loom__mm_stream *s, loom_dtype dtype,
                                   loom_csr **A)
{
    if (is_smtx_name(loom__mm_stream_name(s)))
        return read_smtx(ctx, s, dtype, A);
    mm_header h;
    loom_status st = read_banner(s, &h);
    if (st != LOOM_SUCCESS)
        return st;
    if (h.format == MM_ARRAY)
        return at_line(s, LOOM_ERR_NOT_SUPPORTED,
                       "a dense (array) Matrix Market file; read it with loom_dense_read");
    return read_coordinate(ctx, s, &h, dtype, A);
}

/* Runs a CSR read on an opened stream in the C numeric locale, then closes it. */
static loom_status read_csr_and_close(loom_context *ctx, loom__mm_stream *s, loom_dtype dtype,
                                      loom_csr **A)
{
    loom__mm_locale locale;
    loom__mm_locale_enter(&locale);
    loom_status st = read_csr_stream(ctx, s, dtype, A);
    loom__mm_locale_leave(&locale);
    loom__mm_stream_close(&s);
    return st;
}

loom_status loom_csr_read(loom_context *ctx, const char *path, loom_dtype dtype, loom_csr **A)
{
    loom_status st = check_read_arguments(ctx, path, dtype, A, "loom_csr_read");
    if (st != LOOM_SUCCESS)
        return st;
    *A = NULL;
    loom__mm_stream *s;
    st = loom__mm_stream_open_file(path, &s);
    return st == LOOM_SUCCESS ? read_csr_and_close(ctx, s, dtype, A) : st;
}

loom_status loom_csr_read_memory(loom_context *ctx, const void *data, size_t size,
                                 const char *name, loom_dtype dtype, loom_csr **A)
{
    loom_status st = check_read_arguments(ctx, data, dtype, A, "loom_csr_read_memory");
    if (st != LOOM_SUCCESS)
        return st;
    *A = NULL;
    loom__mm_stream *s;
    st = loom__mm_stream_open_memory(data, size, name ? name : "<memory>", &s);
    return st == LOOM_SUCCESS ? read_csr_and_close(ctx, s, dtype, A) : st;
}

static loom_status read_dense_stream(loom__mm_stream *s, loom_dtype dtype, loom_layout layout,
                                     loom_dense *d)
{
    mm_header h;
    loom_status st = read_banner(s, &h);
    if (st != LOOM_SUCCESS)
        return st;
    if (h.format == MM_COORDINATE)
        return at_line(s, LOOM_ERR_NOT_SUPPORTED,
                       "a sparse (coordinate) Matrix Market file; read it with loom_csr_read");
    return read_array(s, &h, dtype, layout, d);
}

loom_status loom_dense_read(loom_context *ctx, const char *path, loom_dtype dtype,
                            loom_layout layout, loom_dense *d)
{
    loom_status st = check_read_arguments(ctx, path, dtype, d, "loom_dense_read");
    if (st != LOOM_SUCCESS)
        return st;
    if (layout != LOOM_ROW_MAJOR && layout != LOOM_COL_MAJOR)
        return loom__error(LOOM_ERR_INVALID_ARGUMENT,
                           "loom_dense_read: layout %d is not row- or column-major", (int)layout);
    d->data = NULL;
    loom__mm_stream *s;
    st = loom__mm_stream_open_file(path, &s);
    if (st != LOOM_SUCCESS)
        return st;
    loom__mm_locale locale;
    loom__mm_locale_enter(&locale);
    st = read_dense_stream(s, dtype, layout, d);
    loom__mm_locale_leave(&locale);
    loom__mm_stream_close(&s);
    return st;
}
