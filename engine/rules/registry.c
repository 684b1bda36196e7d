#include "rules/registry.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/array.h"
#include "base/buf.h"
#include "datalog/parse.h"
#include "datalog/print.h"

/* A registered rule. Its AST is parsed back from its canonical text into
 * its own arena: that is the deep copy, regexes and all, with no second
 * copy routine to keep in step with the AST. */
typedef struct stored_rule {
    arena a;
    const ast_rule *ast;
    char *text;
} stored_rule;

struct rules_registry {
    pthread_mutex_t lock; /* guards `current` and every program's refs */
    stored_rule **stored; /* registration order; touched by writers only */
    size_t count, cap;
    rules_program *current;
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

/* The program of the registered rules plus `extra` (NULL: none). */
static int program_build(const rules_registry *r, const ast_rule *extra, rules_program **out,
                         err *e) {
    size_t n = r->count + (extra ? 1 : 0);
    rules_program *p = calloc(1, sizeof *p);
    const ast_rule **rules = calloc(n + 1, sizeof *rules);
    if (!p || !rules) {
        free(p);
        free(rules);
        return oom(e);
    }
    for (size_t i = 0; i < r->count; i++)
        rules[i] = r->stored[i]->ast;
    if (extra)
        rules[r->count] = extra;
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
    arena_init(&s->a);
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

static bool is_registered(const rules_registry *r, const char *text) {
    for (size_t i = 0; i < r->count; i++)
        if (strcmp(r->stored[i]->text, text) == 0)
            return true;
    return false;
}

static bool reserve_stored(rules_registry *r) {
    return array_reserve(&r->stored, &r->cap, r->count + 1, sizeof *r->stored, 16);
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
    int rc = program_build(r, NULL, &r->current, e);
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
    pthread_mutex_destroy(&r->lock);
    free(r);
}

static void install(rules_registry *r, stored_rule *s, rules_program *p) {
    r->stored[r->count++] = s;
    pthread_mutex_lock(&r->lock);
    rules_program *old = r->current;
    r->current = p;
    bool last = program_unref(old);
    pthread_mutex_unlock(&r->lock);
    if (last)
        program_free(old);
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
    rules_program *p = NULL;
    rc = program_build(r, s->ast, &p, e);
    if (rc == 0 && !reserve_stored(r)) {
        program_free(p);
        rc = oom(e);
    }
    if (rc != 0) {
        stored_free(s);
        return rc;
    }
    install(r, s, p);
    return 0;
}

const rules_program *rules_acquire(rules_registry *r) {
    pthread_mutex_lock(&r->lock);
    rules_program *p = r->current;
    p->refs++;
    pthread_mutex_unlock(&r->lock);
    return p;
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
