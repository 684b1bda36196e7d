/* Prepared queries (db/prepared.h): a private parse whose slot places are
 * overwritten by the bound values. */
#include "db/prepared.h"

#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "base/array.h"
#include "datalog/parse.h"
#include "db/db_internal.h"
#include "exec/query_keep.h"
#include "edn/edn.h"
#include "edn/lexer.h"

/* Where a slot stands (language.md §13's table). */
typedef enum slot_pos {
    USE_ENTITY,
    USE_VALUE,
    USE_RULE_ARG,
    USE_EXPR,
    USE_AS_OF,
    USE_VALID_AT
} slot_pos;

/* One place of a parse that a slot stands for. */
typedef struct slot_use {
    size_t slot;
    slot_pos pos;
    term *t;          /* ENTITY, VALUE, RULE_ARG, EXPR: the term to overwrite */
    const char *name; /* the slot's name as parsed (in the parse's arena) */
    size_t name_len;
} slot_use;

/* One parse of the text: the statement's, and every cursor's opened on it. */
typedef struct parse_copy {
    _Atomic size_t refs;
    arena a;
    ast_query *q;
    slot_use *uses;
    size_t use_count, use_cap;
    size_t slot_count;
    char **bytes; /* per slot: the bound string / keyword payload (malloc'd) */
    size_t *caps;
    /* The :where kept between runs (exec/query_keep.h), planned when the
     * slots had these kinds and value types (2 bytes per slot). */
    query_keep keep;
    uint8_t *shape;
    bool shaped;
} parse_copy;

typedef struct slot {
    char *name; /* without '$', NUL-terminated */
    size_t len;
    bind_value bound; /* payload pointing into the current copy's bytes */
} slot;

struct prepared {
    char *text;
    size_t len;
    parse_copy *cur;
    slot *slots; /* in the order of their first use in the text */
    size_t slot_count, slot_cap;
};

const char *bind_kind_name(bind_kind k) {
    switch (k) {
    case BIND_NONE: return "nothing";
    case BIND_ENTITY: return "Entity";
    case BIND_VAL: return "Val";
    case BIND_TX_COUNT: return "TxCount";
    case BIND_TIMESTAMP: return "Timestamp";
    case BIND_ANY_VALID_TIME: return "AnyValidTime";
    }
    return "nothing";
}

/* ---- parse copies ---------------------------------------------------------- */

static void copy_free(parse_copy *c) {
    if (!c)
        return;
    for (size_t i = 0; c->bytes && i < c->slot_count; i++)
        free(c->bytes[i]);
    free(c->bytes);
    free(c->caps);
    free(c->shape);
    query_keep_free(&c->keep);
    free(c->uses);
    arena_free(&c->a);
    free(c);
}

/* Ends a reference: the statement's, or a cursor's (its release). */
static void copy_release(void *holder) {
    parse_copy *c = holder;
    if (c && atomic_fetch_sub(&c->refs, 1) == 1)
        copy_free(c);
}

/* ---- finding the slots ------------------------------------------------------- */

static int out_of_memory(err *e) {
    return err_set(e, ERR(INT, 0), "out of memory");
}

/* The index of slot `name`, or slot_count. */
static size_t find_slot(const prepared *p, const char *name, size_t len) {
    for (size_t i = 0; i < p->slot_count; i++)
        if (p->slots[i].len == len && memcmp(p->slots[i].name, name, len) == 0)
            return i;
    return p->slot_count;
}

static int add_slot(prepared *p, const char *name, size_t len, size_t *index, err *e) {
    if (!array_reserve(&p->slots, &p->slot_cap, p->slot_count + 1, sizeof *p->slots, 4))
        return out_of_memory(e);
    char *copy = malloc(len + 1);
    if (!copy)
        return out_of_memory(e);
    memcpy(copy, name, len);
    copy[len] = '\0';
    p->slots[p->slot_count] = (slot){.name = copy, .len = len};
    *index = p->slot_count++;
    return 0;
}

