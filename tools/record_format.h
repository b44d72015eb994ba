/* record_format.h - what the writer and the reader of run records share. */
#ifndef TOOL_RECORD_FORMAT_H
#define TOOL_RECORD_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#define RECORD_MAGIC "LOOMRUN1"
#define RECORD_HASH_SEED 0xcbf29ce484222325ull

typedef struct record_section {
    const void *data;
    size_t bytes;
} record_section;

/* FNV-1a, 64 bits: detects accidental and casual changes, not attacks. */
static inline uint64_t record_hash(uint64_t h, const void *data, size_t bytes)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < bytes; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

#endif
