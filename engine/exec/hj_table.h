/* The table of a hash join (exec/op_hashjoin.c): the records of one
 * pattern read once, chained by the E2 hash of one position (the join
 * relation), charged to the query's meter while it lives.
 *
 * Rule evaluation reads the same stored pattern in every semi-naive round;
 * an hj_cache keeps such tables for the whole evaluation (where_ctx.tables,
 * exec/rule_eval.c), so the stored records a body joins are read once per
 * evaluation instead of once per round; a derived relation's table is
 * kept until the relation grows. The stored patterns' tables also serve
 * the next evaluation of the same rule cache (exec/rule_cache.h: one
 * query text on one snapshot) while they are small and the query sees
 * them the same way (hj_cache_begin). */
#ifndef MG_EXEC_HJ_TABLE_H
#define MG_EXEC_HJ_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/error.h"
#include "base/htab.h"
#include "base/meter.h"
#include "exec/visibility.h"
#include "model/fact.h"
#include "model/value.h"

#define HJ_END SIZE_MAX

typedef struct hj_entry {
    value vals[3];
    size_t next; /* chain, HJ_END at the end */
} hj_entry;

/* The records' times (a pseudo pattern reads them: language.md D16) are
 * kept beside the entries only when `records` is set (hj_table_init sets
 * it; a join whose rows read no record clears it before the first
 * append): a fact is larger than an entry, and a table of a whole
 * attribute is otherwise mostly bytes nobody reads. */
typedef struct hj_table {
    int key_pos; /* the position hashed: 1 attribute, 2 value, -1 none (one chain) */
    bool records;
    hj_entry *entries;
    fact *recs; /* entries' records when `records`, else NULL */
    size_t count, cap, recs_cap;
    size_t *heads, head_mask; /* when key_pos >= 0 */
    size_t first;             /* the one chain when key_pos < 0 (no array: most kept tables) */
    bool packed;              /* entries and recs are in a cache's arena (hj_cache.mem) */
    meter *m;
    size_t charged;
} hj_table;

void hj_table_init(hj_table *t, int key_pos, meter *m);
void hj_table_free(hj_table *t);
/* The bytes one more entry takes. */
size_t hj_table_entry_bytes(const hj_table *t);
/* Entry i's record (NULL when the table keeps none). */
static inline const fact *hj_table_record(const hj_table *t, size_t i) {
    return t->recs ? &t->recs[i] : NULL;
}
/* Appends one record (before hj_table_index). QRY-012, INT-000. */
int hj_table_append(hj_table *t, const value vals[3], const fact *rec, err *e);
/* Appends the records pattern `it` reads given `known` (op_scan.h), then
 * indexes them. */
struct where_ctx;
struct plan_item;
int hj_table_read(hj_table *t, struct where_ctx *x, const struct plan_item *it,
                  const value *known[3], err *e);
/* Chains the entries by their key; once, after the last append. INT-000. */
int hj_table_index(hj_table *t, err *e);
/* `n` (a power of two) empty chain heads (each HJ_END), or NULL when out
 * of memory: the buckets of a table and of a join's kept rows (hj_rows.h). */
size_t *hj_heads_new(size_t n);
/* The first entry whose key may be E2-equal to `key` (NULL: key_pos is
 * -1), HJ_END when none; then follow `next`. */
size_t hj_table_first(const hj_table *t, const value *key);

/* Kept tables, by what they read: every record of a stored attribute (a
 * Keyword), or only those of one entity under it (`entity` non-NULL), or
 * every fact an invocation of a derived relation reads (`derived`); and
 * the position they hash. A derived relation grows between rounds: its
 * table is read again when `version` (the relation's window) changed. */
typedef struct hj_key {
    const value *attr;
    const uuid128 *entity;
    int key_pos;
    uint64_t attr_hash; /* hj_key_attr_hash(attr) */
    bool derived;
    uint64_t version;
} hj_key;

/* The attribute's share of a key's hash: an operator that looks up many
 * entities under one attribute computes it once. */
uint64_t hj_key_attr_hash(const value *attr);

typedef struct hj_cached hj_cached;

/* At most this many tables of one entity are kept (each saves a seek per
 * later round); more are sought as usual. */
#define HJ_CACHE_ENTITY_TABLES 4096

/* Kept tables stay charged to the meter for the whole evaluation, where a
 * round used to free its tables (or stream its scans): together they keep
 * within a quarter of the query's memory limit, and a table that would
 * pass it is not kept (the round reads the records as it did before). So
 * keeping raises the meter's peak by at most that quarter. */
typedef struct hj_cache {
    hj_cached **items; /* stable addresses: tables are borrowed by operators */
    size_t count, cap;
    size_t entity_tables;
    size_t kept_bytes, budget;
    htab index; /* key hash -> item */
    /* The items, and the entries of the small one-chain tables (one
     * entity's records: most tables, each a few records), so that keeping
     * one costs no malloc; emptied, not freed, between evaluations. */
    arena mem;
    hj_table scratch; /* a new table is read into its arrays, then copied */
    /* What the stored tables were read under (hj_cache_begin): the reader
     * their stored values decode through, the memory limit the budget is
     * of, and the visibility. */
    const void *reader;
    size_t limit;
    visibility vis;
} hj_cache;

/* `memory_limit`: the query's (0: none). */
void hj_cache_init(hj_cache *c, size_t memory_limit);
void hj_cache_free(hj_cache *c);
/* Starts an evaluation over `x` (its reader and visibility) under
 * `memory_limit`. The stored patterns' tables of the last evaluation
 * stay when they are what this one would read: the same reader (the rule
 * cache that holds c serves one snapshot), the same limit, as-of and
 * valid-time mode, and a valid-time point at which each table shows the
 * same records (a table notes the span of points that do). Otherwise
 * every table is freed (their charges released). */
void hj_cache_begin(hj_cache *c, const struct where_ctx *x, size_t memory_limit);
/* Ends an evaluation: the derived relations' tables are freed (they are
 * the evaluation's), and the stored ones kept for the next while the
 * cache's memory is small, else freed too. */
void hj_cache_end(hj_cache *c, size_t memory_limit);
/* The kept table of `k`, or NULL (not read yet, or not kept). */
const hj_table *hj_cache_find(const hj_cache *c, const hj_key *k);
/* Keeps `t` (moved in: the cache owns it from then on) if it fits the
 * budget and `k` was neither kept nor refused before, and returns its
 * address; NULL: not kept, `t` is the caller's. */
const hj_table *hj_cache_put(hj_cache *c, const hj_key *k, hj_table *t);
/* The kept table of `k` (pattern `it` read with `known`, which must not
 * narrow more than `k` says), reading it now if it was not read yet or
 * its version changed (the previous table is freed: no operator may
 * still borrow it); NULL
 * when it is not kept: it would pass the budget or the meter's limit, or
 * it is one entity's and HJ_CACHE_ENTITY_TABLES are kept (the key is then
 * remembered, so it is not read again). Returns 0 or a storage error,
 * never QRY-012: the caller reads the records as usual instead. */
int hj_cache_load(hj_cache *c, struct where_ctx *x, const struct plan_item *it, const hj_key *k,
                  const value *known[3], const hj_table **out, err *e);

#endif