static int add_use(prepared *p, parse_copy *c, slot_pos pos, term *t, err *e) {
    size_t s = find_slot(p, t->name, t->name_len);
    if (s == p->slot_count && add_slot(p, t->name, t->name_len, &s, e) != 0)
        return ERR(INT, 0);
    if (!array_reserve(&c->uses, &c->use_cap, c->use_count + 1, sizeof *c->uses, 4))
        return out_of_memory(e);
    c->uses[c->use_count++] =
        (slot_use){.slot = s, .pos = pos, .t = t, .name = t->name, .name_len = t->name_len};
    return 0;
}

typedef struct walk {
    prepared *p;
    parse_copy *c;
    err *e;
} walk;

static int walk_term(walk *w, term *t, slot_pos pos) {
    return t->kind == TERM_SLOT ? add_use(w->p, w->c, pos, t, w->e) : 0;
}

static int walk_expr(walk *w, ast_expr *x) {
    if (x->kind == EXPR_TERM)
        return walk_term(w, &x->arg, USE_EXPR);
    int rc = 0;
    for (size_t i = 0; i < x->argc && rc == 0; i++)
        rc = walk_expr(w, &x->args[i]);
    return rc;
}

static int walk_body(walk *w, ast_body *b);

static int walk_pattern(walk *w, ast_pattern *pt) {
    if (pt->a.kind == TERM_SLOT)
        return err_set(w->e, ERR(API, 15),
                       "bind slot '$%.*s' is not permitted in attribute position; the query "
                       "optimizer selects an index based on the attribute at prepare time and "
                       "cannot handle a parameterised attribute",
                       (int)pt->a.name_len, pt->a.name);
    int rc = walk_term(w, &pt->e, USE_ENTITY);
    return rc != 0 ? rc : walk_term(w, &pt->v, USE_VALUE);
}

static int walk_clause(walk *w, ast_clause *cl) {
    int rc = 0;
    switch (cl->kind) {
    case CL_PATTERN: return walk_pattern(w, &cl->as.pattern);
    case CL_EXPR: return walk_expr(w, &cl->as.expr.expr);
    case CL_INVOKE:
        for (size_t i = 0; i < cl->as.invoke.argc && rc == 0; i++)
            rc = walk_term(w, &cl->as.invoke.args[i], USE_RULE_ARG);
        return rc;
    case CL_NOT:
    case CL_NOT_JOIN: return walk_body(w, &cl->as.not_.body);
    case CL_OR:
    case CL_OR_JOIN:
        for (size_t i = 0; i < cl->as.or_.branch_count && rc == 0; i++)
            rc = walk_body(w, &cl->as.or_.branches[i]);
        return rc;
    }
    return 0;
}

static int walk_body(walk *w, ast_body *b) {
    int rc = 0;
    for (size_t i = 0; i < b->count && rc == 0; i++)
        rc = walk_clause(w, &b->items[i]);
    return rc;
}

/* Every slot use of `q`, in source order (:as-of and :valid-at first). */
static int walk_query(walk *w, ast_query *q) {
    int rc = 0;
    if (q->as_of == AS_OF_SLOT)
        rc = add_use(w->p, w->c, USE_AS_OF, &q->as_of_slot, w->e);
    if (rc == 0 && q->valid == VALID_SLOT)
        rc = add_use(w->p, w->c, USE_VALID_AT, &q->valid_slot, w->e);
    return rc != 0 ? rc : walk_body(w, &q->body);
}

static int refuse_command(command_kind k, err *e) {
    int n = k == CMD_TRANSACT ? 5 : k == CMD_RETRACT ? 6 : 7;
    return err_set(e, ERR(API, n), "only (query ...) commands can be prepared; got %s",
                   db_command_name(k));
}

