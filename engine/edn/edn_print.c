#include "edn/edn_print.h"

#include "base/dtoa.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void edn_print_string(const char *s, size_t len, buf *out) {
    buf_putc(out, '"');
    size_t run = 0; /* bytes copied as they are, flushed before an escape */
    for (size_t i = 0; i < len; i++) {
        const char *esc = s[i] == '"'    ? "\\\""
                          : s[i] == '\\' ? "\\\\"
                          : s[i] == '\n' ? "\\n"
                          : s[i] == '\t' ? "\\t"
                          : s[i] == '\r' ? "\\r"
                                         : NULL;
        if (!esc)
            continue;
        buf_append(out, s + run, i - run);
        buf_puts(out, esc);
        run = i + 1;
    }
    buf_append(out, s + run, len - run);
    buf_putc(out, '"');
}

void edn_print_float(double f, buf *out) {
    if (signbit(f))
        buf_putc(out, '-');
    f = fabs(f);
    if (isnan(f)) { /* no literal exists; not produced by the reader */
        buf_puts(out, "0.0");
        return;
    }
    if (isinf(f)) {
        buf_putc(out, '1');
        for (int i = 0; i < 400; i++)
            buf_putc(out, '0');
        buf_puts(out, ".0");
        return;
    }
    char digits[DTOA_DIGITS_MAX];
    int x, n = (int)dtoa_shortest(f, digits, &x);
    if (x < 0) {
        buf_puts(out, "0.");
        for (int i = -1; i > x; i--)
            buf_putc(out, '0');
        buf_append(out, digits, (size_t)n);
        return;
    }
    for (int i = 0; i <= x; i++)
        buf_putc(out, i < n ? digits[i] : '0');
    buf_putc(out, '.');
    if (n > x + 1)
        buf_append(out, digits + x + 1, (size_t)(n - x - 1));
    else
        buf_putc(out, '0');
}

void edn_print_uuid(const uuid128 *u, buf *out) {
    char text[UUID_TEXT_LEN + 1];
    uuid_format(u, text);
    buf_puts(out, "#uuid \"");
    buf_puts(out, text);
    buf_putc(out, '"');
}

static void edn_print_seq(const edn *d, const char *open, char close, buf *out) {
    buf_puts(out, open);
    for (size_t i = 0; i < d->as.seq.count; i++) {
        if (i)
            buf_putc(out, ' ');
        edn_print(&d->as.seq.items[i], out);
    }
    buf_putc(out, close);
}

void edn_print(const edn *d, buf *out) {
    switch (d->kind) {
    case EDN_LIST: edn_print_seq(d, "(", ')', out); break;
    case EDN_VECTOR: edn_print_seq(d, "[", ']', out); break;
    case EDN_MAP: edn_print_seq(d, "{", '}', out); break;
    case EDN_STRING: edn_print_string(d->as.text.ptr, d->as.text.len, out); break;
    case EDN_INTEGER: buf_printf(out, "%lld", (long long)d->as.i); break;
    case EDN_FLOAT: edn_print_float(d->as.f, out); break;
    case EDN_BOOLEAN: buf_puts(out, d->as.b ? "true" : "false"); break;
    case EDN_NIL: buf_puts(out, "nil"); break;
    case EDN_KEYWORD:
    case EDN_SYMBOL: buf_append(out, d->as.text.ptr, d->as.text.len); break;
    case EDN_UUID: edn_print_uuid(&d->as.uuid, out); break;
    case EDN_SLOT:
        buf_putc(out, '$');
        buf_append(out, d->as.text.ptr, d->as.text.len);
        break;
    }
}
