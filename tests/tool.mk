# tests/tool.mk - the loom program end to end (a shell test; runs ./tools/loom
# from the top build directory, reads data from $(srcdir)/data).
TESTS += tests/test_tool.sh
EXTRA_DIST += tests/test_tool.sh
