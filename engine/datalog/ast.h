/* The abstract syntax of commands (language.md §3-§9). Produced by datalog_parse,
 * consumed by the executor. Everything lives in the parse arena. */
#ifndef MG_DATALOG_AST_H
#define MG_DATALOG_AST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "edn/edn.h"
#include "model/value.h"

typedef enum command_kind { CMD_TRANSACT, CMD_RETRACT, CMD_QUERY, CMD_RULE } command_kind;

/* One fact of a transact / retract. E, A and V stay datums: converting them
 * to an entity / attribute / value is an execution-time step with its own
 * errors (INT-001, API-003, INT-002; language.md §4.1). */
typedef struct ast_fact {
    const edn *e;
    const edn *a;
    const edn *v;
    bool has_valid_from, has_valid_to; /* the fact's own options map */
    int64_t valid_from, valid_to;
} ast_fact;

typedef struct ast_write {
    ast_fact *facts;
    size_t count;
    bool has_valid_from, has_valid_to; /* the command-level map (transact) */
    int64_t valid_from, valid_to;
} ast_write;

typedef enum term_kind {
    TERM_VAR,      /* ?x */
    TERM_WILDCARD, /* _ and ?_x: matches anything, binds nothing */
    TERM_CONST,    /* keyword, #uuid, string, number, boolean, nil */
    TERM_SLOT,     /* $name */
    TERM_NEVER     /* plain symbol, list, vector, map: never matches */
} term_kind;

typedef struct term {
    term_kind kind;
    const char *name; /* VAR: "?x"; WILDCARD: "_" or "?_x"; SLOT: "name" */
    size_t name_len;
    value constant;   /* CONST */
    const edn *datum; /* NEVER: the datum as written (for the printer) */
} term;

typedef struct ast_pattern {
    term e, a, v;
} ast_pattern;

/* ---- expressions (language.md §8.5) ---------------------------------------------- */

typedef enum expr_op {
    OP_LT,
    OP_LE,
    OP_GT,
    OP_GE,
    OP_EQ,
    OP_NE, /* comparisons */
    OP_ADD,
    OP_SUB,
    OP_MUL,
    OP_DIV, /* arithmetic */
    OP_STARTS_WITH,
    OP_ENDS_WITH,
    OP_CONTAINS,
    OP_MATCHES,
    OP_IS_STRING,
    OP_IS_INTEGER,
    OP_IS_FLOAT,
    OP_IS_BOOLEAN,
    OP_IS_NIL,
    OP_HOST /* any other name with one argument: a host predicate (language.md §12) */
} expr_op;

typedef enum expr_kind { EXPR_CALL, EXPR_TERM } expr_kind;

typedef struct regex_prog regex_prog;
typedef struct ast_expr ast_expr;
struct ast_expr {
    expr_kind kind;
    term arg;         /* TERM: TERM_VAR, TERM_CONST or TERM_SLOT */
    expr_op op;       /* CALL */
    const char *name; /* CALL: the head symbol, e.g. "<=" or "adult?" */
    size_t name_len;
    ast_expr *args; /* CALL: 1 or 2 */
    size_t argc;
    const regex_prog *regex; /* OP_MATCHES: the compiled second argument */
};

/* [(expr)] filters, [(expr) ?out] binds. */
typedef struct ast_expr_clause {
    ast_expr expr;
    bool has_out;
    term out;
} ast_expr_clause;

/* ---- where clauses (language.md §8.3-§8.8) ------------------------------------------ */

typedef enum clause_kind {
    CL_PATTERN,
    CL_EXPR,
    CL_NOT,
    CL_NOT_JOIN,
    CL_OR,
    CL_OR_JOIN,
    CL_INVOKE
} clause_kind;

typedef struct ast_clause ast_clause;

/* A conjunction: a :where, a rule body, a not body, one or-branch. */
typedef struct ast_body {
    ast_clause *items;
    size_t count;
} ast_body;

struct ast_clause {
    clause_kind kind;
    uint32_t line, column;
    union {
        ast_pattern pattern;  /* PATTERN */
        ast_expr_clause expr; /* EXPR */
        struct {
            term *vars; /* NOT_JOIN: the join variables */
            size_t var_count;
            ast_body body;
        } not_; /* NOT, NOT_JOIN */
        struct {
            term *vars; /* OR_JOIN: the join variables */
            size_t var_count;
            ast_body *branches; /* a single clause or an (and ...) group each */
            size_t branch_count;
        } or_; /* OR, OR_JOIN */
        struct {
            const char *name;
            size_t name_len;
            term *args;
            size_t argc;
        } invoke; /* INVOKE: (pred args...) */
    } as;
};

/* ---- :find (language.md §8.2, §10, §11) ----------------------------------------------- */

typedef enum find_kind { FIND_VAR, FIND_AGGREGATE, FIND_WINDOW } find_kind;

typedef struct ast_find {
    find_kind kind;
    const char *fn; /* AGGREGATE, WINDOW: the function name */
    size_t fn_len;
    bool has_var; /* false only for (rank / row-number :over ...) */
    term var;
    bool has_partition;
    term partition_by; /* WINDOW */
    term order_by;     /* WINDOW (required) */
    bool desc;         /* WINDOW */
} ast_find;

typedef struct ast_order_key {
    term var;
    bool desc;
} ast_order_key;

typedef enum as_of_kind { AS_OF_NONE, AS_OF_COUNTER, AS_OF_TIME, AS_OF_SLOT } as_of_kind;
typedef enum valid_kind { VALID_NOW, VALID_AT, VALID_ANY, VALID_SLOT } valid_kind;

typedef struct ast_query {
    term *find; /* the plain :find variables, in order (what this executor runs) */
    size_t find_count;
    ast_pattern *where; /* the top-level patterns, in order */
    size_t where_count;
    as_of_kind as_of;
    int64_t as_of_value; /* counter or ms */
    valid_kind valid;
    int64_t valid_at; /* ms, when valid == VALID_AT */

    ast_find *specs; /* every :find spec in order (variables too) */
    size_t spec_count;
    ast_body body; /* every :where clause in source order (patterns too) */
    term *with;    /* :with variables */
    size_t with_count;
    term as_of_slot, valid_slot; /* AS_OF_SLOT, VALID_SLOT: TERM_SLOT */
    bool has_max_derived_facts, has_max_results, has_limit, has_offset;
    int64_t max_derived_facts, max_results, limit, offset;
    ast_order_key *order_by;
    size_t order_count;
} ast_query;

/* (rule [(head args...) body...]) (language.md §9.1). */
typedef struct ast_rule {
    const char *name;
    size_t name_len;
    term *args;
    size_t argc;
    ast_body body;
} ast_rule;

typedef struct command {
    command_kind kind;
    union {
        ast_write write; /* CMD_TRANSACT, CMD_RETRACT */
        ast_query query; /* CMD_QUERY */
        ast_rule rule;   /* CMD_RULE */
    } as;
} command;

#endif
