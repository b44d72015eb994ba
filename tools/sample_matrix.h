/*
 * sample_matrix.h - the matrix the program runs on when no file is given:
 * SNAP's email-Eu-core (1005 x 1005, 25571 non-zeros, power-law rows, 137
 * empty), stored gzip-compressed inside the program.  The bytes come from
 * data/sample/email-Eu-core.mtx.gz through tools/embed_bytes.sh at build time
 * (uncompressed when libloom has no zlib).
 */
#ifndef TOOL_SAMPLE_MATRIX_H
#define TOOL_SAMPLE_MATRIX_H

#include <stddef.h>

extern const unsigned char tool_sample_matrix[];
extern const size_t tool_sample_matrix_size;
extern const char tool_sample_matrix_name[];

#endif /* TOOL_SAMPLE_MATRIX_H */
