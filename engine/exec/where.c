/* The solution stream of a query's :where (see where.h). */
#include "exec/where.h"

#include <stdlib.h>

#include "base/arena.h"
#include "exec/op.h"
#include "exec/rule_eval.h"
#include "host/host_fns.h"
#include "plan/conj.h"
#include "plan/value_order.h"

typedef struct where_stream {
    solution_stream base;
    arena mem; /* the plan and the exported row */
    where_ctx x;
    const value_source *src; /* of x.r */
    rule_eval rules;         /* when the query invokes rules */
    const plan_conj *top;
    op_sub pipe;
    bool started; /* the first batch has been asked for */
    solution_var *vars;
    int *slot_of; /* per exported variable: its first slot (language.md D12), set at the end */
    value *rows;  /* EXPORT_COPY: BATCH_ROWS rows of var_count values */
    bool *bound;  /* all true */
    bool *decode; /* per exported variable: !stored_ok, fixed at the first row */
    enum { EXPORT_UNSET, EXPORT_COPY, EXPORT_SLOTS } export;
    size_t first_slot;      /* EXPORT_SLOTS: the slot of the first exported variable */
    bool collapse_chosen;   /* choose_collapse ran (at the first row) */
    bool kept;              /* where_keep: close parks instead of freeing */
    bool ended;             /* the pipeline gave its last batch: no scan is open */
    uint64_t planned_facts; /* the store's facts when the plan was made */
} where_stream;

/* How rows leave, fixed at the first (the consumer has set stored_ok):
 * the batch's rows when consecutive slots from `first_slot` hold the
 * exported variables in order and none must be decoded, else a copy of
 * the batch. */
static int choose_export(where_stream *w, err *e) {
    solution_stream *s = &w->base;
    bool slots = true;
    w->first_slot = s->var_count ? (size_t)w->slot_of[0] : 0;
    for (size_t i = 0; i < s->var_count; i++) {
        w->decode[i] = !s->stored_ok[i];
        slots = slots && !w->decode[i] && w->slot_of[i] == (int)(w->first_slot + i);
    }
    w->export = slots ? EXPORT_SLOTS : EXPORT_COPY;
    if (!slots &&
        !(w->rows = arena_alloc(&w->mem, BATCH_ROWS * (s->var_count + 1) * sizeof *w->rows)))
        return err_set(e, ERR(INT, 0), "out of memory");
    return 0;
}

/* Whether the consumer reads the value of the exported variable held in
 * slot `s` (an unexported slot counts as read). */
static bool slot_read(const where_stream *w, int s) {
    for (size_t i = 0; i < w->base.var_count; i++)
        if (w->slot_of[i] == s)
            return !w->base.presence_only[i];
    return true;
}

/* A :where of one stored pattern, read by a consumer of weighted
 * solutions, hands out a row per run of records that agree on what the
 * consumer reads (where_ctx.collapsed): a count reads no row per record.
 * Only entities and attributes never are Null. */
static int choose_collapse(where_stream *w, err *e) {
    const plan_item *it = &w->top->items[0];
    if (!w->base.weights_ok || w->top->item_count != 1 || it->kind != PK_PATTERN ||
        it->access.join != PLAN_JOIN_NESTED_LOOP || w->x.derived || w->x.tables || w->x.ordered)
        return 0;
    unsigned read = 0, null = 0;
    for (int pos = 0; pos < 3; pos++) {
        if (it->slot[pos] < 0)
            continue;
        if (slot_read(w, it->slot[pos]))
            read |= 1u << pos;
        else if (pos == 2)
            null |= 1u << pos;
    }
    if (!(w->x.weight = arena_alloc(&w->mem, BATCH_ROWS * sizeof *w->x.weight)))
        return err_set(e, ERR(INT, 0), "out of memory");
    w->x.collapse_read = read;
    w->x.collapse_null = null;
    w->x.collapse_any_order = w->base.any_order;
    w->x.collapsed = it;
    return 0;
}

