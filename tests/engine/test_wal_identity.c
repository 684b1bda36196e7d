/* The WAL's identity and the counter jump, through the store's internals
 * (docs/file-format.md §2, §6): files written by the earlier release (no
 * database identifier, a version-1 log) still open, replay, and get an
 * identity at their first read-write open; a version-1 log beside a file
 * with an identity is ignored; a counter jump is one frame whatever the
 * gap and is refused past INT64_MAX. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/crc32.h"
#include "check.h"
#include "model/timestamp.h"
#include "storage/format.h"
#include "storage/wal.h"
#include "store/store.h"
#include "store/store_codec.h"

static char dir[] = "/tmp/mg_walid_XXXXXX";

static const char *path_in(const char *name, char *out, size_t cap) {
    snprintf(out, cap, "%s/%s", dir, name);
    return out;
}

static long size_of(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 ? (long)st.st_size : -1;
}

static uint8_t *slurp(const char *p, long *len) {
    *len = size_of(p);
    uint8_t *b = malloc(*len > 0 ? (size_t)*len : 1);
    int fd = open(p, O_RDONLY);
    if (fd >= 0 && *len > 0 && pread(fd, b, (size_t)*len, 0) != *len)
        *len = -1;
    if (fd >= 0)
        close(fd);
    return b;
}

static void spill(const char *p, const uint8_t *b, long len) {
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(fd >= 0 && pwrite(fd, b, (size_t)len, 0) == len);
    if (fd >= 0)
        close(fd);
}

static fact sample_fact(uint64_t tx, char *name) {
    int len = snprintf(name, 32, ":e%llu", (unsigned long long)tx);
    return (fact){.entity = uuid_of_keyword(name, (size_t)len),
                  .attribute = value_keyword(":n", 2),
                  .v = value_integer((int64_t)tx),
                  .tx_count = tx,
                  .tx_id = (int64_t)tx,
                  .valid_from = (int64_t)tx,
                  .valid_to = VALID_TO_FOREVER,
                  .asserted = true};
}

static store *open_at(const char *p, bool read_only) {
    store_options o;
    store_options_default(&o);
    o.read_only = read_only;
    o.wal_checkpoint_threshold = 0;
    store *s = NULL;
    err e = {0};
    if (store_open_file(p, &o, &s, &e) != 0)
        fprintf(stderr, "open %s: %s\n", p, e.message);
    err_clear(&e);
    return s;
}

static void commit_next(store *s) {
    char name[32];
    fact f = sample_fact(store_tx_count(s) + 1, name);
    err e = {0};
    CHECK(store_commit(s, &f, 1, &e) == 0);
    err_clear(&e);
}

static uint64_t records(store *s) {
    store_reader *r = NULL;
    store_scan *sc = NULL;
    err e = {0};
    uint64_t n = 0;
    store_rec rec;
    if (store_reader_open(s, &r, &e) == 0 && store_scan_order(r, TREE_TXLOG, &sc, &e) == 0)
        while (store_scan_next(sc, &rec, &e) == 1)
            n++;
    store_scan_close(sc);
    store_reader_close(r);
    err_clear(&e);
    return n;
}

/* ---- the earlier release's files ---------------------------------------- */

/* Zeroes the identifier in both header slots, as the earlier release wrote
 * them (its bytes 96.. were zero), and reseals them. */
static void strip_identity(const char *p) {
    long len;
    uint8_t *b = slurp(p, &len);
    for (uint32_t slot = 0; slot < 2; slot++) {
        uint8_t *page = b + slot * FORMAT_PAGE_SIZE;
        memset(page + FORMAT_DB_ID_OFFSET, 0, FORMAT_DB_ID_SIZE);
        format_seal_page(page, slot);
    }
    spill(p, b, len);
    free(b);
}

static bool has_identity(const char *p) {
    long len;
    uint8_t *b = slurp(p, &len);
    bool any = false;
    for (uint32_t slot = 0; slot < 2; slot++)
        any = any || format_has_db_id(b + slot * FORMAT_PAGE_SIZE + FORMAT_DB_ID_OFFSET);
    free(b);
    return any;
}

/* Appends a version-1 frame (u32 length, u32 CRC-32 of the length field
 * and the payload) to `out`. */
