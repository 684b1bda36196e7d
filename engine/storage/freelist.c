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

void freelist_init(freelist *f, uint32_t head, uint64_t count) {
    memset(f, 0, sizeof *f);
    f->head = head;
    f->count = count;
    f->loaded = head == 0;
}

void freelist_free(freelist *f) {
    pgvec_free(&f->avail);
    pgvec_free(&f->pending);
    pgvec_free(&f->pages);
}

static int corrupt(err *e, uint32_t pgno) {
    return err_set(e, ERR(STG, 8), "corrupt free-list page %u", (unsigned)pgno);
}

int freelist_load_page(freelist *f, const uint8_t *page, uint32_t pgno, uint32_t page_count,
                       uint32_t *next, err *e) {
    *next = (uint32_t)format_get_le(page, 4);
    size_t n = (size_t)format_get_le(page + 4, 4);
    if (n > FREELIST_PER_PAGE || *next >= page_count || f->pages.n >= page_count)
        return corrupt(e, pgno);
    if (pgvec_push(&f->pages, pgno) != 0)
        return err_set(e, ERR(INT, 0), "out of memory");
    for (size_t i = 0; i < n; i++) {
        uint32_t free_page = (uint32_t)format_get_le(page + 8 + 4 * i, 4);
        if (free_page < FORMAT_FIRST_DATA_PAGE || free_page >= page_count)
            return corrupt(e, pgno);
        if (pgvec_push(&f->avail, free_page) != 0)
            return err_set(e, ERR(INT, 0), "out of memory");
    }
    return 0;
}

static size_t pages_for(size_t entries) {
    return (entries + FREELIST_PER_PAGE - 1) / FREELIST_PER_PAGE;
}

/* Fills plan->images: the entries spread over the list pages, chained in
 * order. */
static int encode(freelist_plan *plan, err *e) {
    plan->images = calloc(plan->pages.n ? plan->pages.n : 1, FORMAT_PAGE_SIZE);
    if (!plan->images)
        return err_set(e, ERR(INT, 0), "out of memory");
    size_t at = 0;
    for (size_t i = 0; i < plan->pages.n; i++) {
        uint8_t *img = plan->images + i * FORMAT_PAGE_SIZE;
        size_t n = plan->entries.n - at < FREELIST_PER_PAGE ? plan->entries.n - at
                                                            : FREELIST_PER_PAGE;
        format_put_le(img, i + 1 < plan->pages.n ? plan->pages.v[i + 1] : 0, 4);
        format_put_le(img + 4, n, 4);
        for (size_t k = 0; k < n; k++)
            format_put_le(img + 8 + 4 * k, plan->entries.v[at + k], 4);
        at += n;
        format_seal_page(img, plan->pages.v[i]);
    }
    return 0;
}

int freelist_plan_make(const freelist *f, uint32_t next, freelist_plan *plan, err *e) {
    memset(plan, 0, sizeof *plan);
    plan->next = next;
    size_t total = f->avail.n + f->pending.n + f->pages.n;
    /* List pages come from the end of avail while that shrinks the list
     * enough; the rest are appended to the file. */
    size_t t = 0;
    while (t < f->avail.n && pages_for(total - t) > t)
        t++;
    size_t fresh = pages_for(total - t) > t ? pages_for(total - t) - t : 0;
    if ((uint64_t)next + fresh >= UINT32_MAX)
        return err_set(e, ERR(STG, 17), "database file would exceed 2^32 pages");
    int rc = append_all(&plan->entries, f->avail.v, f->avail.n - t);
    rc = rc ? rc : append_all(&plan->entries, f->pending.v, f->pending.n);
    rc = rc ? rc : append_all(&plan->entries, f->pages.v, f->pages.n);
    rc = rc ? rc : append_all(&plan->pages, f->avail.v + f->avail.n - t, t);
    for (size_t i = 0; i < fresh && rc == 0; i++)
        rc = pgvec_push(&plan->pages, plan->next++);
    if (rc != 0) {
        freelist_plan_free(plan);
        return err_set(e, ERR(INT, 0), "out of memory");
    }
    rc = encode(plan, e);
    if (rc != 0)
        freelist_plan_free(plan);
    return rc;
}

void freelist_plan_free(freelist_plan *plan) {
    pgvec_free(&plan->entries);
    pgvec_free(&plan->pages);
    free(plan->images);
    plan->images = NULL;
}

void freelist_plan_adopt(freelist *f, freelist_plan *plan) {
    freelist_free(f);
    f->avail = plan->entries;
    f->pages = plan->pages;
    f->head = f->pages.n ? f->pages.v[0] : 0;
    f->count = f->avail.n;
    f->loaded = true;
    f->changed = false;
    free(plan->images);
    memset(plan, 0, sizeof *plan);
}
