/*
 * strategy.c - the strategy descriptor: the eight named designs, parsing
 * and printing "eb-rm-pr:chunk=256,lanes=8,vdl", and the rules a strategy
 * must satisfy.
 */
#include "config.h"
#include "loom_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define DEFAULT_CHUNK 256
#define DEFAULT_LANES 8

/* Design index = 4*M + 2*N + K, in the order loom-designs(7) lists them. */
loom_status loom_strategy_design(int index, loom_strategy *s)
{
    if (!s)
        return loom__error(LOOM_ERR_NULL_POINTER, "loom_strategy_design: s is NULL");
    if (index < 0 || index >= LOOM_DESIGN_COUNT)
        return loom__error(LOOM_ERR_INVALID_ARGUMENT,
                           "loom_strategy_design: index %d is not in 0..%d", index,
                           LOOM_DESIGN_COUNT - 1);
    memset(s, 0, sizeof *s);
    s->mloop = (index & 4) ? LOOM_M_EB : LOOM_M_RB;
    s->nloop = (index & 2) ? LOOM_N_CM : LOOM_N_RM;
    s->kloop = (index & 1) ? LOOM_K_PR : LOOM_K_SR;
    s->chunk = DEFAULT_CHUNK;
    s->lanes = DEFAULT_LANES;
    return LOOM_SUCCESS;
}

loom_status loom_strategy_check(const loom_strategy *s)
{
    if (!s)
        return loom__error(LOOM_ERR_NULL_POINTER, "strategy is NULL");
    if (s->mloop != LOOM_M_RB && s->mloop != LOOM_M_EB)
        return loom__error(LOOM_ERR_INVALID_ARGUMENT, "strategy: M-loop %d is not RB or EB", (int)s->mloop);
    if (s->nloop != LOOM_N_RM && s->nloop != LOOM_N_CM)
        return loom__error(LOOM_ERR_INVALID_ARGUMENT, "strategy: N-loop %d is not RM or CM", (int)s->nloop);
    if (s->kloop != LOOM_K_SR && s->kloop != LOOM_K_PR && s->kloop != LOOM_K_TC)
        return loom__error(LOOM_ERR_INVALID_ARGUMENT, "strategy: K-loop %d is not SR, PR or TC",
                           (int)s->kloop);
    if (s->kloop == LOOM_K_TC) {
        if (s->mloop != LOOM_M_RB)
            return loom__error(LOOM_ERR_INVALID_ARGUMENT,
                               "strategy: tensor-core strategies are row-balanced (RB), not EB");
        bool half = s->tc_precision == LOOM_TC_F16 || s->tc_precision == LOOM_TC_BF16;
        if (!half && s->tc_precision != LOOM_TC_TF32)
            return loom__error(LOOM_ERR_INVALID_ARGUMENT,
                               "strategy: a tensor-core strategy needs a precision (f16, bf16 or tf32)");
        if (half ? (s->tc_k != 16 && s->tc_k != 8) : (s->tc_k != 8 && s->tc_k != 4))
            return loom__error(LOOM_ERR_INVALID_ARGUMENT,
                               "strategy: MMA depth k = %d does not exist for %s (use %s)", s->tc_k,
                               half ? (s->tc_precision == LOOM_TC_F16 ? "f16" : "bf16") : "tf32",
                               half ? "16 or 8" : "8 or 4");
        if (s->tc_form != LOOM_TC_ROWS && s->tc_form != LOOM_TC_TILES)
            return loom__error(LOOM_ERR_INVALID_ARGUMENT,
                               "strategy: tensor-core form %d is not rows or tiles", (int)s->tc_form);
    } else if (s->tc_precision != LOOM_TC_NONE || s->tc_form != LOOM_TC_ROWS || s->tc_k != 0) {
        return loom__error(LOOM_ERR_INVALID_ARGUMENT,
                           "strategy: a tensor-core precision, form or k is set on a non-TC K-loop");
    }
    const int lanes_max = s->mloop == LOOM_M_EB ? LOOM_EB_LANES_MAX : LOOM_LANES_MAX;
    if (s->kloop == LOOM_K_PR &&
        (s->lanes < 2 || s->lanes > lanes_max || (s->lanes & (s->lanes - 1)) != 0))
        return loom__error(LOOM_ERR_INVALID_ARGUMENT,
                           "strategy: PR lane width %d is not a power of two in 2..%d%s", s->lanes,
                           lanes_max, s->mloop == LOOM_M_EB ? " (the limit under EB)" : "");
    if (s->mloop == LOOM_M_EB && (s->chunk < 1 || s->chunk > INT32_MAX))
        return loom__error(LOOM_ERR_INVALID_ARGUMENT,
                           "strategy: EB chunk %" PRId64 " is not in 1..%d", s->chunk, INT32_MAX);
    if (s->mloop == LOOM_M_EB && s->kloop == LOOM_K_PR && s->chunk % s->lanes != 0)
        return loom__error(LOOM_ERR_INVALID_ARGUMENT,
                           "strategy: EB+PR chunk %" PRId64 " is not a multiple of the lane width %d",
                           s->chunk, s->lanes);
    if (s->coarsen < 0 || s->coarsen > 4096)
        return loom__error(LOOM_ERR_INVALID_ARGUMENT, "strategy: coarsen %d is not in 0..4096", s->coarsen);
    if (s->techniques & ~(LOOM_TECH_VDL | LOOM_TECH_CSC | LOOM_TECH_BINNING | LOOM_TECH_TILE_MAJOR))
        return loom__error(LOOM_ERR_INVALID_ARGUMENT, "strategy: unknown technique flags 0x%x",
                           s->techniques);
    return LOOM_SUCCESS;
}

