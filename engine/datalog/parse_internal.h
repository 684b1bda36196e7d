/* Shared by the parse_*.c files; not for other modules. */
#ifndef MG_DATALOG_PARSE_INTERNAL_H
#define MG_DATALOG_PARSE_INTERNAL_H

#include <stddef.h>

#include "base/arena.h"
#include "base/error.h"
#include "datalog/ast.h"
#include "edn/edn.h"

/* Codes the spec leaves to us (docs/errors.md). */
#define PARSE_STRUCTURE ERR(PRS, 76) /* trailing arguments of a command */
#define PARSE_SHAPE ERR(PRS, 77)     /* query/command shape without a code */
#define PARSE_UNSUPPORTED ERR(INT, 0)
#define PARSE_OOM ERR(INT, 0)

/* Room for edn_describe output in messages. */
#define PARSE_DESCRIBE_CAP 160

typedef struct parse_ctx {
    arena *a;
    err *e;
} parse_ctx;

/* The command's arguments: the items after the command symbol. */
typedef struct parse_args {
    const edn *items;
    size_t count;
} parse_args;

int parse_transact(parse_ctx *c, parse_args args, ast_write *out);
int parse_retract(parse_ctx *c, parse_args args, ast_write *out);
int parse_query(parse_ctx *c, parse_args args, ast_query *out);
int parse_where_clause(parse_ctx *c, const edn *d, ast_pattern *out);
int parse_find_spec(parse_ctx *c, const edn *d, term *out);

/* "<construct> is not available in this version of minigraf" (INT-000). */
int parse_unsupported(parse_ctx *c, const char *construct);

/* Error for extra arguments after a command's last one. */
int parse_trailing(parse_ctx *c, const char *name, const edn *extra);

#endif
