/* Database identifiers (format.h): 16 random bytes written into the
 * header at creation. They only need to differ between databases, not to
 * be secret, so when the system's random source is unavailable the time,
 * the process and an address are mixed instead. */
#include <fcntl.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include "base/hash.h"
#include "storage/format.h"

static bool read_urandom(uint8_t *id) {
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    size_t got = 0;
    while (got < FORMAT_DB_ID_SIZE) {
        ssize_t n = read(fd, id + got, FORMAT_DB_ID_SIZE - got);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    return got == FORMAT_DB_ID_SIZE;
}

static void fallback_id(uint8_t *id) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    static uint64_t counter;
    uint64_t a = hash_mix((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec);
    uint64_t b = hash_mix((uint64_t)getpid() ^ (uint64_t)(uintptr_t)&ts ^ ++counter ^ a);
    format_put_le(id, a, 8);
    format_put_le(id + 8, b, 8);
}

bool format_has_db_id(const uint8_t id[FORMAT_DB_ID_SIZE]) {
    for (int i = 0; i < FORMAT_DB_ID_SIZE; i++)
        if (id[i])
            return true;
    return false;
}

void format_new_db_id(uint8_t id[FORMAT_DB_ID_SIZE]) {
    if (!read_urandom(id))
        fallback_id(id);
    if (!format_has_db_id(id))
        id[0] = 1;
}
