/* The abstract syntax of commands (spec 3-9). Produced by datalog_parse,
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
 * errors (INT-001, API-003, INT-002; spec 4.1). */
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
    const char *name; /* VAR: "?x"; SLOT: "name" */
    size_t name_len;
    value constant;   /* CONST */
} term;

typedef struct ast_pattern {
    term e, a, v;
} ast_pattern;

typedef enum as_of_kind { AS_OF_NONE, AS_OF_COUNTER, AS_OF_TIME } as_of_kind;
typedef enum valid_kind { VALID_NOW, VALID_AT, VALID_ANY } valid_kind;

typedef struct ast_query {
    term *find; /* TERM_VAR only in this version */
    size_t find_count;
    ast_pattern *where;
    size_t where_count;
    as_of_kind as_of;
    int64_t as_of_value; /* counter or ms */
    valid_kind valid;
    int64_t valid_at; /* ms, when valid == VALID_AT */
} ast_query;

typedef struct command {
    command_kind kind;
    union {
        ast_write write; /* CMD_TRANSACT, CMD_RETRACT */
        ast_query query; /* CMD_QUERY */
    } as;
} command;

#endif
