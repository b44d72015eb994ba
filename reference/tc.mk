# reference/tc.mk - the tensor-core strategy's reference and MMA model
# (TCA-SpMM), part of libloom.  Include after reference/local.mk.
lib_libloom_la_SOURCES += \
	reference/tc_round.h \
	reference/tc_model.h \
	reference/tc_model.c