static bool parse_int(const char *text, int64_t *value)
{
    char *end;
    long long v = strtoll(text, &end, 10);
    if (end == text || *end != '\0')
        return false;
    *value = v;
    return true;
}

static loom_status parse_option(const char *opt, loom_strategy *s, const char *text)
{
    const char *eq = strchr(opt, '=');
    size_t klen = eq ? (size_t)(eq - opt) : strlen(opt);
    int64_t v = 0;
    if (eq && !parse_int(eq + 1, &v))
        return loom__error(LOOM_ERR_INVALID_ARGUMENT, "strategy '%s': '%s' needs an integer value",
                           text, opt);
    bool small = v >= 0 && v <= 4096; /* lanes and coarsen beyond this are never valid */
    if (eq && klen == 5 && strncasecmp(opt, "chunk", 5) == 0)
        s->chunk = v;
    else if (eq && klen == 5 && strncasecmp(opt, "lanes", 5) == 0 && small)
        s->lanes = (int)v;
    else if (eq && klen == 7 && strncasecmp(opt, "coarsen", 7) == 0 && small)
        s->coarsen = (int)v;
    else if (eq && (klen == 5 || klen == 7) && (strncasecmp(opt, "lanes", 5) == 0 || strncasecmp(opt, "coarsen", 7) == 0))
        return loom__error(LOOM_ERR_INVALID_ARGUMENT, "strategy '%s': '%s' is out of range", text, opt);
    else if (eq && klen == 1 && (opt[0] == 'k' || opt[0] == 'K') && v > 0 && v <= 64)
        s->tc_k = (int)v;
    else if (eq && klen == 1 && (opt[0] == 'k' || opt[0] == 'K'))
        return loom__error(LOOM_ERR_INVALID_ARGUMENT,
                           "strategy '%s': '%s' is out of range (the MMA depth: 16 or 8 for f16 "
                           "and bf16, 8 or 4 for tf32)",
                           text, opt);
    else if (!eq && strcasecmp(opt, "f16") == 0)
        s->tc_precision = LOOM_TC_F16;
    else if (!eq && strcasecmp(opt, "bf16") == 0)
        s->tc_precision = LOOM_TC_BF16;
    else if (!eq && strcasecmp(opt, "tf32") == 0)
        s->tc_precision = LOOM_TC_TF32;
    else if (!eq && strcasecmp(opt, "tiles") == 0)
        s->tc_form = LOOM_TC_TILES;
    else if (!eq && strcasecmp(opt, "rows") == 0)
        s->tc_form = LOOM_TC_ROWS;
    else if (!eq && strcasecmp(opt, "vdl") == 0)
        s->techniques |= LOOM_TECH_VDL;
    else if (!eq && strcasecmp(opt, "csc") == 0)
        s->techniques |= LOOM_TECH_CSC;
    else if (!eq && strcasecmp(opt, "binning") == 0)
        s->techniques |= LOOM_TECH_BINNING;
    else if (!eq && strcasecmp(opt, "tile-major") == 0)
        s->techniques |= LOOM_TECH_TILE_MAJOR;
    else
        return loom__error(LOOM_ERR_INVALID_ARGUMENT,
                           "strategy '%s': unknown option '%s' (expected chunk=N, lanes=N, "
                           "coarsen=N, vdl, csc, binning, tile-major; for -tc designs f16, bf16 or tf32, k=N, rows or tiles)",
                           text, opt);
    return LOOM_SUCCESS;
}

