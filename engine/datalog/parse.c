/* datalog_parse: EDN text → one command (language.md §3). The command bodies are
 * parsed in parse_write.c, parse_query.c and parse_rule.c. */
#include "datalog/parse.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "datalog/parse_internal.h"

int parse_fail_va(parse_ctx *c, int code, const uint32_t at[2], const char *fmt, va_list ap) {
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (!at)
        return err_set(c->e, code, "%s", msg);
    return err_set(c->e, code, "%s (at line %u, column %u)", msg, (unsigned)at[0], (unsigned)at[1]);
}

int parse_fail(parse_ctx *c, int code, const edn *at, const char *fmt, ...) {
    const uint32_t place[2] = {at ? at->line : 0, at ? at->column : 0};
    va_list ap;
    va_start(ap, fmt);
    int rc = parse_fail_va(c, code, at ? place : NULL, fmt, ap);
    va_end(ap);
    return rc;
}

int parse_fail_got(parse_ctx *c, int code, const char *text, const edn *d) {
    char what[PARSE_DESCRIBE_CAP];
    edn_describe(d, what, sizeof what);
    return parse_fail(c, code, d, "%s%s", text, what);
}

int parse_oom(parse_ctx *c) {
    return err_set(c->e, PARSE_OOM, "Out of memory");
}

void *parse_array(parse_ctx *c, size_t count, size_t size) {
    return arena_calloc(c->a, count ? count : 1, size);
}

int parse_trailing(parse_ctx *c, const char *name, const edn *extra) {
    char what[PARSE_DESCRIBE_CAP];
    edn_describe(extra, what, sizeof what);
    return parse_fail(c, PARSE_STRUCTURE, extra, "Unexpected trailing argument(s) in (%s ...): %s",
                      name, what);
}

static int parse_command(parse_ctx *c, const edn *root, command *cmd) {
    if (root->kind != EDN_LIST || root->as.seq.count == 0)
        return parse_fail(c, ERR(PRS, 12), root, "Expected a list starting with a command symbol");
    const edn *head = &root->as.seq.items[0];
    if (head->kind == EDN_KEYWORD)
        return err_set(c->e, ERR(PRS, 11), "Unknown command: %s", head->as.text.ptr);
    if (head->kind != EDN_SYMBOL)
        return parse_fail(c, ERR(PRS, 10), head, "Expected command symbol");
    parse_args args = {root->as.seq.items + 1, root->as.seq.count - 1};
    if (edn_is_symbol(head, "transact")) {
        cmd->kind = CMD_TRANSACT;
        return parse_transact(c, args, &cmd->as.write);
    }
    if (edn_is_symbol(head, "retract")) {
        cmd->kind = CMD_RETRACT;
        return parse_retract(c, args, &cmd->as.write);
    }
    if (edn_is_symbol(head, "query")) {
        cmd->kind = CMD_QUERY;
        return parse_query(c, args, &cmd->as.query);
    }
    if (edn_is_symbol(head, "rule")) {
        cmd->kind = CMD_RULE;
        return parse_rule(c, args, &cmd->as.rule);
    }
    /* No position: language.md §18 quotes this message verbatim. */
    return err_set(c->e, ERR(PRS, 11), "Unknown command: %s", head->as.text.ptr);
}

int datalog_parse(const char *text, size_t len, arena *a, command **out, err *e) {
    parse_ctx c = {a, e, 0};
    edn *root;
    int rc = edn_read(text, len, a, &root, e);
    if (rc)
        return rc;
    command *cmd = arena_calloc(a, 1, sizeof *cmd);
    if (!cmd)
        return parse_oom(&c);
    rc = parse_command(&c, root, cmd);
    if (rc)
        return rc;
    *out = cmd;
    return 0;
}

static size_t skip_blanks(const char *text, size_t len, size_t at) {
    while (at < len && memchr(" \t\n\r,", text[at], 5))
        at++;
    return at;
}

static bool opens_with(const char *text, size_t len, size_t at, const char *word) {
    size_t n = strlen(word);
    return len - at >= n && memcmp(text + at, word, n) == 0;
}

bool datalog_looks_like_write(const char *text, size_t len) {
    size_t at = skip_blanks(text, len, 0);
    if (at == len || text[at] != '(')
        return false;
    at = skip_blanks(text, len, at + 1);
    return opens_with(text, len, at, "transact") || opens_with(text, len, at, "retract");
}
