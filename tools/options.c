/*
 * options.c - parse the options of a subcommand.  Accepted forms:
 * "--name VALUE", "--name=VALUE", "-n VALUE", "-nVALUE" (short options),
 * flags without a value, one positional matrix file, and "--" to end the
 * options.  Every mistake gets a message that names the option.
 */
#include "config.h"
#include "options.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tool_usage_error(const char *command, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "loom: %s%s", command ? command : "", command ? ": " : "");
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'loom %s%s--help' for more information.\n", command ? command : "",
            command ? " " : "");
    return TOOL_EXIT_USAGE;
}

bool tool_selector_from_name(const char *name, loom_selector *selector)
{
    static const struct {
        const char *name;
        loom_selector selector;
    } names[] = {{"auto", LOOM_SELECT_AUTO},
                 {"rules", LOOM_SELECT_RULES},
                 {"model", LOOM_SELECT_MODEL},
                 {"tune", LOOM_SELECT_TUNE}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (strcmp(name, names[i].name) == 0) {
            *selector = names[i].selector;
            return true;
        }
    }
    return false;
}

/* A whole decimal integer in [min, max], nothing after it. */
static bool parse_integer(const char *text, long long min, long long max, long long *value)
{
    if (*text == '\0')
        return false;
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (errno != 0 || *end != '\0' || v < min || v > max)
        return false;
    *value = v;
    return true;
}

/* Each parser returns NULL, or what the value should have been. */
typedef const char *(*value_parser)(tool_options *o, const char *value);

static const char *parse_n(tool_options *o, const char *v)
{
    long long n;
    if (!parse_integer(v, 1, INT32_MAX, &n))
        return "a positive integer (the number of columns of X and Y)";
    o->n = n;
    o->n_given = true;
    return NULL;
}

static const char *parse_backend(tool_options *o, const char *v)
{
    if (loom_backend_from_name(v, &o->backend) != LOOM_SUCCESS)
        return "auto, reference, openmp or cuda";
    return NULL;
}

static const char *parse_design(tool_options *o, const char *v)
{
    /* The design itself is checked with the library's own parser in
     * tool_parse_options, which says precisely what is wrong. */
    o->design = v;
    return NULL;
}

static const char *parse_dtype(tool_options *o, const char *v)
{
    if (strcmp(v, "f32") == 0)
        o->dtype = LOOM_F32;
    else if (strcmp(v, "f64") == 0)
        o->dtype = LOOM_F64;
    else
        return "f32 or f64";
    return NULL;
}

static const char *parse_x(tool_options *o, const char *v)
{
    if (*v == '\0')
        return "a Matrix Market file name";
    o->x_path = v;
    return NULL;
}

static const char *parse_output(tool_options *o, const char *v)
{
    if (*v == '\0')
        return "a file name to write Y to";
    o->output_path = v;
    return NULL;
}

static const char *parse_save(tool_options *o, const char *v)
{
    if (*v == '\0')
        return "a file name for the run record (see loom verify)";
    o->save_path = v;
    return NULL;
}

static const char *parse_repeat(tool_options *o, const char *v)
{
    long long r;
    if (!parse_integer(v, 1, 1000000, &r))
        return "an integer in 1..1000000 (timed runs after the warm-up)";
    o->repeat = (int)r;
    return NULL;
}

static const char *parse_threads(tool_options *o, const char *v)
{
    long long t;
    if (!parse_integer(v, 0, 65536, &t))
        return "an integer in 0..65536 (0: the backend decides)";
    o->threads = (int)t;
    return NULL;
}

static const char *parse_layout(tool_options *o, const char *v)
{
    if (strcmp(v, "row") == 0)
        o->layout = LOOM_ROW_MAJOR;
    else if (strcmp(v, "col") == 0)
        o->layout = LOOM_COL_MAJOR;
    else
        return "row or col (the storage order of X and Y)";
    return NULL;
}

static const char *parse_seed(tool_options *o, const char *v)
{
    char *end;
    errno = 0;
    unsigned long long s = strtoull(v, &end, 10);
    if (*v == '\0' || *v == '-' || *v == '+' || errno != 0 || *end != '\0')
        return "a non-negative integer below 2^64";
    o->seed = (uint64_t)s;
    return NULL;
}