/* A new parse of p's text with its slot uses (slots added to p as found). */
static int copy_new(prepared *p, parse_copy **out, err *e) {
    parse_copy *c = calloc(1, sizeof *c);
    if (!c)
        return out_of_memory(e);
    atomic_init(&c->refs, 1);
    arena_init(&c->a);
    query_keep_init(&c->keep);
    command *cmd = NULL;
    int rc = datalog_parse(p->text, p->len, &c->a, &cmd, e);
    if (rc == 0 && cmd->kind != CMD_QUERY)
        rc = refuse_command(cmd->kind, e);
    if (rc == 0) {
        c->q = &cmd->as.query;
        walk w = {p, c, e};
        rc = walk_query(&w, c->q);
    }
    c->slot_count = p->slot_count;
    c->keep.fixed = p->slot_count == 0; /* nothing bound can change its constants */
    if (rc == 0 && p->slot_count) {
        c->bytes = calloc(p->slot_count, sizeof *c->bytes);
        c->caps = calloc(p->slot_count, sizeof *c->caps);
        c->shape = calloc(p->slot_count, 2);
        if (!c->bytes || !c->caps || !c->shape)
            rc = out_of_memory(e);
    }
    if (rc != 0) {
        copy_free(c);
        return rc;
    }
    *out = c;
    return 0;
}

/* ---- writing bound values into a copy ---------------------------------------- */

static void write_use(const slot_use *u, const bind_value *b, ast_query *q) {
    switch (u->pos) {
    case USE_AS_OF:
        q->as_of = b->kind == BIND_TX_COUNT    ? AS_OF_COUNTER
                   : b->kind == BIND_TIMESTAMP ? AS_OF_TIME
                                               : AS_OF_SLOT;
        q->as_of_value = b->number;
        return;
    case USE_VALID_AT:
        q->valid = b->kind == BIND_TIMESTAMP        ? VALID_AT
                   : b->kind == BIND_ANY_VALID_TIME ? VALID_ANY
                                                    : VALID_SLOT;
        q->valid_at = b->number;
        return;
    default: break;
    }
    if (b->kind == BIND_NONE) {
        *u->t = (term){.kind = TERM_SLOT, .name = u->name, .name_len = u->name_len};
        return;
    }
    *u->t = (term){.kind = TERM_CONST, .constant = b->val};
}

static void write_slot(parse_copy *c, size_t s, const bind_value *b) {
    for (size_t i = 0; i < c->use_count; i++)
        if (c->uses[i].slot == s)
            write_use(&c->uses[i], b, c->q);
}

/* Copies a string / keyword payload into the copy's buffer for slot s. */
static int keep_payload(parse_copy *c, size_t s, bind_value *bv, err *e) {
    value *v = &bv->val;
    if (bv->kind != BIND_VAL || (v->type != VT_STRING && v->type != VT_KEYWORD))
        return 0;
    size_t len = v->as.str.len;
    if (c->caps[s] < len + 1) {
        char *b = realloc(c->bytes[s], len + 1);
        if (!b)
            return out_of_memory(e);
        c->bytes[s] = b;
        c->caps[s] = len + 1;
    }
    if (len)
        memmove(c->bytes[s], v->as.str.ptr, len);
    c->bytes[s][len] = '\0';
    v->as.str.ptr = c->bytes[s];
    return 0;
}

/* The statement's copy, made its own (not shared with a cursor) first:
 * a new parse carrying every binding. */
static int own_copy(prepared *p, err *e) {
    if (atomic_load(&p->cur->refs) == 1)
        return 0;
    parse_copy *c = NULL;
    int rc = copy_new(p, &c, e);
    for (size_t s = 0; rc == 0 && s < p->slot_count; s++) {
        bind_value b = p->slots[s].bound;
        rc = keep_payload(c, s, &b, e);
        if (rc == 0)
            write_slot(c, s, &b);
    }
    if (rc != 0) {
        copy_free(c);
        return rc;
    }
    /* the bindings' payloads now point into the new copy */
    for (size_t s = 0; s < p->slot_count; s++) {
        value *v = &p->slots[s].bound.val;
        if (p->slots[s].bound.kind == BIND_VAL && (v->type == VT_STRING || v->type == VT_KEYWORD))
            v->as.str.ptr = c->bytes[s];
    }
    copy_release(p->cur);
    p->cur = c;
    return 0;
}

