/* Unit tests for the free list (storage/freelist.h): plans keep every page
 * non-empty and never place list pages on pages the current header still
 * reaches; a chain is read lazily and only its read part is rewritten;
 * impossible list pages give STG-008 and leave the list as it was. Then
 * through the pager: a small checkpoint over a long list writes a page or
 * two of it, and the list survives a reopen intact. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "storage/format.h"
#include "storage/freelist.h"
#include "storage/pager.h"

#define PAGE_COUNT 100000u

/* A plan's pages as decoded images: (page, next, count) must chain and
 * hold plan->entries in order, the top page the smallest. */
static bool plan_consistent(const freelist_plan *p, uint32_t rest) {
    size_t at = 0;
    for (size_t i = 0; i < p->pages.n; i++) {
        const uint8_t *img = p->images + i * FORMAT_PAGE_SIZE;
        uint32_t next = (uint32_t)format_get_le(img, 4);
        size_t n = (size_t)format_get_le(img + 4, 4);
        if (!format_page_ok(img, p->pages.v[i]) || n == 0 || n > FREELIST_PER_PAGE ||
            next != (i + 1 < p->pages.n ? p->pages.v[i + 1] : rest) ||
            (i > 0 && n != FREELIST_PER_PAGE))
            return false;
        for (size_t k = 0; k < n; k++)
            if (format_get_le(img + 8 + 4 * k, 4) != p->entries.v[at++])
                return false;
    }
    return at == p->entries.n;
}

/* The lowest entries on the top page, each page descending: taking from
 * the end of the top page, then of the next, gives ascending pages. */
static bool plan_ordered(const freelist_plan *p) {
    size_t n = p->entries.n, top = n - (p->pages.n - 1) * FREELIST_PER_PAGE;
    uint32_t prev = 0;
    for (size_t at = 0; at < n; at += at ? FREELIST_PER_PAGE : top) {
        size_t len = at ? FREELIST_PER_PAGE : top;
        for (size_t i = len; i-- > 0;) {
            if (p->entries.v[at + i] <= prev)
                return false;
            prev = p->entries.v[at + i];
        }
    }
    return true;
}

static bool disjoint(const pgvec *a, const pgvec *b) {
    for (size_t i = 0; i < a->n; i++)
        for (size_t k = 0; k < b->n; k++)
            if (a->v[i] == b->v[k])
                return false;
    return true;
}

/* Pending pages only: the list goes on fresh pages past `next`. */
static void test_plan_from_pending(void) {
    for (size_t n = 1; n <= 2 * FREELIST_PER_PAGE + 1; n += FREELIST_PER_PAGE / 2) {
        freelist f;
        freelist_init(&f, 0, 0);
        for (size_t i = 0; i < n; i++)
            CHECK(freelist_retire(&f, (uint32_t)(10 + i)) == 0);
        freelist_plan p;
        err e = {0};
        CHECK(freelist_plan_make(&f, 5000, &p, &e) == 0);
        size_t pages = (n + FREELIST_PER_PAGE - 1) / FREELIST_PER_PAGE;
        CHECK(p.pages.n == pages && p.next == 5000 + pages && p.pages.v[0] == 5000);
        CHECK(p.entries.n == n && p.count == n && p.head == 5000);
        CHECK(plan_consistent(&p, 0) && plan_ordered(&p));
        freelist_plan_free(&p);
        freelist_free(&f);
    }
}

/* Free entries hold the list themselves when they can, and a page taken
 * for the list is never left empty. */
