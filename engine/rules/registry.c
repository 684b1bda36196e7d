#include "rules/registry.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/array.h"
#include "base/buf.h"
#include "base/hash.h"
#include "base/mg_assert.h"
#include "datalog/parse.h"
#include "datalog/print.h"
#include "rules/dep_graph.h"

/* A registered rule. Its AST is parsed back from its canonical text into
 * its own arena: that is the deep copy, regexes and all, with no second
 * copy routine to keep in step with the AST. */
typedef struct stored_rule {
    arena a;
    const ast_rule *ast;
    char *text;
} stored_rule;

/* Registering N rules costs time linear in N: a registration checks only
 * whether its rule closes a negative cycle (dep_graph.h) and finds a
 * repeated rule by hash; the stratified program of all rules is built
 * when a query first asks for it (rules_acquire), once per change. */
struct rules_registry {
    pthread_mutex_t lock; /* guards `current`, every program's refs, `stored` and `count` */
    stored_rule **stored; /* registration order; appended by writers under the lock */
    size_t count, cap;
    rules_program *current; /* of the first current->count rules */
    htab texts;             /* canonical text -> index in `stored` (writers only) */
    dep_graph graph;        /* of the registered rules (writers only) */
};

static int oom(err *e) {
    return err_set(e, ERR(INT, 0), "out of memory");
}

/* ---- programs ------------------------------------------------------------------------ */

static void kept_free(rules_kept *k) {
    if (k)
        k->free(k);
}

static void program_free(rules_program *p) {
    if (!p)
        return;
    kept_free(p->kept);
    free((void *)p->rules);
    stratify_free((stratify_program *)p->strata);
    free(p);
}

/* The program of `rules` (n of them, heap-owned: the program takes them). */
static int program_of(const ast_rule **rules, size_t n, rules_program **out, err *e) {
    rules_program *p = calloc(1, sizeof *p);
    if (!p) {
        free(rules);
        return oom(e);
    }
    p->rules = rules;
    p->count = n;
    p->refs = 1;
    stratify_program *strata = NULL;
    int rc = stratify_build(rules, n, &strata, e);
    p->strata = strata;
    if (rc != 0) {
        program_free(p);
        return rc;
    }
    *out = p;
    return 0;
}

/* Called with the lock held; true when the last reference went. */
static bool program_unref(rules_program *p) {
    MG_ASSERT(p->refs > 0);
    return --p->refs == 0;
}

/* ---- stored rules ------------------------------------------------------------------- */

static void stored_free(stored_rule *s) {
    if (!s)
        return;
    arena_free(&s->a);
    free(s->text);
    free(s);
}

static int rule_text(const ast_rule *rule, char **out, err *e) {
    command c = {.kind = CMD_RULE, .as.rule = *rule};
    buf b;
    buf_init(&b);
    datalog_print(&c, &b);
    *out = buf_detach(&b);
    return *out ? 0 : oom(e);
}

static int stored_new(char *text, stored_rule **out, err *e) {
    stored_rule *s = calloc(1, sizeof *s);
    if (!s) {
        free(text);
        return oom(e);
    }
    arena_init_blocks(&s->a, 2048); /* one rule's AST: 64 KiB blocks made 10^4 rules 600 MB */
    s->text = text;
    command *c = NULL;
    err pe = {0};
    if (datalog_parse(text, strlen(text), &s->a, &c, &pe) != 0 || c->kind != CMD_RULE) {
        int rc = err_set(e, ERR(INT, 0), "cannot copy the rule %s: %s", text,
                         pe.message ? pe.message : "not a rule");
        err_clear(&pe);
        stored_free(s);
        return rc;
    }
    s->ast = &c->as.rule;
    *out = s;
    return 0;
}

/* The first `count` registered rules plus `extra` (NULL: none), as a
 * heap array (NULL: out of memory). */
static const ast_rule **rules_array(const rules_registry *r, size_t count, const ast_rule *extra) {
    const ast_rule **rules = calloc(count + 2, sizeof *rules);
    if (!rules)
        return NULL;
    for (size_t i = 0; i < count; i++)
        rules[i] = r->stored[i]->ast;
    if (extra)
        rules[count] = extra;
    return rules;
}

static uint64_t text_hash(const char *s) {
    return hash_bytes(s, strlen(s));
}

typedef struct text_key {
    const rules_registry *r;
    const char *text;
} text_key;

static bool text_eq(const void *ctx, uint32_t id) {
    const text_key *k = ctx;
    return strcmp(k->r->stored[id]->text, k->text) == 0;
}

static bool is_registered(const rules_registry *r, const char *text) {
    text_key k = {r, text};
    return htab_find(&r->texts, text_hash(text), text_eq, &k) != HTAB_NONE;
}

/* ---- the registry --------------------------------------------------------------------- */

