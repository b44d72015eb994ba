/*
 * loom.c - the loom program: dispatch to a subcommand.
 *
 *   loom spmm [A.mtx] -n 32 ...   run one SpMM, explain, time and check it
 *   loom info [A.mtx]             features of a matrix; --hardware: backends
 *   loom designs [A.mtx] -n 32    every design on every backend, as a table
 *   loom explain [A.mtx] -n 32    each selector's choice, predicted vs measured
 *   loom verify RUN.loom          recompute a saved run with the reference
 *
 * The program uses only the public API (loom.h), as any user's would.
 */
#include "config.h"
#include "commands.h"
#include "options.h"

#include <loom.h>

#include <stdio.h>
#include <string.h>

static const struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} commands[] = {
    {"spmm", tool_cmd_spmm, "run one SpMM Y = A*X: design and why, time, GFLOP/s, GB/s, checks"},
    {"info", tool_cmd_info, "features of a matrix; --hardware: which backends are available"},
    {"designs", tool_cmd_designs, "every design on every available backend, timed and checked"},
    {"explain", tool_cmd_explain, "how each selector chooses a design; predicted vs measured times"},
    {"verify", tool_cmd_verify, "recompute a run saved with 'spmm --save' on the reference"},
};

#define COMMAND_COUNT (sizeof commands / sizeof commands[0])

static void print_usage(FILE *to)
{
    fprintf(to, "Usage: loom COMMAND [A.mtx] [options]\n"
                "       loom --version | --help | help COMMAND\n"
                "\n"
                "Commands:\n");
    for (size_t i = 0; i < COMMAND_COUNT; i++)
        fprintf(to, "  %-9s %s\n", commands[i].name, commands[i].summary);
    fprintf(to, "\n"
                "Without A.mtx a command runs on the sample matrix built into the program\n"
                "(email-Eu-core, 1005 x 1005, 25571 non-zeros).  'loom COMMAND --help' lists\n"
                "its options; loom(1) has the details.\n");
}

static void print_version(void)
{
    int major, minor, patch;
    loom_version(&major, &minor, &patch);
    printf("loom %s (libloom %d.%d.%d)\n", PACKAGE_VERSION, major, minor, patch);
}

static const struct command *find_command(const char *name)
{
    for (size_t i = 0; i < COMMAND_COUNT; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

/* `loom help [COMMAND]` is `loom COMMAND --help`. */
static int help(int argc, char **argv)
{
    if (argc < 1) {
        print_usage(stdout);
        return TOOL_EXIT_OK;
    }
    const struct command *c = find_command(argv[0]);
    if (!c)
        return tool_usage_error(NULL, "unknown command '%s'", argv[0]);
    char help_flag[] = "--help";
    char *args[] = {help_flag, NULL};
    return c->run(1, args);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "loom: no command given\n");
        print_usage(stderr);
        return TOOL_EXIT_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
        print_usage(stdout);
        return TOOL_EXIT_OK;
    }
    if (strcmp(name, "--version") == 0 || strcmp(name, "-V") == 0) {
        print_version();
        return TOOL_EXIT_OK;
    }
    if (strcmp(name, "help") == 0)
        return help(argc - 2, argv + 2);
    const struct command *c = find_command(name);
    if (!c) {
        if (name[0] == '-')
            return tool_usage_error(NULL, "unknown option '%s' (a command comes first: spmm, info "
                                          "or designs)", name);
        return tool_usage_error(NULL, "unknown command '%s' (expected spmm, info, designs, explain or verify)", name);
    }
    int rc = c->run(argc - 2, argv + 2);
    /* A full disk or a closed pipe must not pass for success. */
    if (fflush(stdout) != 0 && rc == TOOL_EXIT_OK) {
        fprintf(stderr, "loom: writing the output failed\n");
        rc = TOOL_EXIT_RUNTIME;
    }
    return rc;
}
