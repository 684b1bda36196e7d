/* Shared by the parse_*.c files; not for other modules. */
#ifndef MG_DATALOG_PARSE_INTERNAL_H
#define MG_DATALOG_PARSE_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/error.h"
#include "datalog/ast.h"
#include "edn/edn.h"

/* Codes the spec leaves to us (docs/errors.md). */
#define PARSE_STRUCTURE ERR(PRS, 76) /* trailing arguments, depth */
#define PARSE_SHAPE ERR(PRS, 77)     /* query/command shape without a code */
#define PARSE_REGEX ERR(PRS, 78)     /* invalid matches? pattern */
#define PARSE_LIMITS ERR(PRS, 79)    /* :order-by / :limit / :offset */
#define PARSE_UNBOUND ERR(INT, 18)   /* the variable-not-bound safety family (language.md §17) */
#define PARSE_OOM ERR(INT, 0)

/* Nesting of clauses and expressions (the reader already stops at 100). */
#define PARSE_MAX_DEPTH 100

/* Room for edn_describe output in messages. */
#define PARSE_DESCRIBE_CAP 160

typedef struct parse_ctx {
    arena *a;
    err *e;
    int depth;
} parse_ctx;

/* The command's arguments: the items after the command symbol. */
typedef struct parse_args {
    const edn *items;
    size_t count;
} parse_args;

int parse_transact(parse_ctx *c, parse_args args, ast_write *out);
int parse_retract(parse_ctx *c, parse_args args, ast_write *out);
int parse_query(parse_ctx *c, parse_args args, ast_query *out);
int parse_rule(parse_ctx *c, parse_args args, ast_rule *out);

/* :find specs (parse_find.c). */
int parse_find_spec(parse_ctx *c, const edn *d, ast_find *out);

/* :where clauses and conjunctions (parse_where.c); `in_not` is set inside
 * a not / not-join body. */
int parse_clause(parse_ctx *c, const edn *d, bool in_not, ast_clause *out);
int parse_body(parse_ctx *c, const edn *items, size_t count, bool in_not, ast_body *out);

/* [(expr) ?out?] (parse_expr.c). */
int parse_expr_clause(parse_ctx *c, const edn *d, ast_expr_clause *out);

/* Terms (parse_term.c). */
typedef enum parse_position { POS_ENTITY, POS_ATTRIBUTE, POS_VALUE, POS_ARG } parse_position;
bool parse_is_variable(const edn *d);
int parse_term(parse_ctx *c, const edn *d, parse_position pos, term *out);
void parse_var_term(const edn *d, term *out); /* d is a variable */

/* Safety checks of language.md §8.10.2 and §9.1 (parse_check.c). */
int parse_check_query(parse_ctx *c, const ast_query *q);
int parse_check_rule(parse_ctx *c, const ast_rule *r);

/* Records `code` with the formatted message, then " (at line L, column C)"
 * of `at` when it is not NULL. */
int parse_fail(parse_ctx *c, int code, const edn *at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The same with the place as numbers (`at` NULL: none) and the arguments
 * as a va_list, for errors found after reading (parse_check.c). */
int parse_fail_va(parse_ctx *c, int code, const uint32_t at[2], const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));
/* "<text><description of d> (at line L, column C)". */
int parse_fail_got(parse_ctx *c, int code, const char *text, const edn *d);
int parse_oom(parse_ctx *c);

/* Error for extra arguments after a command's last one. */
int parse_trailing(parse_ctx *c, const char *name, const edn *extra);

/* Arena arrays of `count` zeroed elements (count 0 gives a valid pointer). */
void *parse_array(parse_ctx *c, size_t count, size_t size);

#endif
