# lib/local.mk - the backend-independent core, linked into libloom.
lib_LTLIBRARIES += lib/libloom.la
lib_libloom_la_SOURCES = \
	lib/loom_internal.h \
	lib/alloc.c \
	lib/error.c \
	lib/version.c \
	lib/types.c \
	lib/context.c \
	lib/csr.c \
	lib/csr_validate.c \
	lib/dense.c \
	lib/compare.c \
	lib/features.c \
	lib/strategy.c \
	lib/select_rules.c \
	lib/select_tc.h \
	lib/select.h \
	lib/select_plan.h \
	lib/select_features.c \
	lib/select_model.c \
	lib/select_tune.c \
	lib/eb_chunks.c \
	lib/longest_first.c \
	lib/plan.c \
	lib/registry.c \
	lib/mm_stream.h \
	lib/mm_stream.c \
	lib/mm_read.c \
	lib/mm_write.c
lib_libloom_la_CPPFLAGS = $(AM_CPPFLAGS) $(ZLIB_CFLAGS) $(HWLOC_CFLAGS)
lib_libloom_la_LIBADD = $(ZLIB_LIBS) $(HWLOC_LIBS) -lm
# Only loom_* is exported; loom__* and backend names stay inside.
lib_libloom_la_LDFLAGS = -version-info 0:0:0 -no-undefined -export-symbols-regex '^loom_[a-z]'
