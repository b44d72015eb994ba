/*
 * commands.h - the subcommands of the loom program.  Each takes the
 * arguments after its name and returns the exit status (see options.h).
 */
#ifndef TOOL_COMMANDS_H
#define TOOL_COMMANDS_H

int tool_cmd_spmm(int argc, char **argv);
int tool_cmd_info(int argc, char **argv);
int tool_cmd_designs(int argc, char **argv);
int tool_cmd_verify(int argc, char **argv);
int tool_cmd_explain(int argc, char **argv);

#endif /* TOOL_COMMANDS_H */
