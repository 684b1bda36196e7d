#include "storage/freelist.h"

#include <stdlib.h>
#include <string.h>

#include "storage/format.h"

int pgvec_push(pgvec *v, uint32_t pgno) {
    if (v->n == v->cap) {
        size_t cap = v->cap ? v->cap * 2 : 64;
        uint32_t *grown = realloc(v->v, cap * sizeof *grown);
        if (!grown)
            return -1;
        v->v = grown;
        v->cap = cap;
    }
    v->v[v->n++] = pgno;
    return 0;
}

void pgvec_free(pgvec *v) {
    free(v->v);
    memset(v, 0, sizeof *v);
}

static int append_all(pgvec *dst, const uint32_t *src, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (pgvec_push(dst, src[i]) != 0)
            return -1;
    return 0;
}

static int oom(err *e) {
    return err_set(e, ERR(INT, 0), "out of memory");
}

void freelist_init(freelist *f, uint32_t head, uint64_t count) {
    memset(f, 0, sizeof *f);
    f->head = f->rest = head;
    f->count = f->rest_count = count;
}

void freelist_free(freelist *f) {
    pgvec_free(&f->read);
    pgvec_free(&f->avail);
    pgvec_free(&f->pending);
}

uint32_t freelist_wanted(const freelist *f) {
    return f->avail.n == 0 ? f->rest : 0;
}

/* Free pages are handed out lowest first: a small checkpoint then writes
 * pages close together (one sync of scattered pages cost about twice as
 * much across a 500 MB file as within a few MB), and the copies of the
 * pages it replaces gather at the low end of the file. */