static void legacy_frame(buf *out, const uint8_t *payload, uint32_t len) {
    uint8_t h[8];
    format_put_le(h, len, 4);
    format_put_le(h + 4, crc32_update(crc32_update(0, h, 4), payload, len), 4);
    buf_append(out, (const char *)h, 8);
    buf_append(out, (const char *)payload, len);
}

static void legacy_header(buf *out, uint64_t base) {
    uint8_t h[32] = {0};
    memcpy(h, "MGRAFWAL", 8);
    format_put_le(h + 8, 1, 4);
    format_put_le(h + 16, base, 8);
    format_put_le(h + 24, crc32_update(0, h, 24), 4);
    buf_append(out, (const char *)h, 32);
}

/* Rewrites a version-2 log as the earlier release would have written it. */
static void downgrade_wal(const char *wal_path) {
    long len;
    uint8_t *b = slurp(wal_path, &len);
    buf out;
    buf_init(&out);
    legacy_header(&out, format_get_le(b + 16, 8));
    for (long off = WAL_HEADER_SIZE; off + WAL_FRAME_HEADER <= len;) {
        uint32_t n = (uint32_t)format_get_le(b + off, 4);
        legacy_frame(&out, b + off + WAL_FRAME_HEADER, n);
        off += WAL_FRAME_HEADER + n;
    }
    spill(wal_path, (const uint8_t *)out.data, (long)out.len);
    buf_free(&out);
    free(b);
}

static void test_earlier_release_files_open_and_get_an_identity(void) {
    char p[300], w[310], saved[310];
    path_in("old.graph", p, sizeof p);
    snprintf(w, sizeof w, "%s.wal", p);
    path_in("old-saved.wal", saved, sizeof saved);
    store *s = open_at(p, false);
    if (!s)
        return;
    for (int i = 0; i < 3; i++)
        commit_next(s);
    err e = {0};
    CHECK(store_checkpoint(s, &e) == 0);
    commit_next(s);
    commit_next(s);
    store_abandon(s); /* transactions 4 and 5 in the log only */
    strip_identity(p);
    downgrade_wal(w);
    CHECK(!has_identity(p));
    long wal_len;
    uint8_t *old_wal = slurp(w, &wal_len);
    spill(saved, old_wal, wal_len);

    s = open_at(p, true); /* read-only: replayed, nothing written */
    CHECK(s && store_tx_count(s) == 5 && records(s) == 5);
    store_close(s);
    CHECK(!has_identity(p) && size_of(w) == wal_len);

    s = open_at(p, false); /* read-write: replayed, then given an identity */
    CHECK(s && store_tx_count(s) == 5 && records(s) == 5);
    CHECK(has_identity(p) && size_of(w) == WAL_HEADER_SIZE);
    if (s)
        commit_next(s);
    store_abandon(s);
    s = open_at(p, false);
    CHECK(s && store_tx_count(s) == 6 && records(s) == 6);
    store_close(s);

    /* The earlier release's log beside the upgraded file, even with a
     * frame past its counter, is not replayed. */
    buf extra;
    buf_init(&extra);
    buf_append(&extra, (const char *)old_wal, (size_t)wal_len);
    char name[32];
    fact f = sample_fact(7, name);
    buf payload;
    buf_init(&payload);
    store_codec_encode(7, &f, 1, &payload);
    legacy_frame(&extra, (const uint8_t *)payload.data, (uint32_t)payload.len);
    spill(w, (const uint8_t *)extra.data, (long)extra.len);
    s = open_at(p, false);
    CHECK(s && store_tx_count(s) == 6 && records(s) == 6);
    CHECK(size_of(w) == WAL_HEADER_SIZE); /* replaced by a current log */
    store_close(s);
    buf_free(&payload);
    buf_free(&extra);
    free(old_wal);
    err_clear(&e);
}

/* The header the upgrade wrote is damaged later: the older slot, without
 * an identity, cannot take the log that continues the newer one. */