/* ---- the public side ------------------------------------------------------------ */

int prepared_new(const char *text, size_t len, prepared **out, err *e) {
    prepared *p = calloc(1, sizeof *p);
    if (!p || !(p->text = malloc(len + 1))) {
        free(p);
        return out_of_memory(e);
    }
    memcpy(p->text, text, len);
    p->text[len] = '\0';
    p->len = len;
    int rc = copy_new(p, &p->cur, e);
    if (rc != 0) {
        prepared_free(p);
        return rc;
    }
    *out = p;
    return 0;
}

void prepared_free(prepared *p) {
    if (!p)
        return;
    copy_release(p->cur);
    for (size_t i = 0; i < p->slot_count; i++)
        free(p->slots[i].name);
    free(p->slots);
    free(p->text);
    free(p);
}

static bool accepts(slot_pos pos, bind_kind k) {
    switch (pos) {
    case USE_ENTITY: return k == BIND_ENTITY;
    case USE_VALUE:
    case USE_RULE_ARG:
    case USE_EXPR: return k == BIND_VAL;
    case USE_AS_OF: return k == BIND_TX_COUNT || k == BIND_TIMESTAMP;
    case USE_VALID_AT: return k == BIND_TIMESTAMP || k == BIND_ANY_VALID_TIME;
    }
    return false;
}

static const char *requirement(slot_pos pos) {
    switch (pos) {
    case USE_ENTITY: return "entity position requires Entity";
    case USE_VALUE:
    case USE_RULE_ARG: return "value position requires Val";
    case USE_EXPR: return "expression position requires Val";
    case USE_AS_OF: return ":as-of position requires TxCount or Timestamp";
    case USE_VALID_AT: return ":valid-at position requires Timestamp or AnyValidTime";
    }
    return "";
}

/* API-015 for the first use of slot s that does not take kind k. */
static int check_kind(const prepared *p, size_t s, bind_kind k, err *e) {
    const parse_copy *c = p->cur;
    for (size_t i = 0; i < c->use_count; i++)
        if (c->uses[i].slot == s && !accepts(c->uses[i].pos, k))
            return err_set(e, ERR(API, 15), "slot '$%s' in %s, got %s", p->slots[s].name,
                           requirement(c->uses[i].pos), bind_kind_name(k));
    return 0;
}

/* A keyword reads back as itself: the printed query (the rule cache's
 * key, parsed again) must mean what was bound. */
static int check_keyword(const value *v, err *e) {
    if (v->type != VT_KEYWORD)
        return 0;
    arena a;
    arena_init(&a);
    edn *d = NULL;
    err ignored = {0};
    bool ok = v->as.str.len >= 2 && v->as.str.ptr[0] == ':' &&
              edn_read(v->as.str.ptr, v->as.str.len, &a, &d, &ignored) == 0 &&
              d->kind == EDN_KEYWORD && d->as.text.len == v->as.str.len;
    err_clear(&ignored);
    arena_free(&a);
    return ok ? 0
              : err_set(e, ERR(API, 17), "invalid keyword bind value '%.*s': not a keyword literal",
                        (int)(v->as.str.len > 64 ? 64 : v->as.str.len), v->as.str.ptr);
}

/* A bound string has the limit of a string written in the text (language.md §2.4). */
static int check_string_length(const prepared *p, size_t s, const value *v, err *e) {
    if (v->type != VT_STRING || v->as.str.len <= LEX_MAX_STRING)
        return 0;
    return err_set(e, ERR(PRS, 7),
                   "String exceeds maximum length of %d bytes (bind value of slot '$%s')",
                   LEX_MAX_STRING, p->slots[s].name);
}

