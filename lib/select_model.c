/*
 * select_model.c - the model selector's model: gradient-boosted decision
 * trees in a small text format (loom-model(5)), parsed, checked and
 * evaluated here.  tools/loom-train writes such files from sweep CSVs.
 *
 * Each candidate's ensemble predicts its log time relative to the mean
 * over candidates; an optional 'scale' ensemble predicts that mean, and is
 * added to every candidate (so exp() of the sum is a time in ms).  Splitting
 * the two lets the candidates' trees spend their depth on what differs
 * between designs, not on how big the matrix is (held out: 0.967 of the
 * oracle against 0.952 with plain log-time targets).
 *
 * Why regression per candidate (predicting log time) instead of one
 * classifier over designs: the predicted times order the candidates, so a
 * candidate the backend cannot run falls through to the next best; they
 * let `loom explain` print predicted against measured time; and a new
 * candidate (another lane width) is one more ensemble, not a new label set.
 * log time: relative errors matter, and times span six decades.
 */
#include "config.h"
#include "loom_internal.h"
#include "select_plan.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MODEL_MAGIC "loom-model"
#define MODEL_VERSION 1
#define MAX_TREES 100000
#define MAX_NODES 1000000

typedef struct model_node {
    int feature; /* index into the file's feature list; -1 for a leaf */
    double threshold;
    int left, right; /* go left when x[feature] <= threshold */
    double value;    /* leaf value */
} model_node;

typedef struct model_tree {
    int count;
    model_node *nodes;
} model_tree;

typedef struct model_ensemble {
    loom_strategy strategy;
    double base;
    int count; /* trees */
    model_tree *trees;
} model_ensemble;

struct loom__model {
    char backend[32];
    int features;                      /* count in the file */
    int feature_map[LOOM__FEATURE_COUNT]; /* file index -> library index */
    bool has_scale;
    model_ensemble scale; /* added to every candidate's prediction */
    bool has_default;
    loom_strategy default_strategy; /* kept unless another wins by more than margin */
    double margin;                  /* in log(ms): 0.1 is about 10% */
    int default_index;
    int candidates;
    model_ensemble cand[LOOM__MODEL_MAX_CANDIDATES];
};

static void ensemble_free(model_ensemble *e)
{
    for (int t = 0; t < e->count; t++)
        free(e->trees[t].nodes);
    free(e->trees);
}

void loom__model_free(loom__model *m)
{
    if (!m)
        return;
    for (int c = 0; c < m->candidates; c++)
        ensemble_free(&m->cand[c]);
    ensemble_free(&m->scale);
    free(m);
}

const char *loom__model_backend_name(const loom__model *m)
{
    return m->backend;
}

int loom__model_candidates(const loom__model *m)
{
    return m->candidates;
}

const loom_strategy *loom__model_candidate(const loom__model *m, int i)
{
    return i >= 0 && i < m->candidates ? &m->cand[i].strategy : NULL;
}

static double ensemble_predict(const loom__model *m, const model_ensemble *e,
                               const double x[LOOM__FEATURE_COUNT])
{
    double sum = e->base;
    for (int t = 0; t < e->count; t++) {
        const model_node *nodes = e->trees[t].nodes;
        int k = 0;
        while (nodes[k].feature >= 0)
            k = x[m->feature_map[nodes[k].feature]] <= nodes[k].threshold ? nodes[k].left
                                                                         : nodes[k].right;
        sum += nodes[k].value;
    }
    return sum;
}

void loom__model_predict_all(const loom__model *m, const double x[LOOM__FEATURE_COUNT],
                             double *pred)
{
    const double scale = m->has_scale ? ensemble_predict(m, &m->scale, x) : 0.0;
    for (int i = 0; i < m->candidates; i++)
        pred[i] = scale + ensemble_predict(m, &m->cand[i], x);
}

/* ------------------------------------------------------------- parser */

typedef struct parser {
    const char *origin;
    char *text; /* a writable copy, cut into lines */
    char *next;
    int line;
    char *tok[LOOM__FEATURE_COUNT + 8];
    int ntok;
} parser;

