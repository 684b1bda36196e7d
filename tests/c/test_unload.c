/* The shared library unloaded (dlclose) while a thread that used it lives
 * on: the thread's later exit must not call into the unmapped library
 * (each thread keeps spare memory blocks, freed when it exits). The
 * library is loaded by path, as a plugin host would. */
#include <dlfcn.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>

typedef struct library {
    void *(*open_in_memory)(void);
    void *(*query)(void *db, const char *text);
    void (*cursor_free)(void *cursor);
    void (*close)(void *db);
} library;

static library lib;
static sem_t used, unloaded;
static int queried;

/* Runs a query (its arenas' blocks stay with this thread), then waits
 * until the library is gone before exiting. */
static void *use_then_outlive(void *arg) {
    (void)arg;
    void *db = lib.open_in_memory();
    void *cursor = db ? lib.query(db, "(query [:find ?a :where [:p1 :age ?a]])") : NULL;
    queried = cursor != NULL;
    lib.cursor_free(cursor);
    lib.close(db);
    sem_post(&used);
    sem_wait(&unloaded);
    return NULL;
}

static int load(void *h) {
    *(void **)&lib.open_in_memory = dlsym(h, "minigraf_open_in_memory");
    *(void **)&lib.query = dlsym(h, "minigraf_query");
    *(void **)&lib.cursor_free = dlsym(h, "minigraf_cursor_free");
    *(void **)&lib.close = dlsym(h, "minigraf_close");
    return lib.open_in_memory && lib.query && lib.cursor_free && lib.close;
}

int main(int argc, char **argv) {
    void *h = argc == 2 ? dlopen(argv[1], RTLD_NOW | RTLD_LOCAL) : NULL;
    if (!h || !load(h)) {
        fprintf(stderr, "cannot load the library: %s\n", h ? "missing symbols" : dlerror());
        return 1;
    }
    sem_init(&used, 0, 0);
    sem_init(&unloaded, 0, 0);
    pthread_t t;
    if (pthread_create(&t, NULL, use_then_outlive, NULL) != 0)
        return 1;
    sem_wait(&used);
    int closed = dlclose(h);
    sem_post(&unloaded);
    pthread_join(t, NULL); /* a crash here is the failure */
    printf("%s\n", queried && closed == 0 ? "1 passed, 0 failed" : "0 passed, 1 failed");
    return queried && closed == 0 ? 0 : 1;
}
