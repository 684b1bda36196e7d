#include "storage/store_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct store_lock {
    dev_t dev;
    ino_t ino;
    store_lock *next;
};

/* POSIX record locks belong to the process, not the descriptor (closing
 * any descriptor of the file drops them), so the registry is what keeps
 * two handles in one process apart. */
static pthread_mutex_t registry_mutex = PTHREAD_MUTEX_INITIALIZER;
static store_lock *registry;

/* A forked child holds none of its parent's locks: it starts with an empty
 * registry (entries stay owned by the copied stores, which free them). */
static void forget_in_child(void) {
    registry = NULL;
    pthread_mutex_init(&registry_mutex, NULL); /* another thread may have held it at the fork */
}

static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

static void install_atfork(void) {
    pthread_atfork(NULL, NULL, forget_in_child);
}

static bool registered(dev_t dev, ino_t ino) {
    for (const store_lock *l = registry; l; l = l->next)
        if (l->dev == dev && l->ino == ino)
            return true;
    return false;
}

static int lock_file(int fd, bool read_only, bool allow_unlocked, const char *path, err *e) {
    struct flock fl;
    memset(&fl, 0, sizeof fl);
    fl.l_type = read_only ? F_RDLCK : F_WRLCK;
    fl.l_whence = SEEK_SET;
    while (fcntl(fd, F_SETLK, &fl) != 0) {
        if (errno == EINTR)
            continue;
        if (errno == EACCES || errno == EAGAIN)
            return err_set(e, ERR(STG, 26), "database file is locked by another process: %s", path);
        if (allow_unlocked)
            return 0;
        return err_set(e, ERR(STG, 27), "the filesystem cannot lock %s: %s", path, strerror(errno));
    }
    return 0;
}

static int already_open(const char *path, err *e) {
    return err_set(e, ERR(STG, 25), "database file is already open in this process: %s", path);
}

/* Under the registry mutex, so no other thread registers in between. */
static int open_and_claim(const char *path, bool read_only, bool allow_unlocked, int *fd,
                          store_lock *l, err *e) {
    struct stat st;
    if (stat(path, &st) == 0 && registered(st.st_dev, st.st_ino))
        return already_open(path, e);
    int flags = read_only ? O_RDONLY | O_CLOEXEC : O_RDWR | O_CREAT | O_CLOEXEC;
    int f = open(path, flags, 0644);
    if (f < 0)
        return err_set(e, ERR(STG, 10), "open failed for %s: %s", path, strerror(errno));
    int rc = fstat(f, &st) != 0
                 ? err_set(e, ERR(STG, 15), "stat failed for %s: %s", path, strerror(errno))
             : registered(st.st_dev, st.st_ino)
                 ? already_open(path, e) /* path replaced meanwhile */
                 : lock_file(f, read_only, allow_unlocked, path, e);
    if (rc != 0) {
        close(f);
        return rc;
    }
    l->dev = st.st_dev;
    l->ino = st.st_ino;
    l->next = registry;
    registry = l;
    *fd = f;
    return 0;
}

int store_lock_open(const char *path, bool read_only, bool allow_unlocked, int *fd,
                    store_lock **out, err *e) {
    store_lock *l = calloc(1, sizeof *l);
    if (!l)
        return err_set(e, ERR(INT, 0), "out of memory");
    pthread_once(&atfork_once, install_atfork);
    pthread_mutex_lock(&registry_mutex);
    int rc = open_and_claim(path, read_only, allow_unlocked, fd, l, e);
    pthread_mutex_unlock(&registry_mutex);
    if (rc != 0) {
        free(l);
        return rc;
    }
    *out = l;
    return 0;
}

void store_lock_release(store_lock *l) {
    if (!l)
        return;
    pthread_mutex_lock(&registry_mutex);
    for (store_lock **p = &registry; *p; p = &(*p)->next) {
        if (*p == l) {
            *p = l->next;
            break;
        }
    }
    pthread_mutex_unlock(&registry_mutex);
    free(l);
}