/* The next line with content, split at white space; false at the end. */
static bool next_line(parser *p)
{
    while (p->next && *p->next) {
        char *line = p->next;
        char *nl = strchr(line, '\n');
        p->next = nl ? nl + 1 : NULL;
        if (nl)
            *nl = '\0';
        p->line++;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        p->ntok = 0;
        char *save = NULL;
        for (char *t = strtok_r(line, " \t\r", &save); t; t = strtok_r(NULL, " \t\r", &save)) {
            if (p->ntok == (int)(sizeof p->tok / sizeof p->tok[0]))
                return p->ntok = -1, true;
            p->tok[p->ntok++] = t;
        }
        if (p->ntok != 0)
            return true;
    }
    return false;
}

static loom_status fail(const parser *p, const char *what)
{
    return loom__error(LOOM_ERR_PARSE, "model %s, line %d: %s", p->origin, p->line, what);
}

static bool to_int(const char *s, long lo, long hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return false;
    *out = (int)v;
    return true;
}

static bool to_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v))
        return false;
    *out = v;
    return true;
}

static loom_status parse_tree(parser *p, int features, model_tree *tree)
{
    if (!next_line(p))
        return fail(p, "the file ends where a 'tree COUNT' line was expected");
    int count;
    if (p->ntok != 2 || strcmp(p->tok[0], "tree") != 0 || !to_int(p->tok[1], 1, MAX_NODES, &count))
        return fail(p, "expected 'tree COUNT' with COUNT the number of node lines that follow");
    tree->nodes = calloc((size_t)count, sizeof *tree->nodes);
    if (!tree->nodes)
        return loom__error(LOOM_ERR_OUT_OF_MEMORY, "model %s: out of memory", p->origin);
    tree->count = count;
    for (int k = 0; k < count; k++) {
        model_node *nd = &tree->nodes[k];
        if (!next_line(p))
            return fail(p, "the file ends inside a tree");
        if (p->ntok != 5 || !to_int(p->tok[0], -1, features - 1, &nd->feature) ||
            !to_double(p->tok[1], &nd->threshold) || !to_int(p->tok[2], -1, count - 1, &nd->left) ||
            !to_int(p->tok[3], -1, count - 1, &nd->right) || !to_double(p->tok[4], &nd->value))
            return fail(p, "expected a node 'FEATURE THRESHOLD LEFT RIGHT VALUE' (FEATURE -1..features-1, "
                           "LEFT/RIGHT node numbers of this tree or -1, finite numbers)");
        /* Children come after their parent: no cycles, every walk ends. */
        if (nd->feature >= 0 && (nd->left <= k || nd->right <= k))
            return fail(p, "a split node's children must be later nodes of the same tree");
        if (nd->feature < 0 && (nd->left != -1 || nd->right != -1))
            return fail(p, "a leaf (FEATURE -1) must have LEFT and RIGHT -1");
    }
    return LOOM_SUCCESS;
}

static loom_status parse_trees(parser *p, loom__model *m, model_ensemble *e, int count)
{
    e->trees = count ? calloc((size_t)count, sizeof *e->trees) : NULL;
    if (count && !e->trees)
        return loom__error(LOOM_ERR_OUT_OF_MEMORY, "model %s: out of memory", p->origin);
    for (int t = 0; t < count; t++) {
        loom_status st = parse_tree(p, m->features, &e->trees[t]);
        e->count = t + 1;
        if (st != LOOM_SUCCESS)
            return st;
    }
    return LOOM_SUCCESS;
}

/* scale trees COUNT base VALUE: an ensemble added to every design's */
static loom_status parse_scale(parser *p, loom__model *m)
{
    int count;
    if (m->has_scale)
        return fail(p, "a second 'scale' ensemble");
    if (p->ntok != 5 || strcmp(p->tok[1], "trees") != 0 || strcmp(p->tok[3], "base") != 0 ||
        !to_int(p->tok[2], 0, MAX_TREES, &count) || !to_double(p->tok[4], &m->scale.base))
        return fail(p, "expected 'scale trees COUNT base VALUE'");
    m->has_scale = true;
    return parse_trees(p, m, &m->scale, count);
}