static void test_a_lost_upgrade_header_is_stg_004_not_a_foreign_wal(void) {
    char p[300];
    path_in("lost.graph", p, sizeof p);
    store *s = open_at(p, false);
    if (!s)
        return;
    commit_next(s);
    store_close(s); /* checkpointed: generation 2, in slot 0 */
    char w[310];
    snprintf(w, sizeof w, "%s.wal", p);
    strip_identity(p); /* as the earlier release left it */
    downgrade_wal(w);
    s = open_at(p, false); /* the upgrade: generation 3, with the identity, in slot 1 */
    if (s)
        commit_next(s);
    store_abandon(s); /* a frame of generation 3 in the log */
    long len;
    uint8_t *b = slurp(p, &len);
    b[FORMAT_PAGE_SIZE + 200] ^= 1; /* slot 1 fails its checksum */
    spill(p, b, len);
    free(b);
    store_options o;
    store_options_default(&o);
    err e = {0};
    CHECK(store_open_file(p, &o, &s, &e) == ERR(STG, 4));
    err_clear(&e);
}

static void test_a_fresh_file_has_an_identity_its_log_repeats(void) {
    char p[300], w[310];
    path_in("fresh.graph", p, sizeof p);
    snprintf(w, sizeof w, "%s.wal", p);
    store *s = open_at(p, false);
    store_close(s);
    long a_len, w_len;
    uint8_t *a = slurp(p, &a_len), *l = slurp(w, &w_len);
    CHECK(a_len >= 2 * (long)FORMAT_PAGE_SIZE && w_len == WAL_HEADER_SIZE);
    if (a_len >= 2 * (long)FORMAT_PAGE_SIZE && w_len == WAL_HEADER_SIZE) {
        CHECK(format_has_db_id(a + FORMAT_DB_ID_OFFSET));
        CHECK(memcmp(a + FORMAT_DB_ID_OFFSET, a + FORMAT_PAGE_SIZE + FORMAT_DB_ID_OFFSET,
                     FORMAT_DB_ID_SIZE) == 0);
        CHECK(memcmp(l + 24, a + FORMAT_DB_ID_OFFSET, FORMAT_DB_ID_SIZE) == 0);
        CHECK(format_get_le(l + 8, 4) == 3);
    }
    free(a);
    free(l);
    /* two databases, two identities */
    char q[300];
    path_in("fresh2.graph", q, sizeof q);
    s = open_at(q, false);
    store_close(s);
    uint8_t *b = slurp(q, &a_len);
    a = slurp(p, &w_len);
    CHECK(memcmp(a + FORMAT_DB_ID_OFFSET, b + FORMAT_DB_ID_OFFSET, FORMAT_DB_ID_SIZE) != 0);
    free(a);
    free(b);
}

/* ---- counter jumps ------------------------------------------------------ */

static void test_a_jump_of_2_62_is_one_frame(void) {
    char p[300], w[310];
    path_in("jump.graph", p, sizeof p);
    snprintf(w, sizeof w, "%s.wal", p);
    store *s = open_at(p, false);
    if (!s)
        return;
    err e = {0};
    commit_next(s);
    long before = size_of(w);
    CHECK(store_advance(s, (uint64_t)1 << 62, &e) == 0);
    CHECK(size_of(w) == before + WAL_FRAME_HEADER + 12); /* counter and fact count */
    CHECK(store_tx_count(s) == (uint64_t)1 << 62);
    CHECK(store_advance(s, (uint64_t)1 << 62, &e) == ERR(INT, 0)); /* never backwards */
    CHECK(store_advance(s, (uint64_t)INT64_MAX + 1, &e) == ERR(STG, 46));
    commit_next(s);
    store_abandon(s); /* replayed from the log */
    s = open_at(p, false);
    CHECK(s && store_tx_count(s) == ((uint64_t)1 << 62) + 1 && records(s) == 2);
    if (s) {
        CHECK(store_advance(s, INT64_MAX, &e) == 0);
        char name[32];
        fact f = sample_fact(0, name);
        f.tx_count = (uint64_t)INT64_MAX + 1;
        CHECK(store_commit(s, &f, 1, &e) == ERR(STG, 46));
        CHECK(store_checkpoint(s, &e) == 0);
    }
    store_close(s);
    s = open_at(p, true); /* from the main file */
    CHECK(s && store_tx_count(s) == (uint64_t)INT64_MAX && records(s) == 2);
    store_close(s);
    err_clear(&e);
}

int main(void) {
    if (!mkdtemp(dir))
        return 1;
    test_a_fresh_file_has_an_identity_its_log_repeats();
    test_earlier_release_files_open_and_get_an_identity();
    test_a_jump_of_2_62_is_one_frame();
    test_a_lost_upgrade_header_is_stg_004_not_a_foreign_wal();
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return CHECK_DONE();
}
