/* libFuzzer target: the header and page decoders, by opening a fuzzed
 * database file (no WAL) read-write or read-only.
 *
 * The input is the file. When its size is a whole number of pages plus
 * one byte, that last byte is a set of flags and not part of the file:
 * bit 0 reseals every page (rewrites its CRC-32 and page number, as a
 * writer would), so mutations reach the decoders behind the checksums;
 * bit 1 opens read-only. Invariants: no crash, leak or UB; every failure
 * is coded; an opened file answers every read or fails coded; a
 * transaction acknowledged on it is there after checkpoint and reopen. */
#include "fuzz_open.h"
#include "storage/format.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    int flags = 0;
    if (size % FORMAT_PAGE_SIZE == 1)
        flags = data[--size];
    uint8_t *file = malloc(size ? size : 1);
    if (file == NULL)
        return 0;
    memcpy(file, data, size);
    if (flags & 1)
        for (size_t p = 0; p + FORMAT_PAGE_SIZE <= size; p += FORMAT_PAGE_SIZE)
            format_seal_page(file + p, (uint32_t)(p / FORMAT_PAGE_SIZE));
    const char *path = fuzz_path("file.graph");
    fuzz_remove_db(path);
    fuzz_write_file(path, file, size);
    free(file);
    fuzz_open_and_use(path, flags & 2, 0);
    fuzz_remove_db(path);
    return 0;
}
