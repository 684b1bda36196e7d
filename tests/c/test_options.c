/* The open options table: minigraf_options_describe, and that minigraf.h
 * and docs/c-api.md list the same options. */
#include "support.h"

static char *read_text(const char *rel) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", MINIGRAF_SOURCE_DIR, rel);
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    size_t got = fread(s, 1, (size_t)n, f);
    s[got] = '\0';
    fclose(f);
    return s;
}

#define MAX_NAMES 64
typedef struct names {
    char name[MAX_NAMES][48];
    int count;
} names;

static void add_name(names *n, const char *s, size_t len) {
    if (n->count < MAX_NAMES && len < sizeof n->name[0]) {
        memcpy(n->name[n->count], s, len);
        n->name[n->count++][len] = '\0';
    }
}

static int name_cmp(const void *a, const void *b) {
    return strcmp(a, b);
}

/* Joined "a,b,c" after sorting, for one comparison that shows both sides. */
static void joined(names *n, char *out, size_t cap) {
    qsort(n->name, (size_t)n->count, sizeof n->name[0], name_cmp);
    out[0] = '\0';
    for (int i = 0; i < n->count; i++) {
        strncat(out, n->name[i], cap - strlen(out) - 1);
        strncat(out, ",", cap - strlen(out) - 1);
    }
}

static void described_names(names *n) {
    const char *json = minigraf_options_describe();
    for (const char *p = json; p && (p = strstr(p, "{\"name\":\"")) != NULL;) {
        p += 9;
        add_name(n, p, strcspn(p, "\""));
    }
}

TEST(describe_is_static_json_of_every_option) {
    const char *a = minigraf_options_describe();
    REQUIRE(a != NULL);
    CHECK(a == minigraf_options_describe());
    CHECK(a[0] == '[' && a[strlen(a) - 1] == ']');
    CHECK(strstr(a, "{\"name\":\"page_cache_size\",\"type\":\"int\",\"min\":1,\"default\":4096,"
                    "\"for\":[\"open\",\"log_writer\"],\"meaning\":") != NULL);
    CHECK(strstr(a,
                 "{\"name\":\"synchronous\",\"type\":\"string\",\"values\":[\"full\",\"normal\"],"
                 "\"default\":\"full\",\"log_writer_default\":\"normal\"") != NULL);
    CHECK(strstr(a, "{\"name\":\"busy_timeout_ms\",\"type\":\"int\",\"min\":0,\"default\":5000,"
                    "\"for\":[\"open\"]") != NULL);
    CHECK(strstr(a, "{\"name\":\"query_timeout_ms\",\"type\":\"int\",\"min\":0,\"default\":0,") !=
          NULL);
    CHECK(
        strstr(a,
               "{\"name\":\"read_only\",\"type\":\"bool\",\"default\":false,\"for\":[\"open\"]") !=
        NULL);
    CHECK(strstr(a, "{\"name\":\"recover\",\"type\":\"string\",\"values\":[\"truncate_wal\"],"
                    "\"default\":null,\"for\":[\"open\"]") != NULL);
    CHECK(strstr(a, "{\"name\":\"history_index\",\"type\":\"bool\",\"default\":false,"
                    "\"for\":[\"open\",\"log_writer\"]") != NULL);
    names n = {0};
    described_names(&n);
    CHECK_INT_EQ(n.count, 12);
}

TEST(docs_and_header_list_the_same_options) {
    names json = {0}, docs = {0}, header = {0};
    described_names(&json);
    char *md = read_text("docs/c-api.md");
    REQUIRE(md != NULL);
    const char *sec = strstr(md, "\n## Open options\n");
    REQUIRE(sec != NULL);
    const char *end = strstr(sec + 1, "\n## ");
    for (const char *p = sec; (p = strstr(p, "\n| `")) != NULL && (!end || p < end); p++)
        add_name(&docs, p + 4, strcspn(p + 4, "`"));
    free(md);
    char *h = read_text("capi/include/minigraf.h");
    REQUIRE(h != NULL);
    const char *from = strstr(h, "keys (all optional):");
    const char *to = from ? strstr(from, "minigraf_options_describe returns") : NULL;
    REQUIRE(from && to);
    for (const char *p = from; (p = strstr(p, "\n *   \"")) != NULL && p < to; p++)
        add_name(&header, p + 7, strcspn(p + 7, "\""));
    free(h);
    char a[1024], b[1024], c[1024];
    joined(&json, a, sizeof a);
    joined(&docs, b, sizeof b);
    joined(&header, c, sizeof c);
    CHECK_STR_EQ(b, a);
    CHECK_STR_EQ(c, a);
}

TEST(every_option_is_accepted_and_checked) {
    MiniGrafDb *db = NULL;
    CHECK_INT_EQ(
        minigraf_open_v2(NULL,
                         "{\"read_only\":false,\"allow_unlocked\":true,\"page_cache_size\":8,"
                         "\"wal_checkpoint_threshold\":0,\"synchronous\":\"normal\","
                         "\"max_derived_facts\":5,\"max_results\":5,"
                         "\"query_memory_limit\":0,\"busy_timeout_ms\":0,"
                         "\"query_timeout_ms\":100,\"history_index\":true}",
                         &db, NULL),
        0);
    minigraf_close(db);
    static const char *const bad[] = {
        "{\"busy_timeout_ms\":-1}",  "{\"query_timeout_ms\":1.5}", "{\"read_only\":1}",
        "{\"synchronous\":\"off\"}", "{\"page_cache_size\":0}",    "{\"max_results\":0}",
        "{\"unknown\":1}",           "{\"read_only\":true",        "{\"history_index\":0}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *msg = NULL;
        CHECK_INT_EQ(minigraf_open_v2(NULL, bad[i], &db, &msg), MINIGRAF_E_API_017);
        CHECK(msg != NULL);
        minigraf_string_free(msg);
    }
    char *msg = NULL;
    minigraf_open_v2(NULL, "{\"busy_timeout_ms\":-1}", &db, &msg);
    CHECK_STR_EQ(msg, "[API-017] option \"busy_timeout_ms\" must be an integer >= 0");
    minigraf_string_free(msg);
}

TEST(log_writer_takes_only_its_options) {
    temp_db_path t;
    temp_db_make(&t);
    MiniGrafLogWriter *w = NULL;
    char *msg = NULL;
    CHECK_INT_EQ(minigraf_log_writer_create_v2(t.path, "{\"busy_timeout_ms\":1}", &w, &msg),
                 MINIGRAF_E_API_017);
    CHECK_STR_EQ(msg, "[API-017] unknown log writer option \"busy_timeout_ms\"");
    minigraf_string_free(msg);
    CHECK_INT_EQ(minigraf_log_writer_create_v2(t.path,
                                               "{\"synchronous\":\"full\",\"page_cache_size\":4,"
                                               "\"wal_checkpoint_threshold\":10}",
                                               &w, NULL),
                 0);
    minigraf_log_writer_free(w);
    temp_db_remove(&t);
}

CHECK_MAIN(TEST_ENTRY(describe_is_static_json_of_every_option),
           TEST_ENTRY(docs_and_header_list_the_same_options),
           TEST_ENTRY(every_option_is_accepted_and_checked),
           TEST_ENTRY(log_writer_takes_only_its_options))
