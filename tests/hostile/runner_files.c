/* runner_files.c — what the hostile runner does to files: copy, damage,
 * size, clean up. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runner.h"

int hostile_copy(const char *from, const char *to) {
    FILE *in = fopen(from, "rb");
    if (in == NULL) {
        unlink(to);
        return 0;
    }
    FILE *out = fopen(to, "wb");
    if (out == NULL) {
        fclose(in);
        return -1;
    }
    char buf[65536];
    size_t n;
    int rc = 0;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        if (fwrite(buf, 1, n, out) != n)
            rc = -1;
    fclose(in);
    return fclose(out) != 0 ? -1 : rc;
}

long long hostile_file_size(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

static long long number(const jv *step, const char *key, long long fallback) {
    const jv *v = jv_get(step, key);
    return v && v->kind == JV_NUMBER ? strtoll(v->text, NULL, 10) : fallback;
}

int hostile_damage(const char *path, const jv *step) {
    const jv *how = jv_get(step, "damage");
    long long offset = number(step, "offset", 0), size = hostile_file_size(path);
    if (how == NULL || how->kind != JV_STRING || size < 0)
        return -1;
    if (offset < 0) /* from the end */
        offset += size;
    if (strcmp(how->text, "truncate") == 0)
        return truncate(path, offset);
    int fd = open(path, O_RDWR);
    if (fd < 0)
        return -1;
    int rc = -1;
    if (strcmp(how->text, "zero") == 0) {
        long long length = number(step, "length", size - offset);
        char *zeros = calloc(1, length > 0 ? (size_t)length : 1);
        rc = length >= 0 && pwrite(fd, zeros, (size_t)length, offset) == length ? 0 : -1;
        free(zeros);
    } else if (strcmp(how->text, "flip") == 0 && offset < size) {
        unsigned char c;
        long long bit = number(step, "bit", 0);
        if (pread(fd, &c, 1, offset) == 1) {
            c ^= (unsigned char)(1u << (bit & 7));
            rc = pwrite(fd, &c, 1, offset) == 1 ? 0 : -1;
        }
    }
    close(fd);
    return rc;
}

void hostile_remove_dir(const char *dir) {
    DIR *d = opendir(dir);
    if (d == NULL)
        return;
    struct dirent *e;
    char path[600];
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
            chmod(path, 0700);
            hostile_remove_dir(path);
        } else {
            unlink(path);
        }
    }
    closedir(d);
    rmdir(dir);
}