static const struct option_spec {
    const char *name; /* long name, without "--" */
    char short_name;  /* 0: none */
    unsigned bit;
    value_parser parse; /* NULL: a flag */
} specs[] = {
    {"n", 'n', OPT_N, parse_n},
    {"backend", 'b', OPT_BACKEND, parse_backend},
    {"design", 'd', OPT_DESIGN, parse_design},
    {"dtype", 't', OPT_DTYPE, parse_dtype},
    {"x", 'x', OPT_X, parse_x},
    {"output", 'o', OPT_OUTPUT, parse_output},
    {"save", 0, OPT_SAVE, parse_save},
    {"repeat", 'r', OPT_REPEAT, parse_repeat},
    {"threads", 'j', OPT_THREADS, parse_threads},
    {"layout", 'l', OPT_LAYOUT, parse_layout},
    {"seed", 's', OPT_SEED, parse_seed},
    {"hardware", 0, OPT_HARDWARE, NULL},
};

static const struct option_spec *find_long(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++)
        if (strlen(specs[i].name) == len && strncmp(specs[i].name, name, len) == 0)
            return &specs[i];
    return NULL;
}

static const struct option_spec *find_short(char c)
{
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++)
        if (specs[i].short_name == c)
            return &specs[i];
    return NULL;
}

static void set_defaults(tool_options *o, const char *command)
{
    memset(o, 0, sizeof *o);
    o->command = command;
    o->n = TOOL_DEFAULT_N;
    o->backend = LOOM_BACKEND_AUTO;
    o->design = "auto";
    o->dtype = LOOM_F32;
    o->layout = LOOM_ROW_MAJOR;
    o->repeat = TOOL_DEFAULT_REPEAT;
    o->seed = TOOL_DEFAULT_SEED;
}

/* Apply one option; `value` is NULL when it was not attached with '=' or
 * glued to a short option, and is then taken from the next argument. */
static int apply(const struct option_spec *spec, const char *shown, const char *value, int argc,
                 char **argv, int *i, unsigned accepted, tool_options *o)
{
    if (!(spec->bit & accepted))
        return tool_usage_error(o->command, "option '%s' does not apply to this command", shown);
    if (!spec->parse) {
        if (value)
            return tool_usage_error(o->command, "option '%s' takes no value", shown);
        o->hardware = true;
        return TOOL_EXIT_OK;
    }
    if (!value) {
        if (*i + 1 >= argc)
            return tool_usage_error(o->command, "option '%s' needs a value", shown);
        value = argv[++*i];
    }
    const char *expected = spec->parse(o, value);
    if (expected)
        return tool_usage_error(o->command, "option '%s': '%s' is not valid; expected %s", shown,
                                value, expected);
    return TOOL_EXIT_OK;
}

int tool_parse_options(int argc, char **argv, const char *command, unsigned accepted,
                       tool_options *o)
{
    set_defaults(o, command);
    bool options_ended = false;
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        int rc = TOOL_EXIT_OK;
        if (options_ended || arg[0] != '-' || arg[1] == '\0') {
            if (o->matrix)
                return tool_usage_error(command, "unexpected argument '%s' (one matrix file only)",
                                        arg);
            o->matrix = arg;
        } else if (strcmp(arg, "--") == 0) {
            options_ended = true;
        } else if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            o->help = true;
        } else if (arg[1] == '-') {
            const char *name = arg + 2, *eq = strchr(name, '=');
            size_t len = eq ? (size_t)(eq - name) : strlen(name);
            const struct option_spec *spec = find_long(name, len);
            if (!spec)
                return tool_usage_error(command, "unknown option '%.*s'", (int)(len + 2), arg);
            char shown[32];
            snprintf(shown, sizeof shown, "--%s", spec->name);
            rc = apply(spec, shown, eq ? eq + 1 : NULL, argc, argv, &i, accepted, o);
        } else {
            const struct option_spec *spec = find_short(arg[1]);
            if (!spec)
                return tool_usage_error(command, "unknown option '-%c'", arg[1]);
            char shown[3] = {'-', arg[1], '\0'};
            rc = apply(spec, shown, arg[2] ? arg + 2 : NULL, argc, argv, &i, accepted, o);
        }
        if (rc != TOOL_EXIT_OK)
            return rc;
    }
    if (o->help)
        return TOOL_EXIT_OK;
    loom_selector selector;
    if (accepted & OPT_DESIGN && !tool_selector_from_name(o->design, &selector)) {
        loom_strategy s;
        if (loom_strategy_parse(o->design, &s) != LOOM_SUCCESS)
            return tool_usage_error(command, "option '--design': %s; or a selector: auto, rules, "
                                    "model or tune", loom_last_error());
    }
    return TOOL_EXIT_OK;
}