static void test_plan_pages_from_avail(void) {
    for (uint32_t n = 1; n <= FREELIST_PER_PAGE + 2; n++) {
        uint8_t page[FORMAT_PAGE_SIZE] = {0};
        uint32_t k = n < FREELIST_PER_PAGE ? n : FREELIST_PER_PAGE;
        format_put_le(page + 4, k, 4);
        for (uint32_t i = 0; i < k; i++)
            format_put_le(page + 8 + 4 * i, 100 + i, 4);
        freelist f;
        freelist_init(&f, 50, k);
        err e = {0};
        CHECK(freelist_wanted(&f) == 50 && freelist_load_page(&f, page, PAGE_COUNT, &e) == 0);
        CHECK(f.avail.n == k && f.read.n == 1 && f.rest == 0 && f.rest_count == 0);
        for (uint32_t i = k; i < n; i++)
            CHECK(freelist_retire(&f, 9000 + i) == 0);
        freelist_plan p;
        CHECK(freelist_plan_make(&f, 7000, &p, &e) == 0);
        CHECK(plan_consistent(&p, 0) && plan_ordered(&p) && p.count == p.entries.n);
        /* everything free is listed or lists; a page is appended only at the
         * boundary where one more list page taken would be left empty */
        size_t fresh = p.next - 7000;
        CHECK(p.entries.n + p.pages.n == n + 1 + fresh);
        CHECK(fresh == (n + 1 == FREELIST_PER_PAGE + 2 ? 1u : 0u));
        CHECK(disjoint(&p.pages, &f.pending) && disjoint(&p.pages, &f.read));
        freelist_plan_free(&p);
        freelist_free(&f);
    }
}

/* A three-page chain: taking entries reads only the top page, and the
 * next plan replaces only it, chained to the unread rest. */
static void test_lazy_chain(void) {
    freelist f;
    freelist_init(&f, 0, 0);
    size_t n = 2 * FREELIST_PER_PAGE + 40;
    for (size_t i = 0; i < n; i++)
        CHECK(freelist_retire(&f, (uint32_t)(10 + i)) == 0);
    freelist_plan p;
    err e = {0};
    CHECK(freelist_plan_make(&f, 5000, &p, &e) == 0);
    uint8_t *images = malloc(3 * FORMAT_PAGE_SIZE);
    CHECK(p.pages.n == 3);
    memcpy(images, p.images, 3 * FORMAT_PAGE_SIZE);
    freelist_plan_adopt(&f, &p);
    CHECK(f.head == 5000 && f.count == n && f.read.n == 1 && f.avail.n == 40);
    CHECK(f.rest == 5001 && f.rest_count == 2 * FREELIST_PER_PAGE && !f.changed);
    uint32_t got;
    for (int i = 0; i < 45; i++) {
        if (freelist_wanted(&f) == 5001)
            CHECK(freelist_load_page(&f, images + FORMAT_PAGE_SIZE, PAGE_COUNT, &e) == 0);
        CHECK(freelist_take(&f, &got));
    }
    CHECK(f.read.n == 2 && f.rest == 5002 && f.rest_count == FREELIST_PER_PAGE);
    CHECK(freelist_retire(&f, 9000) == 0);
    CHECK(freelist_plan_make(&f, 6000, &p, &e) == 0);
    /* 1016 left + 1 pending + 2 replaced list pages: one page, from avail */
    CHECK(p.pages.n == 1 && p.next == 6000 && plan_consistent(&p, 5002) && plan_ordered(&p));
    CHECK(p.count == FREELIST_PER_PAGE - 5 + 1 + 2 - 1 + FREELIST_PER_PAGE);
    freelist_plan_adopt(&f, &p);
    CHECK(f.rest == 5002 && f.rest_count == FREELIST_PER_PAGE);
    free(images);
    freelist_free(&f);
}

static void test_bad_pages(void) {
    uint8_t page[FORMAT_PAGE_SIZE] = {0};
    struct {
        uint32_t next, n, entry;
        uint64_t claimed;
    } bad[] = {
        {0, 0, 0, 5},                         /* empty page, count left */
        {60, 0, 0, 1},                        /* empty page with a successor */
        {0, FREELIST_PER_PAGE + 1, 10, 2000}, /* too many entries */
        {0, 1, 1, 1},                         /* a header slot */
        {0, 1, PAGE_COUNT, 1},                /* past the end */
        {0, 1, 10, 2},                        /* chain ends short of the count */
        {PAGE_COUNT, 1, 10, 2},               /* next past the end */
        {1, 1, 10, 2},                        /* next a header slot */
        {0, 3, 10, 2},                        /* more entries than the count */
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        memset(page, 0, sizeof page);
        format_put_le(page, bad[i].next, 4);
        format_put_le(page + 4, bad[i].n, 4);
        for (uint32_t k = 0; k < bad[i].n && k < FREELIST_PER_PAGE; k++)
            format_put_le(page + 8 + 4 * k, bad[i].entry + (k ? 100 + k : 0), 4);
        freelist f;
        freelist_init(&f, 50, bad[i].claimed);
        err e = {0};
        CHECK(freelist_load_page(&f, page, PAGE_COUNT, &e) != 0 && e.code == ERR(STG, 8));
        CHECK(f.avail.n == 0 && f.read.n == 0 && f.rest == 50 && f.rest_count == bad[i].claimed);
        err_clear(&e);
        freelist_free(&f);
    }
}