static int cmp_desc(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* Sorts v[0..n) descending: the longest descending prefix (the free pages
 * read so far, or a page this writer wrote) is kept, the rest (the few
 * pages a checkpoint adds) sorted and merged in. -1 when out of memory. */
static int sort_desc(uint32_t *v, size_t n) {
    size_t k = 1;
    while (k < n && v[k - 1] >= v[k])
        k++;
    if (k >= n)
        return 0;
    qsort(v + k, n - k, sizeof *v, cmp_desc);
    uint32_t *tmp = malloc(n * sizeof *tmp);
    if (!tmp)
        return -1;
    size_t a = 0, b = k, out = 0;
    while (a < k || b < n)
        tmp[out++] = b == n || (a < k && v[a] >= v[b]) ? v[a++] : v[b++];
    memcpy(v, tmp, n * sizeof *v);
    free(tmp);
    return 0;
}

static int corrupt(err *e, uint32_t pgno) {
    return err_set(e, ERR(STG, 8), "corrupt free-list page %u", (unsigned)pgno);
}

/* Every page but the last holds at least one entry, so the entries left
 * below it shrink with each page read and a cyclic chain cannot loop. (The
 * first free-list writer could end a chain with an empty page, after a
 * page that holds the last entries.) */
static bool page_fits(const freelist *f, const uint8_t *page, uint32_t page_count) {
    uint32_t next = (uint32_t)format_get_le(page, 4);
    uint64_t n = format_get_le(page + 4, 4);
    if (n > FREELIST_PER_PAGE || n > f->rest_count || next >= page_count ||
        (next != 0 && next < FORMAT_FIRST_DATA_PAGE) || (n == 0 && next != 0) ||
        (next == 0 && n != f->rest_count))
        return false;
    for (size_t i = 0; i < n; i++) {
        uint32_t pgno = (uint32_t)format_get_le(page + 8 + 4 * i, 4);
        if (pgno < FORMAT_FIRST_DATA_PAGE || pgno >= page_count)
            return false;
    }
    return true;
}

int freelist_load_page(freelist *f, const uint8_t *page, uint32_t page_count, err *e) {
    if (!page_fits(f, page, page_count))
        return corrupt(e, f->rest);
    size_t n = (size_t)format_get_le(page + 4, 4), had_read = f->read.n, had = f->avail.n;
    int rc = pgvec_push(&f->read, f->rest);
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = pgvec_push(&f->avail, (uint32_t)format_get_le(page + 8 + 4 * i, 4));
    if (rc == 0) /* no-op on pages this writer wrote */
        rc = sort_desc(f->avail.v + had, n);
    if (rc != 0) {
        f->read.n = had_read;
        f->avail.n = had;
        return oom(e);
    }
    f->rest = (uint32_t)format_get_le(page, 4);
    f->rest_count -= n;
    return 0;
}

bool freelist_take(freelist *f, uint32_t *pgno) {
    if (f->avail.n == 0)
        return false;
    *pgno = f->avail.v[--f->avail.n];
    f->changed = true;
    return true;
}

int freelist_retire(freelist *f, uint32_t pgno) {
    if (pgvec_push(&f->pending, pgno) != 0)
        return -1;
    f->changed = true;
    return 0;
}

static size_t pages_for(size_t entries) {
    return (entries + FREELIST_PER_PAGE - 1) / FREELIST_PER_PAGE;
}

/* Entries on the top page: what is left over the full pages below it, so
 * that the page the next checkpoint rewrites is the small one. */
static size_t top_entries(const freelist_plan *plan) {
    return plan->entries.n - (plan->pages.n - 1) * FREELIST_PER_PAGE;
}

static void reverse(uint32_t *v, size_t n) {
    for (size_t i = 0; i < n / 2; i++) {
        uint32_t x = v[i];
        v[i] = v[n - 1 - i];
        v[n - 1 - i] = x;
    }
}

/* Orders the entries for encoding: the lowest on the top page, the next
 * lowest on the page below, and so on, each page highest first (taking
 * from the end of a page gives its lowest entry). */
static int order_entries(freelist_plan *plan) {
    uint32_t *v = plan->entries.v;
    size_t n = plan->entries.n, top = top_entries(plan);
    if (sort_desc(v, n) != 0)
        return -1;
    reverse(v, n);
    for (size_t at = 0; at < n; at += at ? FREELIST_PER_PAGE : top)
        reverse(v + at, at ? FREELIST_PER_PAGE : top);
    return 0;
}

/* Fills plan->images: the entries over the new pages, chained in order,
 * the last one to the unread rest of the old chain. */
static int encode(freelist_plan *plan, uint32_t rest, err *e) {
    plan->images = calloc(plan->pages.n ? plan->pages.n : 1, FORMAT_PAGE_SIZE);
    if (!plan->images)
        return oom(e);
    size_t at = 0;
    for (size_t i = 0; i < plan->pages.n; i++) {
        uint8_t *img = plan->images + i * FORMAT_PAGE_SIZE;
        size_t n = i == 0 ? top_entries(plan) : FREELIST_PER_PAGE;
        format_put_le(img, i + 1 < plan->pages.n ? plan->pages.v[i + 1] : rest, 4);
        format_put_le(img + 4, n, 4);
        for (size_t k = 0; k < n; k++)
            format_put_le(img + 8 + 4 * k, plan->entries.v[at + k], 4);
        at += n;
        format_seal_page(img, plan->pages.v[i]);
    }
    return 0;
}

/* The new list pages: `t` taken from the end of avail as long as each one
 * taken is still needed to hold what remains (every page keeps at least
 * one entry), the rest appended to the file. */
static int place_pages(const freelist *f, size_t total, freelist_plan *plan, err *e) {
    size_t t = 0;
    while (t < f->avail.n && pages_for(total - t - 1) >= t + 1)
        t++;
    size_t fresh = pages_for(total - t) - t;
    if ((uint64_t)plan->next + fresh >= UINT32_MAX)
        return err_set(e, ERR(STG, 17), "database file would exceed 2^32 pages");
    int rc = append_all(&plan->entries, f->avail.v, f->avail.n - t);
    rc = rc ? rc : append_all(&plan->entries, f->pending.v, f->pending.n);
    rc = rc ? rc : append_all(&plan->entries, f->read.v, f->read.n);
    if (t > 0) /* avail.v may be NULL: no pointer arithmetic on it then */
        rc = rc ? rc : append_all(&plan->pages, f->avail.v + f->avail.n - t, t);
    for (size_t i = 0; i < fresh && rc == 0; i++)
        rc = pgvec_push(&plan->pages, plan->next++);
    return rc != 0 ? oom(e) : 0;
}

int freelist_plan_make(const freelist *f, uint32_t next, freelist_plan *plan, err *e) {
    memset(plan, 0, sizeof *plan);
    plan->next = next;
    int rc = place_pages(f, f->avail.n + f->pending.n + f->read.n, plan, e);
    if (rc == 0 && plan->pages.n > 0) {
        rc = order_entries(plan) != 0 ? oom(e) : encode(plan, f->rest, e);
    }
    if (rc != 0) {
        freelist_plan_free(plan);
        return rc;
    }
    plan->head = plan->pages.n ? plan->pages.v[0] : f->rest;
    plan->count = plan->entries.n + f->rest_count;
    return 0;
}

void freelist_plan_free(freelist_plan *plan) {
    pgvec_free(&plan->entries);
    pgvec_free(&plan->pages);
    free(plan->images);
    plan->images = NULL;
}

/* In memory only the new top page counts as read: the pages below it are
 * read again (from the page cache) when allocations get there, so the
 * next checkpoint rewrites only what it takes from. */
void freelist_plan_adopt(freelist *f, freelist_plan *plan) {
    pgvec_free(&f->read);
    pgvec_free(&f->pending);
    pgvec_free(&f->avail);
    f->head = plan->head;
    f->count = plan->count;
    f->changed = false;
    if (plan->pages.n == 0) {
        f->rest = plan->head;
        f->rest_count = plan->count;
        freelist_plan_free(plan);
        return;
    }
    size_t top = top_entries(plan);
    f->avail = plan->entries;
    f->avail.n = top;
    f->read = plan->pages;
    f->read.n = 1;
    f->rest = (uint32_t)format_get_le(plan->images, 4); /* the top page's successor */
    f->rest_count = plan->count - top;
    free(plan->images);
    memset(plan, 0, sizeof *plan);
}
