/* New database files created by several threads at once, through the
 * pager itself (the store's share mutex serialises opens above it, which
 * once hid that the pager built a new file's header pages in one static
 * buffer). Run under ThreadSanitizer by scripts/test.sh: a buffer shared
 * between the threads is reported as a data race there. Every file must
 * come out as a valid empty database with its own identity. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "storage/format.h"
#include "storage/pager.h"

#define THREADS 6
#define ROUNDS 8

static char dir[] = "/tmp/mg_pagerthreads_XXXXXX";
static pthread_barrier_t start;

typedef struct creator {
    int index;
    int created;                            /* files that opened as new, empty databases */
    uint8_t ids[ROUNDS][FORMAT_DB_ID_SIZE]; /* the identity each file got */
} creator;

static void *create_files(void *arg) {
    creator *c = arg;
    for (int round = 0; round < ROUNDS; round++) {
        char path[128];
        snprintf(path, sizeof path, "%s/t%d-r%d.graph", dir, c->index, round);
        pthread_barrier_wait(&start); /* every thread creates its file at once */
        pager *p = NULL;
        format_header h;
        err e = {0};
        if (pager_open_file(path, false, false, 16, &p, &h, &e) == 0 && h.generation == 1 &&
            h.page_count == FORMAT_FIRST_DATA_PAGE && format_has_db_id(h.db_id)) {
            memcpy(c->ids[round], h.db_id, FORMAT_DB_ID_SIZE);
            c->created++;
        }
        err_clear(&e);
        pager_close(p);
    }
    return NULL;
}

/* Reopening reads back the header each thread wrote. */
static bool reopens_with(const char *path, const uint8_t *id) {
    pager *p = NULL;
    format_header h;
    err e = {0};
    bool ok = pager_open_file(path, true, false, 16, &p, &h, &e) == 0 &&
              memcmp(h.db_id, id, FORMAT_DB_ID_SIZE) == 0;
    err_clear(&e);
    pager_close(p);
    return ok;
}

int main(void) {
    if (!mkdtemp(dir) || pthread_barrier_init(&start, NULL, THREADS) != 0)
        return 1;
    static creator c[THREADS];
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++) {
        c[i].index = i;
        CHECK(pthread_create(&t[i], NULL, create_files, &c[i]) == 0);
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < THREADS; i++) {
        CHECK(c[i].created == ROUNDS);
        for (int r = 0; r < ROUNDS; r++) {
            char path[128];
            snprintf(path, sizeof path, "%s/t%d-r%d.graph", dir, i, r);
            CHECK(reopens_with(path, c[i].ids[r]));
            CHECK(i == 0 || memcmp(c[i].ids[r], c[0].ids[r], FORMAT_DB_ID_SIZE) != 0);
        }
    }
    pthread_barrier_destroy(&start);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return CHECK_DONE();
}