/* A page in any order (an older writer's) is handed out lowest first. */
static void test_lowest_first(void) {
    uint8_t page[FORMAT_PAGE_SIZE] = {0};
    uint32_t entries[] = {40, 7, 90, 12, 55, 3, 70};
    size_t n = sizeof entries / sizeof *entries;
    format_put_le(page + 4, n, 4);
    for (size_t i = 0; i < n; i++)
        format_put_le(page + 8 + 4 * i, entries[i], 4);
    freelist f;
    freelist_init(&f, 50, n);
    err e = {0};
    CHECK(freelist_load_page(&f, page, PAGE_COUNT, &e) == 0);
    uint32_t got, prev = 0;
    for (size_t i = 0; i < n; i++) {
        CHECK(freelist_take(&f, &got) && got > prev);
        prev = got;
    }
    CHECK(prev == 90);
    freelist_free(&f);
}

/* The first free-list writer could end a chain with an empty page. */
static void test_empty_last_page(void) {
    uint8_t top[FORMAT_PAGE_SIZE] = {0}, empty[FORMAT_PAGE_SIZE] = {0};
    format_put_le(top, 51, 4);
    format_put_le(top + 4, 1, 4);
    format_put_le(top + 8, 70, 4);
    freelist f;
    freelist_init(&f, 50, 1);
    err e = {0};
    uint32_t got = 0;
    CHECK(freelist_load_page(&f, top, PAGE_COUNT, &e) == 0 && f.rest == 51 && f.rest_count == 0);
    CHECK(freelist_take(&f, &got) && got == 70 && freelist_wanted(&f) == 51);
    CHECK(freelist_load_page(&f, empty, PAGE_COUNT, &e) == 0 && f.rest == 0 && f.read.n == 2);
    CHECK(!freelist_take(&f, &got) && freelist_wanted(&f) == 0);
    freelist_free(&f);
}

/* The pager's writes, counted. */
static long writes;

static ssize_t count_pwrite(void *ctx, int fd, const void *src, size_t len, uint64_t off) {
    writes++;
    return vfs_posix()->pwrite(ctx, fd, src, len, off);
}

static vfs counting;

static int fill_pages(pager *p, int n, uint32_t *first, err *e) {
    for (int i = 0; i < n; i++) {
        uint32_t pgno;
        uint8_t *page;
        if (pager_alloc(p, &pgno, &page, e) != 0)
            return -1;
        if (i == 0)
            *first = pgno;
        page[0] = (uint8_t)i;
    }
    return 0;
}

/* Every page of the durable list, read through the pager: distinct, and
 * as many as the header says. */
static bool list_intact(pager *p, const format_header *h) {
    freelist f;
    freelist_init(&f, h->freelist, h->free_count);
    uint8_t page[FORMAT_PAGE_SIZE];
    err e = {0};
    bool ok = true;
    while (ok && f.rest != 0) {
        ok = pager_read(p, PAGER_LATEST, f.rest, page, &e) == 0 &&
             freelist_load_page(&f, page, (uint32_t)h->page_count, &e) == 0;
    }
    uint8_t *seen = calloc(h->page_count, 1);
    for (size_t i = 0; ok && i < f.avail.n; i++)
        ok = !seen[f.avail.v[i]]++;
    for (size_t i = 0; ok && i < f.read.n; i++)
        ok = !seen[f.read.v[i]]++; /* a list page is not listed as free */
    ok = ok && f.avail.n == h->free_count;
    free(seen);
    freelist_free(&f);
    err_clear(&e);
    return ok;
}

