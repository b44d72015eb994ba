/* spmm_f64.c - the reference designs in double precision (see spmm_designs.h). */
#define LOOM_REAL_F64
#include "reference.h"
#include "spmm_designs.h"
