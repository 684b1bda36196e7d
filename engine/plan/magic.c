#include "plan/magic.h"

#include <string.h>

bool magic_is_magic_name(const char *name, size_t len) {
    size_t n = sizeof MAGIC_PREFIX - 1;
    return len >= n && memcmp(name, MAGIC_PREFIX, n) == 0;
}

int magic_rewrite(const ast_rule *const *rules, size_t count, const ast_query *q, arena *a,
                  const ast_rule *const **out, size_t *out_count, err *e) {
    (void)rules; (void)count; (void)q; (void)a; (void)out; (void)out_count; (void)e;
    return 0;
}
