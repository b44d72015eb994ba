/* spmm_f32.c - the reference designs in single precision (see spmm_designs.h). */
#define LOOM_REAL_F32
#include "reference.h"
#include "spmm_designs.h"