static loom_status parse_candidate(parser *p, loom__model *m)
{
    /* design STRATEGY trees COUNT base VALUE */
    if (m->candidates == LOOM__MODEL_MAX_CANDIDATES)
        return fail(p, "too many candidates (at most 64)");
    model_ensemble *e = &m->cand[m->candidates];
    int count;
    if (p->ntok != 6 || strcmp(p->tok[2], "trees") != 0 || strcmp(p->tok[4], "base") != 0 ||
        !to_int(p->tok[3], 0, MAX_TREES, &count) || !to_double(p->tok[5], &e->base))
        return fail(p, "expected 'design STRATEGY trees COUNT base VALUE'");
    if (loom_strategy_parse(p->tok[1], &e->strategy) != LOOM_SUCCESS) {
        char msg[300];
        snprintf(msg, sizeof msg, "'%s' is not a strategy: %s", p->tok[1], loom_last_error());
        return fail(p, msg);
    }
    m->candidates++; /* owned by m from here, so loom__model_free frees it */
    return parse_trees(p, m, e, count);
}

static loom_status parse_all(parser *p, loom__model *m)
{
    int version;
    if (!next_line(p) || p->ntok != 2 || strcmp(p->tok[0], MODEL_MAGIC) != 0 ||
        !to_int(p->tok[1], 0, 1000, &version))
        return fail(p, "expected the header 'loom-model 1'");
    if (version != MODEL_VERSION)
        return fail(p, "unsupported model format version (this loom reads version 1)");
    if (!next_line(p) || p->ntok != 2 || strcmp(p->tok[0], "backend") != 0 ||
        strlen(p->tok[1]) >= sizeof m->backend)
        return fail(p, "expected 'backend NAME'");
    strcpy(m->backend, p->tok[1]);
    if (!next_line(p) || p->ntok < 2 || strcmp(p->tok[0], "features") != 0 ||
        !to_int(p->tok[1], 1, LOOM__FEATURE_COUNT, &m->features) || p->ntok != 2 + m->features)
        return fail(p, "expected 'features COUNT NAME...' with COUNT names");
    for (int j = 0; j < m->features; j++) {
        m->feature_map[j] = loom__feature_index(p->tok[2 + j]);
        if (m->feature_map[j] < 0) {
            char msg[160];
            snprintf(msg, sizeof msg, "unknown feature '%.60s' (see loom-model(5))", p->tok[2 + j]);
            return fail(p, msg);
        }
    }
    while (next_line(p)) {
        if (p->ntok >= 1 && strcmp(p->tok[0], "design") == 0) {
            loom_status st = parse_candidate(p, m);
            if (st != LOOM_SUCCESS)
                return st;
        } else if (p->ntok >= 1 && strcmp(p->tok[0], "default") == 0) {
            if (m->has_default || p->ntok != 4 || strcmp(p->tok[2], "margin") != 0 ||
                !to_double(p->tok[3], &m->margin) || m->margin < 0 ||
                loom_strategy_parse(p->tok[1], &m->default_strategy) != LOOM_SUCCESS)
                return fail(p, "expected one 'default STRATEGY margin VALUE' (VALUE >= 0)");
            m->has_default = true;
        } else if (p->ntok >= 1 && strcmp(p->tok[0], "scale") == 0) {
            loom_status st = parse_scale(p, m);
            if (st != LOOM_SUCCESS)
                return st;
        } else if (p->ntok == 1 && strcmp(p->tok[0], "end") == 0) {
            if (m->candidates == 0)
                return fail(p, "the model has no 'design' entries");
            m->default_index = -1;
            for (int c = 0; m->has_default && c < m->candidates; c++)
                if (memcmp(&m->cand[c].strategy, &m->default_strategy, sizeof m->default_strategy) == 0)
                    m->default_index = c;
            if (m->has_default && m->default_index < 0)
                return fail(p, "the 'default' strategy is none of the designs");
            if (next_line(p))
                return fail(p, "text after 'end'");
            return LOOM_SUCCESS;
        } else {
            return fail(p, "expected 'design ...', 'scale ...' or 'end'");
        }
    }
    return fail(p, "the file ends without 'end' (truncated?)");
}

