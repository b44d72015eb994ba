/*
 * mm_stream.h - line-oriented input for the Matrix Market readers.
 *
 * A stream reads a file or a buffer in memory in large blocks and hands out
 * one line at a time.  Content that starts with the gzip magic (1f 8b) is
 * inflated on the fly when loom was built with zlib; the caller never needs
 * to know which it was.
 */
#ifndef LOOM_MM_STREAM_H
#define LOOM_MM_STREAM_H

#include "loom_internal.h"

#include <locale.h>

typedef struct loom__mm_stream loom__mm_stream;

/* Open `path` for reading.  Errors: LOOM_ERR_IO (with strerror), LOOM_ERR_NOT_SUPPORTED
 * (gzip without zlib), LOOM_ERR_OUT_OF_MEMORY. */
LOOM_INTERNAL loom_status loom__mm_stream_open_file(const char *path, loom__mm_stream **s);

/* Read `size` bytes at `data` (not copied: they must outlive the stream);
 * `name` is used in messages. */
LOOM_INTERNAL loom_status loom__mm_stream_open_memory(const void *data, size_t size,
                                                      const char *name, loom__mm_stream **s);

LOOM_INTERNAL void loom__mm_stream_close(loom__mm_stream **s);

/* The next line without its end-of-line ("\n" or "\r\n"), NUL-terminated and
 * writable; it stays valid until the next call.  At the end of the input,
 * *line is NULL and the status LOOM_SUCCESS.  A NUL byte inside a line is
 * kept: `len` is the true length, so callers can reject it. */
LOOM_INTERNAL loom_status loom__mm_stream_next_line(loom__mm_stream *s, char **line, size_t *len);

/* The number of the line last returned (1-based; 0 before the first). */
LOOM_INTERNAL int64_t loom__mm_stream_line_number(const loom__mm_stream *s);

/* The file name, or the name given for a memory buffer. */
LOOM_INTERNAL const char *loom__mm_stream_name(const loom__mm_stream *s);

/* An upper bound on the bytes of text not yet returned, or UINT64_MAX when
 * it is unknown (compressed input).  Readers use it to cap preallocation by
 * what the input can actually hold. */
LOOM_INTERNAL uint64_t loom__mm_stream_bytes_left(const loom__mm_stream *s);

/* strtod and printf follow LC_NUMERIC: a program that set a locale with a
 * decimal comma would misread and miswrite every value.  The readers and
 * writers switch the calling thread (only) to the "C" locale meanwhile. */
typedef struct loom__mm_locale {
    locale_t c_numeric; /* (locale_t)0 when it could not be made */
    locale_t saved;
} loom__mm_locale;

LOOM_INTERNAL void loom__mm_locale_enter(loom__mm_locale *l);
LOOM_INTERNAL void loom__mm_locale_leave(loom__mm_locale *l);

#endif /* LOOM_MM_STREAM_H */
