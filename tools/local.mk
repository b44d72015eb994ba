# tools/local.mk - the loom program (tools/loom): spmm, info, designs.
bin_PROGRAMS += tools/loom
tools_loom_SOURCES = \
	tools/loom.c \
	tools/commands.h \
	tools/options.h \
	tools/options.c \
	tools/common.h \
	tools/common.c \
	tools/run.h \
	tools/run.c \
	tools/check.h \
	tools/check.c \
	tools/cmd_spmm.c \
	tools/cmd_info.c \
	tools/cmd_designs.c \
	tools/cmd_verify.c \
	tools/cmd_explain.c \
	tools/run_record.h \
	tools/run_record.c \
	tools/record_format.h \
	tools/sample_matrix.h \
	reference/tc_model.h \
	reference/tc_model.c
nodist_tools_loom_SOURCES = tools/sample_matrix.c
tools_loom_LDADD = lib/libloom.la -lm

# The embedded sample matrix: the bytes of data/sample/email-Eu-core.mtx.gz
# written out as a C array at build time (shell, od and awk only).  Without
# zlib libloom cannot inflate it, so the program embeds the plain text.
tools_sample_source = $(srcdir)/data/sample/email-Eu-core.mtx.gz
if LOOM_HAVE_ZLIB
tools/sample_matrix.c: $(tools_sample_source) $(srcdir)/tools/embed_bytes.sh
	$(AM_V_GEN)$(MKDIR_P) tools && \
	$(SHELL) $(srcdir)/tools/embed_bytes.sh tool_sample_matrix email-Eu-core.mtx.gz \
	  $(tools_sample_source) > $@-t && mv -f $@-t $@
else
tools/sample_matrix.c: $(tools_sample_source) $(srcdir)/tools/embed_bytes.sh
	$(AM_V_GEN)$(MKDIR_P) tools && \
	gzip -dc $(tools_sample_source) > $@-mtx && \
	$(SHELL) $(srcdir)/tools/embed_bytes.sh tool_sample_matrix email-Eu-core.mtx \
	  $@-mtx > $@-t && rm -f $@-mtx && mv -f $@-t $@
endif
CLEANFILES += tools/sample_matrix.c
EXTRA_DIST += tools/embed_bytes.sh data/sample/email-Eu-core.mtx.gz

# The model trainer (Python with scikit-learn; see loom-model(5)).
dist_bin_SCRIPTS = tools/loom-train