loom_status loom__model_parse(const char *text, size_t len, const char *origin, loom__model **out)
{
    if (!text || !out)
        return loom__error(LOOM_ERR_NULL_POINTER, "model: text and out must not be NULL");
    *out = NULL;
    parser p = {.origin = origin ? origin : "(memory)"};
    p.text = malloc(len + 1);
    loom__model *m = calloc(1, sizeof *m);
    if (!p.text || !m) {
        free(p.text);
        free(m);
        return loom__error(LOOM_ERR_OUT_OF_MEMORY, "model %s: out of memory", p.origin);
    }
    memcpy(p.text, text, len);
    p.text[len] = '\0';
    if (strlen(p.text) != len) {
        free(p.text);
        free(m);
        return loom__error(LOOM_ERR_PARSE, "model %s: contains a NUL byte (not a text file)", p.origin);
    }
    p.next = p.text;
    loom_status st = parse_all(&p, m);
    free(p.text);
    if (st != LOOM_SUCCESS) {
        loom__model_free(m);
        return st;
    }
    *out = m;
    return LOOM_SUCCESS;
}

loom_status loom__model_read(const char *path, loom__model **out)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return loom__error(LOOM_ERR_IO, "model %s: cannot open: %s", path, strerror(errno));
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + len, 1, cap - len, f)) > 0) {
        len += got;
        if (len == cap) {
            char *bigger = realloc(buf, cap *= 2);
            if (!bigger) {
                free(buf);
                buf = NULL;
            }
            buf = bigger;
        }
    }
    bool bad = ferror(f);
    fclose(f);
    if (!buf)
        return loom__error(LOOM_ERR_OUT_OF_MEMORY, "model %s: out of memory", path);
    if (bad) {
        free(buf);
        return loom__error(LOOM_ERR_IO, "model %s: read error", path);
    }
    loom_status st = loom__model_parse(buf, len, path, out);
    free(buf);
    return st;
}

/* ------------------------------------------------- the models in use */

static pthread_mutex_t models_lock = PTHREAD_MUTEX_INITIALIZER;
static loom__model *models[LOOM_BACKEND_COUNT];
static bool searched[LOOM_BACKEND_COUNT];
static char model_where[LOOM_BACKEND_COUNT][320];

static void search_model(loom_backend_id id)
{
    const char *name = loom_backend_name(id);
    const char *env = getenv("LOOM_MODEL_DIR");
    const char *dir = env && *env ? env : LOOM_DATADIR;
    char path[300];
    snprintf(path, sizeof path, "%s/%s.model", dir, name);
    loom__model *m = NULL;
    loom_status st = loom__model_read(path, &m);
    /* Not installed yet (a build tree, as after ./setup.sh): the models
     * shipped in the source tree. */
    if (st == LOOM_ERR_IO && !(env && *env)) {
        char source_path[300];
        snprintf(source_path, sizeof source_path, "%s/data/models/%s.model", LOOM_SRCDIR, name);
        if (loom__model_read(source_path, &m) == LOOM_SUCCESS) {
            snprintf(path, sizeof path, "%s", source_path);
            st = LOOM_SUCCESS;
        }
    }
    if (st == LOOM_SUCCESS && strcmp(m->backend, name) != 0) {
        snprintf(model_where[id], sizeof model_where[id], "%.200s is for backend %.31s, not %.31s", path,
                 m->backend, name);
        loom__model_free(m);
        m = NULL;
    } else if (st == LOOM_SUCCESS) {
        snprintf(model_where[id], sizeof model_where[id], "%s", path);
    } else if (st == LOOM_ERR_IO) {
        snprintf(model_where[id], sizeof model_where[id], "no model file %s", path);
    } else {
        snprintf(model_where[id], sizeof model_where[id], "ignored %.300s", loom_last_error());
    }
    models[id] = m;
    searched[id] = true;
    loom__clear_error();
}

const loom__model *loom__model_acquire(loom_backend_id id, char *where, size_t len)
{
    if (id < 0 || id >= LOOM_BACKEND_COUNT)
        return NULL;
    pthread_mutex_lock(&models_lock);
    if (!searched[id])
        search_model(id);
    const loom__model *m = models[id];
    if (where)
        snprintf(where, len, "%s", model_where[id]);
    if (!m)
        pthread_mutex_unlock(&models_lock);
    return m;
}

void loom__model_release(const loom__model *m)
{
    if (m)
        pthread_mutex_unlock(&models_lock);
}