/* prepared_check's checks for slot s. */
static int check_slot(const prepared *p, size_t s, const bind_value *v, err *e) {
    if (v->kind == BIND_ENTITY && v->val.type != VT_REF)
        return err_set(e, ERR(INT, 0), "an Entity bind value must be a Ref");
    int rc = check_kind(p, s, v->kind, e);
    if (rc == 0 && v->kind == BIND_VAL)
        rc = check_string_length(p, s, &v->val, e);
    return rc == 0 && v->kind == BIND_VAL ? check_keyword(&v->val, e) : rc;
}

int prepared_check(const prepared *p, const char *name, size_t len, const bind_value *v, err *e) {
    size_t s = find_slot(p, name, len);
    /* language.md §13: extra bindings are ignored */
    return s == p->slot_count ? 0 : check_slot(p, s, v, e);
}

int prepared_bind(prepared *p, const char *name, size_t len, const bind_value *v, err *e) {
    size_t s = find_slot(p, name, len);
    if (s == p->slot_count)
        return 0;
    bind_value b = *v;
    int rc = check_slot(p, s, v, e);
    if (rc == 0)
        rc = own_copy(p, e);
    if (rc == 0)
        rc = keep_payload(p->cur, s, &b, e);
    if (rc != 0)
        return rc;
    p->slots[s].bound = b;
    write_slot(p->cur, s, &b);
    return 0;
}

int prepared_clear(prepared *p, err *e) {
    int rc = own_copy(p, e);
    if (rc != 0)
        return rc;
    for (size_t s = 0; s < p->slot_count; s++) {
        p->slots[s].bound = (bind_value){.kind = BIND_NONE};
        write_slot(p->cur, s, &p->slots[s].bound);
    }
    return 0;
}

static int check_bound(const prepared *p, err *e) {
    for (size_t s = 0; s < p->slot_count; s++)
        if (p->slots[s].bound.kind == BIND_NONE)
            return err_set(e, ERR(API, 15), "missing bind value for slot '$%s'", p->slots[s].name);
    return 0;
}

/* The kept plan was made for the slots' kinds and value types of its
 * run (a value's type can change the index a pattern reads, its kind
 * :valid-at's meaning); other ones plan again. When a run holds the kept
 * plan (a cursor still streams) this run goes without it. */
static void match_shape(const prepared *p, parse_copy *c) {
    bool same = c->shaped;
    for (size_t s = 0; s < p->slot_count && same; s++) {
        const bind_value *b = &p->slots[s].bound;
        same = c->shape[2 * s] == (uint8_t)b->kind &&
               c->shape[2 * s + 1] == (b->kind == BIND_VAL ? (uint8_t)b->val.type : 0);
    }
    if (same || !query_keep_take(&c->keep))
        return;
    query_keep_reset(&c->keep);
    for (size_t s = 0; s < p->slot_count; s++) {
        const bind_value *b = &p->slots[s].bound;
        c->shape[2 * s] = (uint8_t)b->kind;
        c->shape[2 * s + 1] = b->kind == BIND_VAL ? (uint8_t)b->val.type : 0;
    }
    c->shaped = true;
    query_keep_give(&c->keep);
}

int prepared_execute(prepared *p, db *d, result_set **out, err *e) {
    int rc = check_bound(p, e);
    if (rc != 0)
        return rc;
    match_shape(p, p->cur);
    return db_run_query(d, p->cur->q, &p->cur->keep, out, e);
}

int prepared_cursor(prepared *p, db *d, db_cursor **out, err *e) {
    int rc = check_bound(p, e);
    if (rc != 0)
        return rc;
    match_shape(p, p->cur);
    atomic_fetch_add(&p->cur->refs, 1);
    return db_cursor_open_query(d, p->cur->q, &p->cur->keep, copy_release, p->cur, out, e);
}