static void test_small_checkpoint_over_long_list(void) {
    char dir[] = "/tmp/mg_freelist_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[300];
    snprintf(path, sizeof path, "%s/f.graph", dir);
    pager *p = NULL;
    format_header h;
    err e = {0};
    uint32_t first = 0, kept = 0;
    int n = 3 * (int)FREELIST_PER_PAGE;
    CHECK(pager_open_file(path, false, false, 64, &p, &h, &e) == 0);
    CHECK(fill_pages(p, n, &first, &e) == 0 && pager_checkpoint(p, &h, &e) == 0);
    for (int i = 0; i < n; i++) /* copy-on-write replaced them all */
        CHECK(pager_retire(p, first + (uint32_t)i, &e) == 0);
    CHECK(fill_pages(p, 10, &kept, &e) == 0 && pager_checkpoint(p, &h, &e) == 0);
    CHECK(h.free_count == (uint64_t)n && list_intact(p, &h));
    pager_close(p);

    counting = *vfs_posix();
    counting.pwrite = count_pwrite;
    vfs_set_default(&counting);
    CHECK(pager_open_file(path, false, false, 64, &p, &h, &e) == 0);
    uint32_t reused;
    CHECK(fill_pages(p, 1, &reused, &e) == 0 && reused >= first && reused < first + (uint32_t)n);
    CHECK(pager_retire(p, kept, &e) == 0);
    writes = 0;
    CHECK(pager_checkpoint(p, &h, &e) == 0);
    CHECK(writes >= 3 && writes <= 4); /* the page, one or two list pages, the header */
    CHECK(h.free_count == (uint64_t)n && list_intact(p, &h));
    pager_close(p);
    vfs_set_default(NULL);

    CHECK(pager_open_file(path, false, false, 64, &p, &h, &e) == 0);
    CHECK(h.free_count == (uint64_t)n && list_intact(p, &h));
    pager_close(p);
    err_clear(&e);
    unlink(path);
    rmdir(dir);
}

/* A list page that disagrees with the header (resealed, so its checksum
 * holds) fails the first allocation that reads it, and every retry. */
static void test_corrupt_list_fails_the_write(void) {
    char dir[] = "/tmp/mg_freelist_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[300];
    snprintf(path, sizeof path, "%s/c.graph", dir);
    pager *p = NULL;
    format_header h;
    err e = {0};
    uint32_t first = 0, kept = 0;
    CHECK(pager_open_file(path, false, false, 64, &p, &h, &e) == 0);
    CHECK(fill_pages(p, 50, &first, &e) == 0 && pager_checkpoint(p, &h, &e) == 0);
    for (uint32_t i = 0; i < 50; i++)
        CHECK(pager_retire(p, first + i, &e) == 0);
    CHECK(fill_pages(p, 1, &kept, &e) == 0 && pager_checkpoint(p, &h, &e) == 0);
    uint32_t head = h.freelist;
    pager_close(p);
    CHECK(head != 0 && h.free_count == 50);
    FILE *f = fopen(path, "r+b");
    uint8_t page[FORMAT_PAGE_SIZE];
    CHECK(f && fseek(f, (long)head * FORMAT_PAGE_SIZE, SEEK_SET) == 0 &&
          fread(page, 1, sizeof page, f) == sizeof page);
    format_put_le(page + 4, 49, 4); /* one entry fewer than the header counts */
    format_seal_page(page, head);
    CHECK(f && fseek(f, (long)head * FORMAT_PAGE_SIZE, SEEK_SET) == 0 &&
          fwrite(page, 1, sizeof page, f) == sizeof page);
    if (f)
        fclose(f);
    CHECK(pager_open_file(path, false, false, 64, &p, &h, &e) == 0); /* reads no list page */
    uint32_t pgno;
    uint8_t *dirty;
    for (int i = 0; i < 2; i++) {
        CHECK(pager_alloc(p, &pgno, &dirty, &e) == ERR(STG, 8));
        err_clear(&e);
    }
    pager_close(p);
    unlink(path);
    rmdir(dir);
}

int main(void) {
    test_plan_from_pending();
    test_plan_pages_from_avail();
    test_lazy_chain();
    test_bad_pages();
    test_empty_last_page();
    test_lowest_first();
    test_small_checkpoint_over_long_list();
    test_corrupt_list_fails_the_write();
    return CHECK_DONE();
}
