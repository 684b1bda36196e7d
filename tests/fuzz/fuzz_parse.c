/* libFuzzer target for the reader, the parser and the printer.
 *
 * Invariants checked on every input:
 *  - parsing returns, without crash, leak or undefined behaviour;
 *  - a failure carries a message "[CODE] ..." whose code matches;
 *  - a success prints to text that parses again, and printing that second
 *    command gives the same text (print ∘ parse is idempotent). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "datalog/parse.h"
#include "datalog/print.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_die(const char *what, const char *text, const char *detail) {
    fprintf(stderr, "fuzz_parse: %s\n  text: %s\n  detail: %s\n", what, text ? text : "",
            detail ? detail : "");
    abort();
}

static void fuzz_check_error(const err *e, int rc) {
    const char *name = err_code_name(rc);
    if (!name || !e->message || e->message[0] != '[' ||
        strncmp(e->message + 1, name, strlen(name)) != 0)
        fuzz_die("error without a matching [CODE] message", NULL, e->message);
}

static void fuzz_round_trip(const command *c) {
    buf first, second;
    buf_init(&first);
    buf_init(&second);
    datalog_print(c, &first);
    if (first.oom) {
        buf_free(&first);
        return;
    }
    arena a;
    arena_init(&a);
    err e = {0};
    command *again;
    if (datalog_parse(first.data, first.len, &a, &again, &e) != 0)
        fuzz_die("printed command does not parse", first.data, e.message);
    datalog_print(again, &second);
    if (!second.oom && (first.len != second.len || memcmp(first.data, second.data, first.len) != 0))
        fuzz_die("printing is not stable", first.data, second.data);
    err_clear(&e);
    arena_free(&a);
    buf_free(&first);
    buf_free(&second);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    arena a;
    arena_init(&a);
    err e = {0};
    command *c;
    int rc = datalog_parse((const char *)data, size, &a, &c, &e);
    if (rc)
        fuzz_check_error(&e, rc);
    else
        fuzz_round_trip(c);
    err_clear(&e);
    arena_free(&a);
    return 0;
}
