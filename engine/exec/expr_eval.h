/* The built-in expression operators of language.md §8.5.1 applied to values, and
 * the truthiness of language.md §8.5.2.
 *
 * Failure (EXPR_FAIL) is not an error of the query: it silently drops the
 * solution being evaluated (language.md §8.5.3), or counts as "not matched" inside
 * not/not-join. Every result is an Integer, Float or Boolean, so it
 * borrows nothing from the arguments. */
#ifndef MG_EXEC_EXPR_EVAL_H
#define MG_EXEC_EXPR_EVAL_H

#include <stdbool.h>
#include <stddef.h>

#include "datalog/ast.h"
#include "model/value.h"

/* The operators are the AST's (datalog/ast.h): OP_LT … OP_IS_NIL are the
 * built-ins, OP_HOST a host predicate, which this module does not apply.
 * `matches?` needs the regex compiled once per query, so it is evaluated
 * by the regex module; expr_apply answers EXPR_NOT_BUILTIN for it. */

typedef enum expr_status {
    EXPR_OK = 0,
    EXPR_FAIL,       /* the row is dropped (language.md §8.5.3) */
    EXPR_NOT_BUILTIN /* OP_MATCHES: the caller must evaluate it */
} expr_status;

/* The operator spelled `name` (e.g. "<=", "starts-with?"); false when the
 * name is not a built-in (then it is a host predicate, language.md §8.5.5). */
bool expr_op_lookup(const char *name, size_t len, expr_op *out);
/* The spelling of an operator, e.g. "starts-with?". */
const char *expr_op_name(expr_op op);
/* 1 or 2. */
int expr_op_arity(expr_op op);

/* Applies `op` to args[0..arity). On EXPR_OK, *out is the result:
 *   < <= > >=        Boolean by O1; false when a NaN is involved; fails
 *                    unless both are numbers or both strings
 *   = !=             Boolean by E1; never fails
 *   + - *            Integer (two's-complement wrap-around) when both are
 *                    Integer, else Float; fails on a non-number or a NaN
 *                    result (infinities are ordinary results)
 *   /                Integer/Integer truncates toward zero, MIN / -1 = MIN;
 *                    otherwise Float; fails on a zero divisor (0, 0.0, -0.0),
 *                    a NaN result or a non-number
 *   starts-with? ends-with? contains?   byte-wise; fails unless both are
 *                    strings (the empty string is a prefix/suffix/part of all)
 *   string? integer? float? boolean? nil?   Boolean type test; never fails */
expr_status expr_apply(expr_op op, const value *args, value *out);

/* language.md §8.5.2: true, a non-zero Integer, or a Float other than ±0.0 (NaN is
 * truthy); everything else is falsy. */
bool expr_truthy(const value *v);

#endif
