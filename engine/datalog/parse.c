/* datalog_parse: EDN text → one command (spec 3). The command bodies are
 * parsed in parse_write.c and parse_query.c. */
#include "datalog/parse.h"

#include <string.h>

#include "datalog/parse_internal.h"

int parse_unsupported(parse_ctx *c, const char *construct) {
    return err_set(c->e, PARSE_UNSUPPORTED, "%s is not available in this version of minigraf",
                   construct);
}

int parse_trailing(parse_ctx *c, const char *name, const edn *extra) {
    char what[PARSE_DESCRIBE_CAP];
    edn_describe(extra, what, sizeof what);
    return err_set(c->e, PARSE_STRUCTURE,
                   "Unexpected trailing argument(s) in (%s ...): %s (at line %u, column %u)",
                   name, what, (unsigned)extra->line, (unsigned)extra->column);
}

static int parse_command(parse_ctx *c, const edn *root, command *cmd) {
    if (root->kind != EDN_LIST || root->as.seq.count == 0)
        return err_set(c->e, ERR(PRS, 12), "Expected a list starting with a command symbol");
    const edn *head = &root->as.seq.items[0];
    if (head->kind == EDN_KEYWORD)
        return err_set(c->e, ERR(PRS, 11), "Unknown command: %s", head->as.text.ptr);
    if (head->kind != EDN_SYMBOL)
        return err_set(c->e, ERR(PRS, 10), "Expected command symbol");
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
    if (edn_is_symbol(head, "rule"))
        return parse_unsupported(c, "(rule ...)");
    return err_set(c->e, ERR(PRS, 11), "Unknown command: %s", head->as.text.ptr);
}

int datalog_parse(const char *text, size_t len, arena *a, command **out, err *e) {
    parse_ctx c = {a, e};
    edn *root;
    int rc = edn_read(text, len, a, &root, e);
    if (rc)
        return rc;
    command *cmd = arena_calloc(a, 1, sizeof *cmd);
    if (!cmd)
        return err_set(e, PARSE_OOM, "Out of memory");
    rc = parse_command(&c, root, cmd);
    if (rc)
        return rc;
    *out = cmd;
    return 0;
}
