# reference/local.mk - the sequential reference (the specification), part of libloom.
lib_libloom_la_SOURCES += \
	reference/reference.h \
	reference/operands.h \
	reference/real_type.h \
	reference/spmm_designs.h \
	reference/order_eb.h \
	reference/order_rb_sr.h \
	reference/order_rb_pr.h \
	reference/order_eb_sr.h \
	reference/order_eb_pr.h \
	reference/spmm_f32.c \
	reference/spmm_f64.c \
	reference/reference_backend.c
