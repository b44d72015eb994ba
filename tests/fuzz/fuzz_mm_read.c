/* fuzz_mm_read.c - libFuzzer target: the Matrix Market and DLMC readers on
 * arbitrary bytes (plain or gzip).  Any status is fine; a crash, a leak, a
 * hang or undefined behaviour is a bug. */
#include <loom.h>
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static loom_context *ctx;
    if (!ctx && loom_context_create(&ctx) != LOOM_SUCCESS)
        return 0;
    /* The first byte picks the format and the dtype. */
    static const char *const names[] = {"fuzz.mtx", "fuzz.smtx", "fuzz.mtx.gz", "fuzz.smtx.gz"};
    const char *name = names[size ? data[0] % 4 : 0];
    loom_dtype dtype = (size && (data[0] & 4)) ? LOOM_F64 : LOOM_F32;
    loom_csr *A = NULL;
    if (loom_csr_read_memory(ctx, size ? data + 1 : data, size ? size - 1 : 0, name, dtype, &A) ==
        LOOM_SUCCESS) {
        loom_features f;
        loom_csr_features(A, &f);
        loom_csr_destroy(&A);
    }
    return 0;
}
