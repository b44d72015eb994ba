/*
 * test_fuzz_regressions.c - replay every input the fuzzers ever crashed on
 * (tests/fuzz/regressions/) through the readers: each must now give a
 * status, never a crash.  The directory also holds hand-made hostile files.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <loom.h>

static void test_replay_regressions(void **state)
{
    (void)state;
    loom_context *ctx;
    assert_int_equal(loom_context_create(&ctx), LOOM_SUCCESS);
    const char *dir_path = LOOM_SRCDIR "/tests/fuzz/regressions";
    DIR *dir = opendir(dir_path);
    assert_non_null(dir);
    int replayed = 0;
    for (struct dirent *e; (e = readdir(dir));) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, "README") == 0)
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir_path, e->d_name);
        FILE *f = fopen(path, "rb");
        assert_non_null(f);
        static char buf[1 << 20];
        size_t size = fread(buf, 1, sizeof buf, f);
        fclose(f);
        static const char *const names[] = {"r.mtx", "r.smtx"};
        for (int k = 0; k < 2; k++) {
            loom_csr *A = NULL;
            loom_status st = loom_csr_read_memory(ctx, buf, size, names[k], LOOM_F64, &A);
            if (st == LOOM_SUCCESS)
                loom_csr_destroy(&A);
            else
                assert_true(strlen(loom_last_error()) > 0);
        }
        replayed++;
    }
    closedir(dir);
    print_message("replayed %d regression inputs\n", replayed);
    loom_context_destroy(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_replay_regressions)};
    return cmocka_run_group_tests_name("fuzz-regressions", tests, NULL, NULL);
}
