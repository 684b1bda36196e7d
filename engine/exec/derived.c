#include "exec/derived.h"

#include <string.h>

#include "plan/magic.h"

int derived_init(derived_facts *d, const seminaive *sn, err *e) {
    memset(d, 0, sizeof *d);
    arena_init(&d->mem);
    d->sn = sn;
    d->count = seminaive_relation_count(sn);
    d->attrs = arena_calloc(&d->mem, d->count + 1, sizeof *d->attrs);
    d->hidden = arena_calloc(&d->mem, d->count + 1, sizeof *d->hidden);
    if (!d->attrs || !d->hidden)
        return err_set(e, ERR(INT, 0), "out of memory");
    for (size_t i = 0; i < d->count; i++) {
        const char *name;
        size_t len;
        relation_view w;
        seminaive_relation(sn, i, &name, &len, &w);
        char *kw = arena_alloc(&d->mem, len + 1);
        if (!kw)
            return err_set(e, ERR(INT, 0), "out of memory");
        kw[0] = ':';
        memcpy(kw + 1, name, len);
        d->attrs[i] = value_keyword(kw, len + 1);
        d->hidden[i] = magic_is_magic_name(name, len);
    }
    return 0;
}

void derived_free(derived_facts *d) {
    arena_free(&d->mem);
    memset(d, 0, sizeof *d);
}

long derived_find(const derived_facts *d, const value *attr, bool invocation) {
    if (attr->type != VT_KEYWORD)
        return -1;
    for (size_t i = 0; i < d->count; i++)
        if ((invocation || !d->hidden[i]) && value_identical(&d->attrs[i], attr))
            return (long)i;
    return -1;
}

relation_view derived_view(const derived_facts *d, size_t i) {
    const char *name;
    size_t len;
    relation_view w;
    seminaive_relation(d->sn, i, &name, &len, &w);
    return w;
}
