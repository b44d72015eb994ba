/*
 * select_plan.h - the selectors' entry points for plan.c (they need the
 * plan's layout, so they live apart from select.h, which the sweep shares).
 */
#ifndef LOOM_SELECT_PLAN_H
#define LOOM_SELECT_PLAN_H

#include "loom_internal.h"
#include "select.h"

/* Time the candidates on the plan's input (or reuse the cached winner),
 * set p->strategy and say why.  X: the caller's X descriptor; on a device,
 * when it has data, tune reads it instead of making a scratch X. */
loom_status loom__select_tune(loom_plan *p, const loom__device_info *dev, const loom_dense *X,
                              char *why, size_t len);

/* Rank the candidates of the backend's model and set p->strategy to the
 * best one the backend supports.  LOOM_ERR_NOT_SUPPORTED when there is no
 * model; `where` says why. */
loom_status loom__select_model(loom_plan *p, const loom__device_info *dev, char *why, size_t len);

#endif /* LOOM_SELECT_PLAN_H */
