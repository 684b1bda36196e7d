/* Terms of patterns, rule invocations and rule heads (language.md §8.3.1). */
#include <string.h>

#include "datalog/parse_internal.h"
#include "model/value.h"

bool parse_is_variable(const edn *d) {
    return d->kind == EDN_SYMBOL && d->as.text.len > 0 && d->as.text.ptr[0] == '?';
}

void parse_var_term(const edn *d, term *out) {
    memset(out, 0, sizeof *out);
    out->kind = TERM_VAR;
    out->name = d->as.text.ptr;
    out->name_len = d->as.text.len;
}

static bool parse_is_pseudo_attribute(const edn *d) {
    static const char *const names[] = {":db/valid-from", ":db/valid-to", ":db/tx-count",
                                        ":db/tx-id", ":db/valid-at"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (edn_is_keyword(d, names[i]))
            return true;
    return false;
}

/* `_` and `?_x` are wildcards; other ?names variables; plain symbols never match. */
static void parse_symbol_term(const edn *d, term *out) {
    const char *s = d->as.text.ptr;
    size_t n = d->as.text.len;
    if ((n == 1 && s[0] == '_') || (n >= 2 && s[0] == '?' && s[1] == '_')) {
        out->kind = TERM_WILDCARD;
        out->name = s;
        out->name_len = n;
    } else if (s[0] == '?') {
        parse_var_term(d, out);
    } else {
        out->kind = TERM_NEVER;
        out->datum = d;
    }
}

static void parse_const(term *out, value v) {
    out->kind = TERM_CONST;
    out->constant = v;
}

int parse_term(parse_ctx *c, const edn *d, parse_position pos, term *out) {
    memset(out, 0, sizeof *out);
    switch (d->kind) {
    case EDN_SYMBOL: parse_symbol_term(d, out); return 0;
    case EDN_KEYWORD:
        if ((pos == POS_ENTITY || pos == POS_VALUE) && parse_is_pseudo_attribute(d))
            return parse_fail(c, PARSE_SHAPE, d, "pseudo-attribute %s is not valid in %s position",
                              d->as.text.ptr, pos == POS_ENTITY ? "entity" : "value");
        parse_const(out, value_keyword(d->as.text.ptr, d->as.text.len));
        return 0;
    case EDN_UUID: parse_const(out, value_ref(d->as.uuid)); return 0;
    case EDN_STRING: parse_const(out, value_string(d->as.text.ptr, d->as.text.len)); return 0;
    case EDN_INTEGER: parse_const(out, value_integer(d->as.i)); return 0;
    case EDN_FLOAT: parse_const(out, value_float(d->as.f)); return 0;
    case EDN_BOOLEAN: parse_const(out, value_boolean(d->as.b)); return 0;
    case EDN_NIL: parse_const(out, value_null()); return 0;
    case EDN_SLOT:
        out->kind = TERM_SLOT;
        out->name = d->as.text.ptr;
        out->name_len = d->as.text.len;
        return 0;
    case EDN_LIST:
    case EDN_VECTOR:
    case EDN_MAP:
        out->kind = TERM_NEVER;
        out->datum = d;
        return 0;
    }
    return 0;
}
