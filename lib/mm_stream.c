/*
 * mm_stream.c - block-buffered line input from a file or a memory buffer,
 * gunzipped on the fly when the content starts with the gzip magic.
 *
 * Two layers: the raw source hands out blocks of bytes (fread blocks from a
 * file, or the whole buffer at once); the decoder copies them, or inflates
 * them, into the line buffer, where lines are found with memchr.
 */
#include "config.h"
#include "mm_stream.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#ifdef LOOM_HAVE_ZLIB
#include <zlib.h>
#endif

#define RAW_BLOCK (256u * 1024u)    /* bytes per fread */
#define LINE_BUFFER (1024u * 1024u) /* initial line buffer; grows for longer lines */

struct loom__mm_stream {
    char *name;

    /* Raw source: a FILE, or a memory buffer handed out in one block. */
    FILE *file;
    unsigned char *raw_buf; /* RAW_BLOCK bytes, file input only */
    const unsigned char *raw;
    size_t raw_len;         /* bytes at raw not yet consumed */
    const unsigned char *memory;
    size_t memory_size;
    bool memory_given;
    bool raw_eof;
    uint64_t raw_total;     /* size of the input, when known (plain input) */

    bool gzip;
#ifdef LOOM_HAVE_ZLIB
    z_stream z;
    bool z_ready;
    bool z_member_done; /* the current gzip member ended */
#endif

    /* Decoded text: [start, end) not yet returned; scan: where the search
     * for the next '\n' resumes.  One byte is kept free for a NUL. */
    char *buf;
    size_t cap, start, end, scan;
    bool eof;
    int64_t line;
    uint64_t returned; /* decoded bytes handed out as lines */
};

/* ------------------------------------------------------------ raw source */

/* Makes raw/raw_len a non-empty block, or sets raw_eof. */
static loom_status raw_refill(loom__mm_stream *s)
{
    if (s->raw_len > 0 || s->raw_eof)
        return LOOM_SUCCESS;
    if (!s->file) {
        if (!s->memory_given && s->memory_size > 0) {
            s->raw = s->memory;
            s->raw_len = s->memory_size;
            s->memory_given = true;
        } else {
            s->raw_eof = true;
        }
        return LOOM_SUCCESS;
    }
    size_t n = fread(s->raw_buf, 1, RAW_BLOCK, s->file);
    if (n == 0) {
        if (ferror(s->file))
            return loom__error(LOOM_ERR_IO, "%s: read error: %s", s->name, strerror(errno));
        s->raw_eof = true;
    }
    s->raw = s->raw_buf;
    s->raw_len = n;
    return LOOM_SUCCESS;
}

/* --------------------------------------------------------------- decoder */

static size_t copy_plain(loom__mm_stream *s, char *dst, size_t room)
{
    size_t n = s->raw_len < room ? s->raw_len : room;
    if (n == 0) /* raw may be NULL at the end of the input */
        return 0;
    memcpy(dst, s->raw, n);
    s->raw += n;
    s->raw_len -= n;
    return n;
}

#ifdef LOOM_HAVE_ZLIB
static loom_status gzip_start(loom__mm_stream *s)
{
    memset(&s->z, 0, sizeof s->z);
    /* 15 + 16: a gzip wrapper (not zlib or raw deflate), largest window. */
    if (inflateInit2(&s->z, 15 + 16) != Z_OK)
        return loom__error(LOOM_ERR_OUT_OF_MEMORY, "%s: cannot start gzip decompression",
                           s->name);
    s->z_ready = true;
    return LOOM_SUCCESS;
}

/* After the end of a gzip member: another member may follow (pigz, bgzip and
 * `cat a.gz b.gz` write several); zero padding is ignored, as gzip(1) does. */
static loom_status gzip_next_member(loom__mm_stream *s)
{
    for (;;) {
        loom_status st = raw_refill(s);
        if (st != LOOM_SUCCESS)
            return st;
        if (s->raw_eof)
            return LOOM_SUCCESS;
        if (s->raw[0] == 0x1f) {
            inflateReset(&s->z);
            s->z_member_done = false;
            return LOOM_SUCCESS;
        }
        for (size_t i = 0; i < s->raw_len; i++)
            if (s->raw[i] != 0)
                return loom__error(LOOM_ERR_PARSE,
                                   "%s: unexpected data after the end of the gzip stream",
                                   s->name);
        s->raw_len = 0;
    }
}