/* The next batch of the pipeline: the first no larger than the rows the
 * consumer wants (a :limit), so it reads no further than it must. */
static int next_batch(where_stream *w, batch **b, err *e) {
    size_t max = BATCH_ROWS;
    if (!w->started && w->base.rows_wanted && w->base.rows_wanted < max)
        max = w->base.rows_wanted;
    w->started = true;
    int rc = op_next(w->pipe.root, max, b, e);
    /* rows from a scan that went on out of order are in this batch */
    if (w->x.order_lost)
        w->base.ordered = false;
    w->ended = rc == 0;
    /* A stored value that failed to decode inside a comparison. */
    if ((rc == 0 || rc == 1) && w->src->failed)
        return store_reader_check(w->x.r, e);
    return rc;
}

/* The exported variables of every row of `b`, decoded as asked. */
static int copy_rows(where_stream *w, const batch *b, err *e) {
    size_t n = w->base.var_count, width = b->p->slot_count;
    for (size_t r = 0; r < b->count; r++) {
        const value *slots = b->slot + r * width;
        value *row = w->rows + r * n;
        for (size_t i = 0; i < n; i++) {
            row[i] = slots[w->slot_of[i]];
            int rc = w->decode[i] ? value_resolve(&row[i], e) : 0;
            if (rc != 0)
                return rc;
        }
    }
    return 0;
}

static int where_next(solution_stream *s, solution_block *out, err *e) {
    where_stream *w = (where_stream *)s;
    batch *b;
    int rc = 0;
    if (!w->collapse_chosen && (rc = choose_collapse(w, e)) != 0)
        return rc;
    w->collapse_chosen = true;
    rc = next_batch(w, &b, e);
    if (rc != 1)
        return rc;
    if (w->export == EXPORT_UNSET && (rc = choose_export(w, e)) != 0)
        return rc;
    *out = (solution_block){.rows = b->slot + w->first_slot,
                            .count = b->count,
                            .stride = b->p->slot_count,
                            .bound = w->bound,
                            .weight = w->x.collapsed ? w->x.weight : NULL};
    if (w->export == EXPORT_SLOTS)
        return 1;
    out->rows = w->rows;
    out->stride = s->var_count;
    rc = copy_rows(w, b, e);
    return rc == 0 ? 1 : rc;
}

static void where_park(where_stream *w);

static void where_close(solution_stream *s) {
    where_stream *w = (where_stream *)s;
    if (!w)
        return;
    if (w->kept) {
        where_park(w);
        return;
    }
    op_sub_free(&w->pipe);
    rule_eval_end(&w->rules);
    if (w->x.r)
        store_reader_close(w->x.r);
    arena_free(&w->mem);
    free(w);
}

/* Every variable some top-level clause holds (arrays in the plan's arena).
 * Each is bound at the end of the pipeline, by its first slot. */
static int export_vars(where_stream *w, err *e) {
    const plan_conj *p = w->top;
    w->vars = arena_calloc(&w->mem, p->var_count + 1, sizeof *w->vars);
    w->slot_of = arena_calloc(&w->mem, p->var_count + 1, sizeof *w->slot_of);
    w->bound = arena_calloc(&w->mem, 4 * (p->var_count + 1), sizeof *w->bound);
    if (!w->vars || !w->slot_of || !w->bound)
        return err_set(e, ERR(INT, 0), "out of memory");
    w->base.stored_ok = w->bound + p->var_count + 1;
    w->decode = w->base.stored_ok + p->var_count + 1;
    w->base.presence_only = w->decode + p->var_count + 1;
    size_t n = 0;
    for (size_t v = 0; v < p->var_count; v++) {
        if (p->vars[v].slot_count == 0)
            continue;
        w->vars[n] = (solution_var){.name = p->vars[v].name, .len = p->vars[v].len};
        w->bound[n] = true;
        w->slot_of[n++] = p->vars[v].slots[0];
    }
    w->base.vars = w->vars;
    w->base.var_count = n;
    return 0;
}

