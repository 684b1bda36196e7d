#include "datalog/print.h"

#include "edn/edn_print.h"
#include "model/timestamp.h"
#include <string.h>

static void print_name(const char *s, size_t len, buf *out) {
    buf_append(out, s, len);
}

static void print_value(const value *v, buf *out) {
    switch (v->type) {
    case VT_STRING: edn_print_string(v->as.str.ptr, v->as.str.len, out); break;
    case VT_KEYWORD: print_name(v->as.str.ptr, v->as.str.len, out); break;
    case VT_INTEGER: buf_printf(out, "%lld", (long long)v->as.i); break;
    case VT_FLOAT: edn_print_float(v->as.f, out); break;
    case VT_BOOLEAN: buf_puts(out, v->as.b ? "true" : "false"); break;
    case VT_REF: edn_print_uuid(&v->as.ref, out); break;
    case VT_NULL: buf_puts(out, "nil"); break;
    case VT_LIST: /* never in a query's text: collect-set results only */
        buf_putc(out, '[');
        for (size_t i = 0; i < v->as.list.count; i++) {
            if (i)
                buf_putc(out, ' ');
            print_value(&v->as.list.items[i], out);
        }
        buf_putc(out, ']');
        break;
    }
}

static void print_term(const term *t, buf *out) {
    switch (t->kind) {
    case TERM_VAR:
    case TERM_WILDCARD: print_name(t->name, t->name_len, out); break;
    case TERM_SLOT:
        buf_putc(out, '$');
        print_name(t->name, t->name_len, out);
        break;
    case TERM_CONST: print_value(&t->constant, out); break;
    case TERM_NEVER: edn_print(t->datum, out); break;
    }
}

static void print_terms(const term *ts, size_t n, buf *out) {
    for (size_t i = 0; i < n; i++) {
        buf_putc(out, ' ');
        print_term(&ts[i], out);
    }
}

static void print_time(int64_t ms, buf *out) {
    char text[TIMESTAMP_TEXT_CAP];
    timestamp_format(ms, text);
    edn_print_string(text, strlen(text), out);
}

/* ---- where clauses ----------------------------------------------------------- */

static void print_expr(const ast_expr *x, buf *out) {
    if (x->kind == EXPR_TERM) {
        print_term(&x->arg, out);
        return;
    }
    buf_putc(out, '(');
    print_name(x->name, x->name_len, out);
    for (size_t i = 0; i < x->argc; i++) {
        buf_putc(out, ' ');
        print_expr(&x->args[i], out);
    }
    buf_putc(out, ')');
}

static void print_body(const ast_body *b, buf *out);
static void print_clause(const ast_clause *cl, buf *out);

static void print_join_vars(const term *vars, size_t n, buf *out) {
    buf_puts(out, " [");
    for (size_t i = 0; i < n; i++) {
        if (i)
            buf_putc(out, ' ');
        print_term(&vars[i], out);
    }
    buf_putc(out, ']');
}

static void print_branches(const ast_body *branches, size_t n, buf *out) {
    for (size_t i = 0; i < n; i++) {
        buf_putc(out, ' ');
        if (branches[i].count == 1) {
            print_clause(&branches[i].items[0], out);
            continue;
        }
        buf_puts(out, "(and");
        print_body(&branches[i], out);
        buf_putc(out, ')');
    }
}

static void print_clause(const ast_clause *cl, buf *out) {
    switch (cl->kind) {
    case CL_PATTERN:
        buf_putc(out, '[');
        print_term(&cl->as.pattern.e, out);
        print_terms(&cl->as.pattern.a, 1, out);
        print_terms(&cl->as.pattern.v, 1, out);
        buf_putc(out, ']');
        return;
    case CL_EXPR:
        buf_putc(out, '[');
        print_expr(&cl->as.expr.expr, out);
        if (cl->as.expr.has_out)
            print_terms(&cl->as.expr.out, 1, out);
        buf_putc(out, ']');
        return;
    case CL_NOT:
    case CL_NOT_JOIN:
        buf_puts(out, cl->kind == CL_NOT ? "(not" : "(not-join");
        if (cl->kind == CL_NOT_JOIN)
            print_join_vars(cl->as.not_.vars, cl->as.not_.var_count, out);
        print_body(&cl->as.not_.body, out);
        break;
    case CL_OR:
    case CL_OR_JOIN:
        buf_puts(out, cl->kind == CL_OR ? "(or" : "(or-join");
        if (cl->kind == CL_OR_JOIN)
            print_join_vars(cl->as.or_.vars, cl->as.or_.var_count, out);
        print_branches(cl->as.or_.branches, cl->as.or_.branch_count, out);
        break;
    case CL_INVOKE:
        buf_putc(out, '(');
        print_name(cl->as.invoke.name, cl->as.invoke.name_len, out);
        print_terms(cl->as.invoke.args, cl->as.invoke.argc, out);
        break;
    }
    buf_putc(out, ')');
}

/* Each clause preceded by a space. */
static void print_body(const ast_body *b, buf *out) {
    for (size_t i = 0; i < b->count; i++) {
        buf_putc(out, ' ');
        print_clause(&b->items[i], out);
    }
}

/* ---- queries ------------------------------------------------------------------- */