static loom_status inflate_some(loom__mm_stream *s, char *dst, size_t room, size_t *produced)
{
    *produced = 0;
    while (*produced == 0) {
        loom_status st = s->z_member_done ? gzip_next_member(s) : raw_refill(s);
        if (st != LOOM_SUCCESS)
            return st;
        if (s->raw_eof) {
            if (!s->z_member_done)
                return loom__error(LOOM_ERR_PARSE,
                                   "%s: gzip data is truncated (the input ends inside the "
                                   "compressed stream)", s->name);
            return LOOM_SUCCESS;
        }
        uInt in = s->raw_len > UINT32_MAX ? UINT32_MAX : (uInt)s->raw_len;
        uInt out = room > UINT32_MAX ? UINT32_MAX : (uInt)room;
        s->z.next_in = (Bytef *)s->raw;
        s->z.avail_in = in;
        s->z.next_out = (Bytef *)dst;
        s->z.avail_out = out;
        int rc = inflate(&s->z, Z_NO_FLUSH);
        s->raw += in - s->z.avail_in;
        s->raw_len -= in - s->z.avail_in;
        *produced = out - s->z.avail_out;
        bool stuck = in == s->z.avail_in && *produced == 0;
        if (rc == Z_STREAM_END)
            s->z_member_done = true;
        else if (rc == Z_BUF_ERROR && stuck)
            return loom__error(LOOM_ERR_PARSE, "%s: corrupt gzip data (no progress)", s->name);
        else if (rc == Z_MEM_ERROR)
            return loom__error(LOOM_ERR_OUT_OF_MEMORY, "%s: out of memory in gzip decompression",
                               s->name);
        else if (rc != Z_OK && rc != Z_BUF_ERROR)
            return loom__error(LOOM_ERR_PARSE, "%s: corrupt gzip data (%s)", s->name,
                               s->z.msg ? s->z.msg : "inflate failed");
    }
    return LOOM_SUCCESS;
}
#endif

/* Appends up to `room` decoded bytes at dst; *produced = 0 means end of input. */
static loom_status decode_some(loom__mm_stream *s, char *dst, size_t room, size_t *produced)
{
#ifdef LOOM_HAVE_ZLIB
    if (s->gzip)
        return inflate_some(s, dst, room, produced);
#endif
    loom_status st = raw_refill(s);
    *produced = st == LOOM_SUCCESS ? copy_plain(s, dst, room) : 0;
    return st;
}

/* --------------------------------------------------------------- opening */

static bool starts_with_gzip_magic(loom__mm_stream *s)
{
    return s->raw_len >= 2 && s->raw[0] == 0x1f && s->raw[1] == 0x8b;
}

/* Common second half of opening: look at the first bytes, set up the decoder
 * and the line buffer. */
static loom_status stream_start(loom__mm_stream *s)
{
    loom_status st = raw_refill(s);
    if (st != LOOM_SUCCESS)
        return st;
    s->gzip = starts_with_gzip_magic(s);
    if (s->gzip) {
        s->raw_total = UINT64_MAX; /* the text's size is not known in advance */
#ifdef LOOM_HAVE_ZLIB
        st = gzip_start(s);
#else
        st = loom__error(LOOM_ERR_NOT_SUPPORTED,
                         "%s: the content is gzip-compressed, but this loom was built without "
                         "zlib; gunzip it first, or rebuild loom with zlib", s->name);
#endif
        if (st != LOOM_SUCCESS)
            return st;
    }
    /* Small inputs of known size get a small buffer; it grows for long lines. */
    s->cap = s->raw_total < LINE_BUFFER ? (size_t)s->raw_total + 2 : LINE_BUFFER;
    s->buf = loom__malloc(s->cap);
    if (!s->buf)
        return loom__error(LOOM_ERR_OUT_OF_MEMORY, "%s: out of memory for the input buffer",
                           s->name);
    return LOOM_SUCCESS;
}

static loom__mm_stream *stream_new(const char *name)
{
    loom__mm_stream *s = loom__calloc(1, sizeof *s);
    if (!s)
        return NULL;
    size_t len = strlen(name) + 1;
    s->name = loom__malloc(len);
    if (!s->name) {
        loom__free(s);
        return NULL;
    }
    memcpy(s->name, name, len);
    return s;
}

loom_status loom__mm_stream_open_file(const char *path, loom__mm_stream **out)
{
    *out = NULL;
    loom__mm_stream *s = stream_new(path);
    if (!s)
        return loom__error(LOOM_ERR_OUT_OF_MEMORY, "%s: out of memory opening the file", path);
    s->file = fopen(path, "rb");
    if (!s->file) {
        int err = errno;
        loom__mm_stream_close(&s);
        return loom__error(LOOM_ERR_IO, "%s: cannot open: %s", path, strerror(err));
    }
    struct stat info;
    bool known = fstat(fileno(s->file), &info) == 0;
    if (known && S_ISDIR(info.st_mode)) {
        loom__mm_stream_close(&s);
        return loom__error(LOOM_ERR_IO, "%s: cannot read: %s", path, strerror(EISDIR));
    }
    /* Pipes and devices have no size: nothing caps preallocation but growth. */
    s->raw_total = known && S_ISREG(info.st_mode) ? (uint64_t)info.st_size : UINT64_MAX;
    s->raw_buf = loom__malloc(RAW_BLOCK);
    loom_status st = s->raw_buf ? stream_start(s)
                                : loom__error(LOOM_ERR_OUT_OF_MEMORY,
                                              "%s: out of memory for the read buffer", path);
    if (st != LOOM_SUCCESS) {
        loom__mm_stream_close(&s);
        return st;
    }
    *out = s;
    return LOOM_SUCCESS;
}

