/*
 * mm_write.c - writing CSR and dense matrices as Matrix Market files.
 *
 * Values are printed with enough digits to read back to the same bits
 * (%.9g for float, %.17g for double), in the "C" numeric locale.
 */
#include "config.h"
#include "loom_internal.h"
#include "mm_stream.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define WRITE_BUFFER (1u << 20)

/* An output file with the first error remembered (errno at that moment). */
typedef struct mm_output {
    FILE *file;
    const char *path;
    int error; /* 0 while all is well */
} mm_output;

static loom_status output_open(mm_output *o, const char *path)
{
    o->path = path;
    o->error = 0;
    o->file = fopen(path, "w");
    if (!o->file)
        return loom__error(LOOM_ERR_IO, "%s: cannot open for writing: %s", path, strerror(errno));
    /* A large buffer: millions of short lines. */
    setvbuf(o->file, NULL, _IOFBF, WRITE_BUFFER);
    return LOOM_SUCCESS;
}

static void output_printf(mm_output *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void output_printf(mm_output *o, const char *fmt, ...)
{
    if (o->error)
        return;
    va_list ap;
    va_start(ap, fmt);
    if (vfprintf(o->file, fmt, ap) < 0)
        o->error = errno ? errno : EIO;
    va_end(ap);
}

static void output_value(mm_output *o, loom_dtype dtype, const void *values, int64_t k)
{
    if (dtype == LOOM_F32)
        output_printf(o, "%.9g\n", (double)((const float *)values)[k]);
    else
        output_printf(o, "%.17g\n", ((const double *)values)[k]);
}

/* Closes the file; on any error, removes a partial regular file (never a
 * device such as /dev/full) and reports it. */
static loom_status output_close(mm_output *o)
{
    if (!o->error && fflush(o->file) != 0)
        o->error = errno ? errno : EIO;
    struct stat info;
    bool regular = fstat(fileno(o->file), &info) == 0 && S_ISREG(info.st_mode);
    if (fclose(o->file) != 0 && !o->error)
        o->error = errno ? errno : EIO;
    o->file = NULL;
    if (!o->error)
        return LOOM_SUCCESS;
    if (regular)
        remove(o->path);
    return loom__error(LOOM_ERR_IO, "%s: write error: %s", o->path, strerror(o->error));
}

static loom_status write_csr_entries(mm_output *o, const loom_csr *A)
{
    int64_t rows, cols, nnz;
    loom_dtype dtype;
    const int64_t *offsets;
    const int32_t *indices;
    const void *values;
    loom_csr_info(A, &rows, &cols, &nnz, &dtype, NULL);
    loom_csr_arrays(A, &offsets, &indices, &values);
    output_printf(o, "%%%%MatrixMarket matrix coordinate real general\n");
    output_printf(o, "%% written by loom %d.%d.%d (%s values)\n", LOOM_VERSION_MAJOR,
                  LOOM_VERSION_MINOR, LOOM_VERSION_PATCH, loom_dtype_name(dtype));
    output_printf(o, "%" PRId64 " %" PRId64 " %" PRId64 "\n", rows, cols, nnz);
    for (int64_t r = 0; r < rows && !o->error; r++) {
        for (int64_t k = offsets[r]; k < offsets[r + 1]; k++) {
            output_printf(o, "%" PRId64 " %" PRId32 " ", r + 1, indices[k] + 1);
            output_value(o, dtype, values, k);
        }
    }
    return output_close(o);
}

loom_status loom_csr_write(const loom_csr *A, const char *path)
{
    loom_memory memory;
    loom_status st = loom_csr_info(A, NULL, NULL, NULL, NULL, &memory);
    if (st != LOOM_SUCCESS)
        return st;
    if (!path)
        return loom__error(LOOM_ERR_NULL_POINTER, "loom_csr_write: path is NULL");
    if (memory != LOOM_MEMORY_HOST)
        return loom__error(LOOM_ERR_NOT_SUPPORTED,
                           "loom_csr_write: %s: the matrix is in device memory; copy it to host "
                           "memory first (loom_csr_copy)", path);
    mm_output o;
    st = output_open(&o, path);
    if (st != LOOM_SUCCESS)
        return st;
    loom__mm_locale locale;
    loom__mm_locale_enter(&locale);
    st = write_csr_entries(&o, A);
    loom__mm_locale_leave(&locale);
    return st;
}

/* The array format lists the matrix column by column, whatever the layout. */
static loom_status write_dense_values(mm_output *o, const loom_dense *d)
{
    output_printf(o, "%%%%MatrixMarket matrix array real general\n");
    output_printf(o, "%% written by loom %d.%d.%d (%s values)\n", LOOM_VERSION_MAJOR,
                  LOOM_VERSION_MINOR, LOOM_VERSION_PATCH, loom_dtype_name(d->dtype));
    output_printf(o, "%" PRId64 " %" PRId64 "\n", d->rows, d->cols);
    for (int64_t j = 0; j < d->cols && !o->error; j++)
        for (int64_t i = 0; i < d->rows; i++)
            output_value(o, d->dtype, d->data, loom__dense_offset(d, i, j));
    return output_close(o);
}

loom_status loom_dense_write(const loom_dense *d, const char *path)
{
    loom_status st = loom__check_dense(d, "d", "loom_dense_write");
    if (st != LOOM_SUCCESS)
        return st;
    if (!path)
        return loom__error(LOOM_ERR_NULL_POINTER, "loom_dense_write: path is NULL");
    if (d->memory != LOOM_MEMORY_HOST)
        return loom__error(LOOM_ERR_NOT_SUPPORTED,
                           "loom_dense_write: %s: the matrix is in device memory; copy it to "
                           "host memory first (loom_dense_copy)", path);
    mm_output o;
    st = output_open(&o, path);
    if (st != LOOM_SUCCESS)
        return st;
    loom__mm_locale locale;
    loom__mm_locale_enter(&locale);
    st = write_dense_values(&o, d);
    loom__mm_locale_leave(&locale);
    return st;
}