int rules_registry_new(rules_registry **out, err *e) {
    rules_registry *r = calloc(1, sizeof *r);
    if (!r)
        return oom(e);
    if (pthread_mutex_init(&r->lock, NULL) != 0) {
        free(r);
        return err_set(e, ERR(INT, 0), "cannot create the rule registry lock");
    }
    htab_init(&r->texts);
    dep_graph_init(&r->graph);
    const ast_rule **none = rules_array(r, 0, NULL);
    int rc = none ? program_of(none, 0, &r->current, e) : oom(e);
    if (rc != 0) {
        rules_registry_free(r);
        return rc;
    }
    *out = r;
    return 0;
}

void rules_registry_free(rules_registry *r) {
    if (!r)
        return;
    program_free(r->current);
    for (size_t i = 0; i < r->count; i++)
        stored_free(r->stored[i]);
    free(r->stored);
    htab_free(&r->texts);
    dep_graph_free(&r->graph);
    pthread_mutex_destroy(&r->lock);
    free(r);
}

/* Appends `s` (and, when given, makes `p`, built with it, current). The
 * append is under the lock: rules_acquire copies `stored`. */
static int install(rules_registry *r, stored_rule *s, rules_program *p, err *e) {
    if (htab_reserve(&r->texts, 1) != 0 || dep_graph_commit(&r->graph) != 0)
        return oom(e);
    pthread_mutex_lock(&r->lock);
    if (!array_reserve(&r->stored, &r->cap, r->count + 1, sizeof *r->stored, 16)) {
        pthread_mutex_unlock(&r->lock);
        return oom(e);
    }
    htab_insert(&r->texts, text_hash(s->text), (uint32_t)r->count);
    r->stored[r->count++] = s;
    rules_program *old = NULL;
    if (p) {
        old = r->current;
        r->current = p;
    }
    bool last = old && program_unref(old);
    pthread_mutex_unlock(&r->lock);
    if (last)
        program_free(old);
    return 0;
}

/* A rule that closes a negative cycle: the whole program is stratified,
 * which names the cycle as it always did (INT-054); NULL *p when it
 * stratifies after all. */
static int check_whole(rules_registry *r, const ast_rule *rule, rules_program **p, err *e) {
    const ast_rule **rules = rules_array(r, r->count, rule);
    if (!rules)
        return oom(e);
    return program_of(rules, r->count + 1, p, e);
}

int rules_register(rules_registry *r, const ast_rule *rule, err *e) {
    char *text = NULL;
    int rc = rule_text(rule, &text, e);
    if (rc != 0)
        return rc;
    if (is_registered(r, text)) {
        free(text);
        return 0;
    }
    stored_rule *s = NULL;
    rc = stored_new(text, &s, e);
    if (rc != 0)
        return rc;
    bool cyclic = false;
    rules_program *p = NULL;
    if (dep_graph_prepare(&r->graph, s->ast, &cyclic) != 0)
        rc = oom(e);
    else if (cyclic)
        rc = check_whole(r, s->ast, &p, e);
    if (rc == 0)
        rc = install(r, s, p, e);
    if (rc != 0) {
        program_free(p);
        stored_free(s);
    }
    return rc;
}

/* Builds the program of the first n rules outside the lock (a query
 * never holds it for longer than copying pointers), then makes it
 * current unless a newer one got there first. */
static const rules_program *build_current(rules_registry *r, const ast_rule **rules, size_t n) {
    rules_program *p = NULL;
    err ignored = {0};
    int rc = program_of(rules, n, &p, &ignored);
    err_clear(&ignored);
    if (rc != 0)
        return NULL;
    pthread_mutex_lock(&r->lock);
    rules_program *old = NULL;
    if (r->current->count < n) {
        old = r->current;
        r->current = p;
        p->refs++;
    }
    bool last = old && program_unref(old);
    pthread_mutex_unlock(&r->lock);
    if (last)
        program_free(old);
    return p;
}

const rules_program *rules_acquire(rules_registry *r) {
    pthread_mutex_lock(&r->lock);
    rules_program *p = r->current;
    if (p->count == r->count) {
        p->refs++;
        pthread_mutex_unlock(&r->lock);
        return p;
    }
    size_t n = r->count;
    const ast_rule **rules = rules_array(r, n, NULL);
    pthread_mutex_unlock(&r->lock);
    return rules ? build_current(r, rules, n) : NULL;
}

void rules_release(rules_registry *r, const rules_program *p) {
    if (!p)
        return;
    pthread_mutex_lock(&r->lock);
    bool last = program_unref((rules_program *)p);
    pthread_mutex_unlock(&r->lock);
    if (last)
        program_free((rules_program *)p);
}

rules_kept *rules_take_kept(rules_registry *r, const rules_program *p) {
    rules_program *w = (rules_program *)p;
    pthread_mutex_lock(&r->lock);
    MG_ASSERT(w->refs > 0); /* p is acquired */
    rules_kept *k = w->kept;
    w->kept = NULL;
    pthread_mutex_unlock(&r->lock);
    return k;
}

void rules_keep(rules_registry *r, const rules_program *p, rules_kept *k) {
    rules_program *w = (rules_program *)p;
    pthread_mutex_lock(&r->lock);
    rules_kept *old = w->kept;
    w->kept = k;
    pthread_mutex_unlock(&r->lock);
    kept_free(old);
}