loom_status loom_strategy_parse(const char *text, loom_strategy *s)
{
    if (!text || !s)
        return loom__error(LOOM_ERR_NULL_POINTER, "loom_strategy_parse: text and s must not be NULL");
    char buf[256];
    if (strlen(text) >= sizeof buf)
        return loom__error(LOOM_ERR_INVALID_ARGUMENT, "strategy text is too long");
    strcpy(buf, text);
    char *opts = strchr(buf, ':');
    if (opts)
        *opts++ = '\0';
    static const char *const names[LOOM_DESIGN_COUNT] = {
        "rb-rm-sr", "rb-rm-pr", "rb-cm-sr", "rb-cm-pr", "eb-rm-sr", "eb-rm-pr", "eb-cm-sr", "eb-cm-pr"};
    int index = -1;
    for (int d = 0; d < LOOM_DESIGN_COUNT; d++)
        if (strcasecmp(buf, names[d]) == 0)
            index = d;
    /* Tensor-core designs: RB with the TC K-loop, f16 by default; k, when not
     * given, the deeper of the precision's two (16 for f16 and bf16, 8 for
     * tf32). */
    bool tc = strcasecmp(buf, "rb-rm-tc") == 0 || strcasecmp(buf, "rb-cm-tc") == 0;
    if (tc)
        index = strcasecmp(buf, "rb-rm-tc") == 0 ? 0 : 2;
    if (index < 0)
        return loom__error(LOOM_ERR_INVALID_ARGUMENT,
                           "unknown design '%s' (expected {rb|eb}-{rm|cm}-{sr|pr} or rb-{rm|cm}-tc, "
                           "e.g. rb-rm-sr, optionally followed by :chunk=N,lanes=N)",
                           buf);
    loom_strategy t;
    loom_strategy_design(index, &t);
    if (tc) {
        t.kloop = LOOM_K_TC;
        t.tc_precision = LOOM_TC_F16;
        t.tc_k = 0; /* not given yet: set below */
    }
    for (char *save = NULL, *opt = opts ? strtok_r(opts, ",", &save) : NULL; opt;
         opt = strtok_r(NULL, ",", &save)) {
        static const char *const tc_only[] = {"f16", "bf16", "tf32", "rows", "tiles"};
        bool tc_opt = (opt[0] == 'k' || opt[0] == 'K') && opt[1] == '=';
        for (size_t i = 0; i < sizeof tc_only / sizeof tc_only[0]; i++)
            tc_opt |= strcasecmp(opt, tc_only[i]) == 0;
        if (tc_opt && !tc)
            return loom__error(LOOM_ERR_INVALID_ARGUMENT,
                               "strategy '%s': '%s' is an option of the tensor-core designs (rb-rm-tc)",
                               text, opt);
        loom_status st = parse_option(opt, &t, text);
        if (st != LOOM_SUCCESS)
            return st;
    }
    if (tc && t.tc_k == 0)
        t.tc_k = t.tc_precision == LOOM_TC_TF32 ? 8 : 16;
    loom_status st = loom_strategy_check(&t);
    if (st != LOOM_SUCCESS)
        return st;
    *s = t;
    return LOOM_SUCCESS;
}

loom_status loom_strategy_format(const loom_strategy *s, char *buf, size_t len)
{
    if (!s || !buf)
        return loom__error(LOOM_ERR_NULL_POINTER, "loom_strategy_format: s and buf must not be NULL");
    loom_status st = loom_strategy_check(s);
    if (st != LOOM_SUCCESS)
        return st;
    char opts[128] = "";
    size_t o = 0;
    if (s->mloop == LOOM_M_EB)
        o += (size_t)snprintf(opts + o, sizeof opts - o, ",chunk=%" PRId64, s->chunk);
    if (s->kloop == LOOM_K_PR)
        o += (size_t)snprintf(opts + o, sizeof opts - o, ",lanes=%d", s->lanes);
    if (s->kloop == LOOM_K_TC)
        o += (size_t)snprintf(opts + o, sizeof opts - o, ",%s,k=%d",
                              s->tc_precision == LOOM_TC_F16    ? "f16"
                              : s->tc_precision == LOOM_TC_BF16 ? "bf16"
                                                                : "tf32",
                              s->tc_k);
    if (s->kloop == LOOM_K_TC && s->tc_form == LOOM_TC_TILES)
        o += (size_t)snprintf(opts + o, sizeof opts - o, ",tiles");
    if (s->coarsen)
        o += (size_t)snprintf(opts + o, sizeof opts - o, ",coarsen=%d", s->coarsen);
    if (s->techniques & LOOM_TECH_VDL)
        o += (size_t)snprintf(opts + o, sizeof opts - o, ",vdl");
    if (s->techniques & LOOM_TECH_CSC)
        o += (size_t)snprintf(opts + o, sizeof opts - o, ",csc");
    if (s->techniques & LOOM_TECH_BINNING)
        o += (size_t)snprintf(opts + o, sizeof opts - o, ",binning");
    if (s->techniques & LOOM_TECH_TILE_MAJOR)
        o += (size_t)snprintf(opts + o, sizeof opts - o, ",tile-major");
    int n = snprintf(buf, len, "%s-%s-%s%s%s", s->mloop == LOOM_M_RB ? "rb" : "eb",
                     s->nloop == LOOM_N_RM ? "rm" : "cm", s->kloop == LOOM_K_SR ? "sr" : s->kloop == LOOM_K_PR ? "pr" : "tc",
                     o ? ":" : "", o ? opts + 1 : "");
    if (n < 0 || (size_t)n >= len)
        return loom__error(LOOM_ERR_INVALID_ARGUMENT, "loom_strategy_format: buffer of %zu bytes is too small", len);
    return LOOM_SUCCESS;
}
