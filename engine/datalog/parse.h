#ifndef MG_DATALOG_PARSE_H
#define MG_DATALOG_PARSE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"
#include "base/error.h"
#include "datalog/ast.h"

/* Parses exactly one command from text[0..len). Returns 0 and the command
 * (allocated in `a`), or the error code with `e` set. */
int datalog_parse(const char *text, size_t len, arena *a, command **out, err *e);

/* Whether text[0..len) opens like a transact or retract: '(' and a symbol
 * starting with either name, blanks only before them (no comment). Such a
 * text is no (query ...) command, whatever the rest; false decides nothing. */
bool datalog_looks_like_write(const char *text, size_t len);

#endif