static value valid_at_value(const ast_query *q, int64_t now_ms) {
    if (q->valid == VALID_ANY)
        return value_null();
    return value_integer(q->valid == VALID_AT ? q->valid_at : now_ms);
}

/* The reader's decoded texts count against the query's meter. */
static int charge_texts(void *m, size_t bytes, err *e) {
    return meter_charge(m, bytes, "scan", e);
}

static void release_texts(void *m, size_t bytes) {
    meter_release(m, bytes);
}

/* Reads the first step in the first :order-by key's order when the plan
 * allows it and the key's values are all of one type whose AVET order is
 * the language.md D3 order (integers, booleans, nulls: texts and refs lie in
 * dictionary order, integers before floats that language.md D3 interleaves). */
static int choose_value_order(where_stream *w, const ast_query *q, err *e) {
    plan_value_order vo;
    if (w->x.derived || !plan_value_order_find(q, w->top, &vo))
        return 0;
    store_bound b = {0};
    int rc = store_bound_attribute(w->x.r, &vo.item->pc.pattern->a.constant, &b, e);
    if (rc != 1 || !b.has_a)
        return rc > 1 ? rc : 0;
    int lo, hi;
    rc = store_value_types(w->x.r, b.ids.a, &lo, &hi, e);
    if (rc != 1 || lo != hi || (lo != VT_INTEGER && lo != VT_BOOLEAN && lo != VT_NULL))
        return rc > 1 ? rc : 0;
    size_t n = 0;
    while (n < w->base.var_count && w->slot_of[n] != w->top->vars[vo.var].slots[0])
        n++;
    if (n == w->base.var_count)
        return 0;
    w->x.ordered = vo.item;
    w->x.ordered_desc = vo.desc;
    w->base.ordered = true;
    w->base.order_var = n;
    w->base.order_desc = vo.desc;
    return 0;
}

/* The reader's decoded texts and memos count against the query's meter. */
static void set_budget(where_stream *w) {
    store_reader_set_budget(
        w->x.r, &(store_budget){charge_texts, release_texts, w->x.m, w->x.m ? w->x.m->limit : 0});
}

/* A commit is valid from its tx_id on and visible to every later query
 * (language.md §7.3): a `now` read before the snapshot was taken, while
 * a commit landed, or from a clock that stepped back, must not hide what
 * the snapshot holds. */
static int64_t snapshot_now(const store_reader *r, int64_t now_ms) {
    int64_t newest = store_reader_newest_tx_id(r);
    return now_ms < newest ? newest : now_ms;
}

static int where_build(where_stream *w, store *s, const ast_query *q, int64_t now_ms,
                       query_rules *rules, err *e) {
    int rc = store_reader_open(s, &w->x.r, e);
    if (rc != 0)
        return rc;
    set_budget(w);
    w->src = store_reader_source(w->x.r);
    now_ms = snapshot_now(w->x.r, now_ms);
    visibility_init(&w->x.vis, q, now_ms);
    w->x.valid_at = valid_at_value(q, now_ms);
    /* Rules first (language.md §8.13 last paragraph), over the same visible
     * records the query reads. */
    if (rules && rules->registry && rule_eval_needed(q))
        rc = rule_eval_run(&w->rules, rules, &w->x, q, e);
    if (rc != 0)
        return rc;
    plan_query pq;
    plan_hint hint = rule_eval_hint(&w->x);
    /* Range estimates, shared by the sub-conjunctions (not zeroed: only
     * `used` is read before it is written). */
    hint.counts = arena_alloc(&w->mem, sizeof *hint.counts);
    if (!hint.counts)
        return err_set(e, ERR(INT, 0), "out of memory");
    hint.counts->used = 0;
    w->planned_facts = store_reader_fact_count(w->x.r);
    rc = plan_compile_query(q, w->x.r, &hint, &w->mem, &pq, e);
    if (rc != 0)
        return rc;
    w->top = pq.top;
    rc = export_vars(w, e);
    if (rc == 0)
        rc = choose_value_order(w, q, e);
    w->x.once = pq.top;
    if (rc == 0)
        rc = op_sub_init(&w->x, &w->pipe, pq.top, e);
    return rc == 0 ? op_open(w->pipe.root, e) : rc;
}