static void print_find(const ast_find *f, buf *out) {
    if (f->kind == FIND_VAR) {
        print_term(&f->var, out);
        return;
    }
    buf_putc(out, '(');
    print_name(f->fn, f->fn_len, out);
    if (f->has_var)
        print_terms(&f->var, 1, out);
    if (f->kind == FIND_WINDOW) {
        buf_puts(out, " :over (");
        if (f->has_partition) {
            buf_puts(out, ":partition-by ");
            print_term(&f->partition_by, out);
            buf_putc(out, ' ');
        }
        buf_puts(out, ":order-by ");
        print_term(&f->order_by, out);
        if (f->desc)
            buf_puts(out, " :desc");
        buf_putc(out, ')');
    }
    buf_putc(out, ')');
}

static void print_time_sections(const ast_query *q, buf *out) {
    if (q->as_of == AS_OF_COUNTER)
        buf_printf(out, " :as-of %lld", (long long)q->as_of_value);
    else if (q->as_of == AS_OF_TIME)
        buf_puts(out, " :as-of "), print_time(q->as_of_value, out);
    else if (q->as_of == AS_OF_SLOT)
        buf_puts(out, " :as-of"), print_terms(&q->as_of_slot, 1, out);
    if (q->valid == VALID_AT)
        buf_puts(out, " :valid-at "), print_time(q->valid_at, out);
    else if (q->valid == VALID_ANY)
        buf_puts(out, " :any-valid-time");
    else if (q->valid == VALID_SLOT)
        buf_puts(out, " :valid-at"), print_terms(&q->valid_slot, 1, out);
}

static void print_limit_sections(const ast_query *q, buf *out) {
    if (q->has_max_derived_facts)
        buf_printf(out, " :max-derived-facts %lld", (long long)q->max_derived_facts);
    if (q->has_max_results)
        buf_printf(out, " :max-results %lld", (long long)q->max_results);
    if (q->order_count) {
        buf_puts(out, " :order-by [");
        for (size_t i = 0; i < q->order_count; i++) {
            if (i)
                buf_putc(out, ' ');
            print_term(&q->order_by[i].var, out);
            buf_puts(out, q->order_by[i].desc ? " :desc" : " :asc");
        }
        buf_putc(out, ']');
    }
    if (q->has_limit)
        buf_printf(out, " :limit %lld", (long long)q->limit);
    if (q->has_offset)
        buf_printf(out, " :offset %lld", (long long)q->offset);
}

static void print_query(const ast_query *q, buf *out) {
    buf_puts(out, "(query [");
    size_t start = out->len;
    if (q->spec_count) {
        buf_puts(out, ":find");
        for (size_t i = 0; i < q->spec_count; i++) {
            buf_putc(out, ' ');
            print_find(&q->specs[i], out);
        }
    }
    if (q->with_count)
        buf_puts(out, " :with"), print_terms(q->with, q->with_count, out);
    if (q->body.count)
        buf_puts(out, " :where"), print_body(&q->body, out);
    print_time_sections(q, out);
    print_limit_sections(q, out);
    if (out->data && out->len > start &&
        out->data[start] == ' ') /* no :find: drop the leading space */
        memmove(out->data + start, out->data + start + 1, out->len-- - start);
    buf_puts(out, "])");
}

/* ---- writes and rules -------------------------------------------------------------- */

static void print_window(bool has_from, int64_t from, bool has_to, int64_t to, buf *out) {
    if (!has_from && !has_to)
        return;
    buf_puts(out, " {");
    if (has_from)
        buf_puts(out, ":valid-from "), print_time(from, out);
    if (has_from && has_to)
        buf_putc(out, ' ');
    if (has_to)
        buf_puts(out, ":valid-to "), print_time(to, out);
    buf_putc(out, '}');
}

static void print_write(const command *cmd, buf *out) {
    const ast_write *w = &cmd->as.write;
    buf_puts(out, cmd->kind == CMD_TRANSACT ? "(transact" : "(retract");
    print_window(w->has_valid_from, w->valid_from, w->has_valid_to, w->valid_to, out);
    buf_puts(out, " [");
    for (size_t i = 0; i < w->count; i++) {
        const ast_fact *f = &w->facts[i];
        buf_puts(out, i ? " [" : "[");
        edn_print(f->e, out);
        buf_putc(out, ' ');
        edn_print(f->a, out);
        buf_putc(out, ' ');
        edn_print(f->v, out);
        print_window(f->has_valid_from, f->valid_from, f->has_valid_to, f->valid_to, out);
        buf_putc(out, ']');
    }
    buf_puts(out, "])");
}

static void print_rule(const ast_rule *r, buf *out) {
    buf_puts(out, "(rule [(");
    print_name(r->name, r->name_len, out);
    print_terms(r->args, r->argc, out);
    buf_putc(out, ')');
    print_body(&r->body, out);
    buf_puts(out, "])");
}

void datalog_print(const command *cmd, buf *out) {
    switch (cmd->kind) {
    case CMD_TRANSACT:
    case CMD_RETRACT: print_write(cmd, out); break;
    case CMD_QUERY: print_query(&cmd->as.query, out); break;
    case CMD_RULE: print_rule(&cmd->as.rule, out); break;
    }
}

void datalog_print_clause(const ast_clause *cl, buf *out) {
    print_clause(cl, out);
}
