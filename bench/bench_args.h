/*
 * bench_args.h - the benchmark programs' command-line values, in C and C++
 * (cpu_bench, dual_bench, loom-sweep, gpu_bench, tc_bench, plan_cost,
 * dual_gpu_bench): a number an option takes, checked, with a message on
 * standard error naming the option and the value when it is not one.
 */
#ifndef LOOM_BENCH_ARGS_H
#define LOOM_BENCH_ARGS_H

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The number program's option opt was given as v: from lo to hi (lo >= 0);
 * or -1 after a message naming the option and the value. */
static inline double number_arg(const char *program, const char *opt, const char *v, double lo, double hi)
{
    char *end = NULL;
    errno = 0;
    const double x = strtod(v, &end);
    if (!*v || *end || errno || !(x >= lo && x <= hi)) {
        if (isinf(hi))
            fprintf(stderr, "%s: %s takes a number >= %g, not '%s'\n", program, opt, lo, v);
        else
            fprintf(stderr, "%s: %s takes a number from %g to %g, not '%s'\n", program, opt, lo, hi, v);
        return -1;
    }
    return x;
}

/* The whole number program's option opt was given as v: from lo to hi
 * (lo >= 0); or -1 after a message naming the option and the value. */
static inline int count_arg(const char *program, const char *opt, const char *v, int lo, int hi)
{
    char *end = NULL;
    errno = 0;
    const long long x = strtoll(v, &end, 10);
    if (!*v || *end || errno || x < lo || x > hi) {
        fprintf(stderr, "%s: %s takes a whole number from %d to %d, not '%s'\n", program, opt, lo, hi, v);
        return -1;
    }
    return (int)x;
}

/* The comma-separated whole numbers program's option opt was given as v,
 * each from lo to hi (lo >= 0), into out (at most max; empty items are
 * skipped): their count, or -1 after a message naming the option and the
 * value or item that is wrong. */
static inline int count_list(const char *program, const char *opt, const char *v, int lo, int hi, int64_t *out,
                             int max)
{
    int n = 0;
    for (const char *p = v; *p;) {
        const size_t len = strcspn(p, ",");
        if (len > 0) {
            char item[32];
            if (n == max) {
                fprintf(stderr, "%s: %s takes at most %d values, not '%s'\n", program, opt, max, v);
                return -1;
            }
            if (len >= sizeof item) {
                fprintf(stderr, "%s: %s takes whole numbers from %d to %d, not '%.*s'\n", program, opt, lo, hi,
                        (int)len, p);
                return -1;
            }
            memcpy(item, p, len);
            item[len] = '\0';
            const int x = count_arg(program, opt, item, lo, hi);
            if (x < 0)
                return -1;
            out[n++] = x;
        }
        p += len + (p[len] == ',');
    }
    if (n == 0) {
        fprintf(stderr, "%s: %s takes whole numbers from %d to %d, comma-separated, not '%s'\n", program, opt, lo,
                hi, v);
        return -1;
    }
    return n;
}

/* Whether option a is one of names (a list ending in NULL), the options
 * that take a value, and is the last argument: a message then says so. */
static inline int lacks_value(const char *program, const char *a, const char *const *names, int last)
{
    if (!last)
        return 0;
    for (; *names; names++)
        if (!strcmp(a, *names)) {
            fprintf(stderr, "%s: %s needs a value\n", program, a);
            return 1;
        }
    return 0;
}

#ifdef __cplusplus
#include <string>
#include <vector>

/* The non-empty items of a comma-separated list. */
static inline std::vector<std::string> split(const std::string &s)
{
    std::vector<std::string> r;
    size_t p = 0;
    while (p <= s.size()) {
        size_t q = s.find(',', p);
        if (q == std::string::npos)
            q = s.size();
        if (q > p)
            r.push_back(s.substr(p, q - p));
        p = q + 1;
    }
    return r;
}
#endif

#endif
