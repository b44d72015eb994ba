/*
 * bench_args.h - the GPU benchmarks' command-line values (gpu_bench,
 * tc_bench): a number an option takes, checked, with a message naming the
 * option and the value when it is not one; and comma lists.
 */
#ifndef LOOM_BENCH_ARGS_H
#define LOOM_BENCH_ARGS_H

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

/* The number program's option opt was given as v: at least lo and, where
 * whole, a whole number up to hi; or -1 after a message on standard error
 * naming the option and the value. */
static double number_arg(const char *program, const char *opt, const std::string &v, double lo,
                         bool whole = false, int hi = INT32_MAX)
{
    char *end = nullptr;
    errno = 0;
    const double x = strtod(v.c_str(), &end);
    if (v.empty() || *end || errno || !(x >= lo) || !std::isfinite(x) ||
        (whole && (x != std::floor(x) || x > hi))) {
        if (whole)
            fprintf(stderr, "%s: %s takes a whole number from %g to %d, not '%s'\n", program, opt, lo, hi,
                    v.c_str());
        else
            fprintf(stderr, "%s: %s takes a number >= %g, not '%s'\n", program, opt, lo, v.c_str());
        return -1;
    }
    return x;
}

/* number_arg's whole numbers, lo to hi, as an int (-1 after the message). */
static int count_arg(const char *program, const char *opt, const std::string &v, int lo, int hi = INT32_MAX)
{
    return (int)number_arg(program, opt, v, lo, true, hi);
}

/* Whether option a is one of names (a list ending in NULL), the options
 * that take a value, and is the last argument: a message then says so. */
static bool lacks_value(const char *program, const std::string &a, const char *const *names, bool last)
{
    if (!last)
        return false;
    for (; *names; names++)
        if (a == *names) {
            fprintf(stderr, "%s: %s needs a value\n", program, a.c_str());
            return true;
        }
    return false;
}

/* The non-empty items of a comma-separated list. */
static std::vector<std::string> split(const std::string &s)
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