loom_status loom_model_load(loom_backend_id backend, const char *path)
{
    if (backend < 0 || backend >= LOOM_BACKEND_COUNT)
        return loom__error(LOOM_ERR_INVALID_ARGUMENT, "loom_model_load: backend %d is not a backend",
                           (int)backend);
    loom__model *m = NULL;
    if (path) {
        loom_status st = loom__model_read(path, &m);
        if (st != LOOM_SUCCESS)
            return st;
        if (strcmp(m->backend, loom_backend_name(backend)) != 0) {
            loom_status e = loom__error(LOOM_ERR_INVALID_ARGUMENT,
                                        "loom_model_load: %s is a model for backend %s, not %s", path,
                                        m->backend, loom_backend_name(backend));
            loom__model_free(m);
            return e;
        }
    }
    pthread_mutex_lock(&models_lock);
    loom__model_free(models[backend]);
    models[backend] = m;
    searched[backend] = path != NULL; /* NULL: search the default places again */
    if (path)
        snprintf(model_where[backend], sizeof model_where[backend], "%s (loom_model_load)", path);
    pthread_mutex_unlock(&models_lock);
    return LOOM_SUCCESS;
}

/* ----------------------------------------------------- the selector */

loom_status loom__select_model(loom_plan *p, const loom__device_info *dev, char *why, size_t len)
{
    char where[320];
    const loom__model *m = loom__model_acquire(p->backend->id, where, sizeof where);
    if (!m)
        return loom__error(LOOM_ERR_NOT_SUPPORTED,
                           "model selector: no trained model for backend %s (%s); train one with "
                           "loom-train (loom-model(5)) or use the rules or tune selector",
                           p->backend->name, where);
    double x[LOOM__FEATURE_COUNT];
    loom__feature_vector(&p->features, p->n, p->x_layout, p->y_layout, p->dtype, dev, x);
    int best = -1, second = -1;
    double pred[LOOM__MODEL_MAX_CANDIDATES];
    loom__model_predict_all(m, x, pred);
    for (int i = 0; i < m->candidates; i++) {
        if (p->backend->supports(&m->cand[i].strategy, p->dtype, p->A->memory) != LOOM_SUCCESS ||
            !loom__candidate_fits(&p->features, &m->cand[i].strategy))
            continue;
        if (best < 0 || pred[i] < pred[best]) {
            second = best;
            best = i;
        } else if (second < 0 || pred[i] < pred[second]) {
            second = i;
        }
    }
    loom__clear_error();
    /* The default design (the best single design in training) stays unless
     * the trees predict another faster by more than the margin: the trees'
     * small predicted differences are mostly noise. */
    bool kept_default = false;
    int d = m->has_default ? m->default_index : -1;
    if (d >= 0 && best >= 0 && d != best && pred[d] - pred[best] <= m->margin &&
        loom__candidate_fits(&p->features, &m->cand[d].strategy) &&
        p->backend->supports(&m->cand[d].strategy, p->dtype, p->A->memory) == LOOM_SUCCESS) {
        second = best;
        best = d;
        kept_default = true;
    }
    loom__clear_error();
    int candidates = m->candidates;
    loom_strategy best_s = best >= 0 ? m->cand[best].strategy : p->strategy;
    loom_strategy second_s = second >= 0 ? m->cand[second].strategy : p->strategy;
    /* Every candidate's prediction, in the model's order: "NAME MS ms; ..."
     * (`loom explain` reads this list). */
    char all[1700] = ""; /* 26 candidates of about 50 characters */
    size_t o = 0;
    for (int i = 0; i < m->candidates && o + 64 < sizeof all; i++) {
        char name[96];
        if (loom_strategy_format(&m->cand[i].strategy, name, sizeof name) == LOOM_SUCCESS)
            o += (size_t)snprintf(all + o, sizeof all - o, "%s%s %.4g ms", i ? "; " : "", name,
                                  exp(pred[i]));
    }
    loom__model_release(m);
    if (best < 0)
        return loom__error(LOOM_ERR_NOT_SUPPORTED,
                           "model selector: backend %s runs none of the model's candidates",
                           p->backend->name);
    p->strategy = best_s;
    char next[128] = "none";
    if (second >= 0)
        loom_strategy_format(&second_s, next, sizeof next);
    snprintf(why, len,
             "model: %d candidates ranked by the trees of %s; predicted %.4g ms, %s %s at "
             "%.4g ms%s; predicted: %s",
             candidates, where, exp(pred[best]), kept_default ? "the trees' best" : "next best",
             next, second >= 0 ? exp(pred[second]) : 0.0,
             kept_default ? " (within the margin, so the default design stays)" : "", all);
    return LOOM_SUCCESS;
}