int where_open(store *s, const ast_query *q, int64_t now_ms, meter *m, query_rules *rules,
               solution_stream **out, err *e) {
    where_stream *w = malloc(sizeof *w);
    if (!w)
        return err_set(e, ERR(INT, 0), "out of memory");
    /* malloc and assign, not calloc: glibc's calloc skips its thread cache */
    *w = (where_stream){0};
    arena_init(&w->mem);
    w->base.next = where_next;
    w->base.close = where_close;
    w->x.m = m;
    w->x.host = rules ? rules->host : NULL;
    int rc = where_build(w, s, q, now_ms, rules, e);
    if (rc != 0) {
        where_close(&w->base);
        return rc;
    }
    *out = &w->base;
    return 0;
}

/* ---- a :where kept for the next run of the same parse (where.h) ------- */

/* The operators a re-open restarts in full: nested-loop patterns, which
 * seek with the constants the AST holds at each open, and filters, which
 * read them per row. Pseudo-attribute patterns only when `fixed`, the
 * query's constants never changing (language.md D16 pairs them by equal
 * entity constants, which new values could change). Not kept: hash joins
 * (their table would stay in memory between runs), sub-conjunctions
 * (their scans stay open after an early stop). */
static bool item_keepable(const plan_item *it, bool fixed) {
    bool pattern = it->kind == PK_PATTERN || (fixed && it->kind == PK_PSEUDO);
    return (pattern && it->access.join == PLAN_JOIN_NESTED_LOOP) || it->kind == PK_EXPR;
}

bool where_keep(solution_stream *s, const ast_query *q, bool fixed) {
    where_stream *w = (where_stream *)s;
    /* Rules are evaluated per run; host predicates are resolved when the
     * operators are built, and may be replaced or dropped later. */
    if (rule_eval_needed(q) || host_scope_calls(w->x.host))
        return false;
    for (size_t i = 0; i < w->top->item_count; i++)
        if (!item_keepable(&w->top->items[i], fixed))
            return false;
    w->kept = true;
    return true;
}

/* Between runs: no scan open, no snapshot held. Restarting the pipeline
 * closes every scan an early stop left open (while their reader lives). */
static void where_park(where_stream *w) {
    err ignored = {0};
    if (w->pipe.root && !w->ended)
        op_open(w->pipe.root, &ignored);
    err_clear(&ignored);
    store_reader_close(w->x.r);
    w->x.r = NULL;
}

void where_free(solution_stream *s) {
    where_stream *w = (where_stream *)s;
    if (!w)
        return;
    w->kept = false;
    where_close(s);
}

/* The join order was chosen for the store's size when planned: far from
 * it, another order may be much cheaper (never another answer). */
static bool plan_stale(uint64_t planned, uint64_t now) {
    uint64_t lo = planned < now ? planned : now, hi = planned < now ? now : planned;
    return hi > 2 * lo + 64;
}

int where_rerun(solution_stream *s, store *st, const ast_query *q, int64_t now_ms,
                struct host_scope *host, err *e) {
    where_stream *w = (where_stream *)s;
    int rc = store_reader_open(st, &w->x.r, e);
    if (rc != 0)
        return rc;
    set_budget(w);
    w->src = store_reader_source(w->x.r);
    if (plan_stale(w->planned_facts, store_reader_fact_count(w->x.r))) {
        store_reader_close(w->x.r);
        w->x.r = NULL;
        return 1;
    }
    now_ms = snapshot_now(w->x.r, now_ms);
    visibility_init(&w->x.vis, q, now_ms);
    w->x.valid_at = valid_at_value(q, now_ms);
    w->x.host = host;
    w->started = w->ended = false;
    w->base.rows_wanted = 0;
    return op_open(w->pipe.root, e);
}
