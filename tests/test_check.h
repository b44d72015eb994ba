/*
 * test_check.h - CHECK(call): a loom call that must succeed in a cmocka
 * test; otherwise the test fails with the call, loom's status and message.
 */
#ifndef LOOM_TEST_CHECK_H
#define LOOM_TEST_CHECK_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <loom.h>

#define CHECK(call)                                                                              \
    do {                                                                                         \
        loom_status st_ = (call);                                                                \
        if (st_ != LOOM_SUCCESS)                                                                 \
            fail_msg("%s: %s (%s)", #call, loom_strerror(st_), loom_last_error());               \
    } while (0)

#endif