loom_status loom__mm_stream_open_memory(const void *data, size_t size, const char *name,
                                        loom__mm_stream **out)
{
    *out = NULL;
    loom__mm_stream *s = stream_new(name);
    if (!s)
        return loom__error(LOOM_ERR_OUT_OF_MEMORY, "%s: out of memory opening the buffer", name);
    s->memory = data;
    s->memory_size = size;
    s->raw_total = size;
    loom_status st = stream_start(s);
    if (st != LOOM_SUCCESS) {
        loom__mm_stream_close(&s);
        return st;
    }
    *out = s;
    return LOOM_SUCCESS;
}

void loom__mm_stream_close(loom__mm_stream **sp)
{
    loom__mm_stream *s = *sp;
    if (!s)
        return;
#ifdef LOOM_HAVE_ZLIB
    if (s->z_ready)
        inflateEnd(&s->z);
#endif
    if (s->file)
        fclose(s->file);
    loom__free(s->raw_buf);
    loom__free(s->buf);
    loom__free(s->name);
    loom__free(s);
    *sp = NULL;
}

/* ----------------------------------------------------------------- lines */

/* Moves the unreturned text to the front of the buffer, doubling the buffer
 * when a single line fills it. */
static loom_status make_room(loom__mm_stream *s)
{
    if (s->start > 0) {
        memmove(s->buf, s->buf + s->start, s->end - s->start);
        s->end -= s->start;
        s->scan -= s->start;
        s->start = 0;
    }
    if (s->end + 1 < s->cap)
        return LOOM_SUCCESS;
    size_t cap;
    if (!loom__mul_size(s->cap, 2, &cap))
        return loom__error(LOOM_ERR_OVERFLOW, "%s:%" PRId64 ": line too long", s->name,
                           s->line + 1);
    char *bigger = loom__malloc(cap);
    if (!bigger)
        return loom__error(LOOM_ERR_OUT_OF_MEMORY,
                           "%s:%" PRId64 ": out of memory for a line longer than %zu bytes",
                           s->name, s->line + 1, s->cap - 1);
    memcpy(bigger, s->buf, s->end);
    loom__free(s->buf);
    s->buf = bigger;
    s->cap = cap;
    return LOOM_SUCCESS;
}

static void hand_out(loom__mm_stream *s, size_t line_end, size_t next, char **line, size_t *len)
{
    size_t n = line_end - s->start;
    s->returned += next - s->start;
    *line = s->buf + s->start;
    if (n > 0 && (*line)[n - 1] == '\r')
        n--;
    (*line)[n] = '\0';
    *len = n;
    s->start = s->scan = next;
    s->line++;
}

loom_status loom__mm_stream_next_line(loom__mm_stream *s, char **line, size_t *len)
{
    *line = NULL;
    *len = 0;
    for (;;) {
        char *nl = memchr(s->buf + s->scan, '\n', s->end - s->scan);
        if (nl) {
            size_t at = (size_t)(nl - s->buf);
            hand_out(s, at, at + 1, line, len);
            return LOOM_SUCCESS;
        }
        s->scan = s->end;
        if (s->eof) {
            if (s->start < s->end) /* a last line without '\n' */
                hand_out(s, s->end, s->end, line, len);
            return LOOM_SUCCESS;
        }
        loom_status st = make_room(s);
        if (st != LOOM_SUCCESS)
            return st;
        size_t produced;
        st = decode_some(s, s->buf + s->end, s->cap - 1 - s->end, &produced);
        if (st != LOOM_SUCCESS)
            return st;
        s->end += produced;
        s->eof = produced == 0;
    }
}

int64_t loom__mm_stream_line_number(const loom__mm_stream *s)
{
    return s->line;
}

const char *loom__mm_stream_name(const loom__mm_stream *s)
{
    return s->name;
}

uint64_t loom__mm_stream_bytes_left(const loom__mm_stream *s)
{
    if (s->raw_total == UINT64_MAX)
        return UINT64_MAX;
    return s->raw_total > s->returned ? s->raw_total - s->returned : 0;
}

/* ---------------------------------------------------------------- locale */

void loom__mm_locale_enter(loom__mm_locale *l)
{
    l->c_numeric = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
    l->saved = l->c_numeric ? uselocale(l->c_numeric) : (locale_t)0;
}

void loom__mm_locale_leave(loom__mm_locale *l)
{
    if (!l->c_numeric)
        return;
    uselocale(l->saved);
    freelocale(l->c_numeric);
    l->c_numeric = (locale_t)0;
}
