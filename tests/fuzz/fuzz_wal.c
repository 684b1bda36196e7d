/* libFuzzer target: the WAL header and frame decoders and the replay of
 * frame payloads, by opening a fixed database file (wal_base.graph beside
 * this source) with a fuzzed `<file>.wal`.
 *
 * The input's first byte is a set of flags, the rest the WAL: bit 0
 * reseals it (the header's database id set to the file's and its CRC,
 * then every whole frame's CRC, as the writer computes them), so
 * mutations reach the payload decoder; bit 1 opens read-only; bit 2 asks
 * to recover ("recover": "truncate_wal"). Invariants as fuzz_file. */
#include "base/crc32.h"
#include "fuzz_open.h"
#include "storage/format.h"
#include "storage/wal.h"

static uint8_t *base_file;
static size_t base_size;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    FILE *f = fopen(MINIGRAF_FUZZ_WAL_BASE, "rb");
    if (f == NULL)
        fuzz_die("cannot read the base file", MINIGRAF_FUZZ_WAL_BASE, NULL);
    base_file = malloc(1 << 20);
    base_size = fread(base_file, 1, 1 << 20, f);
    fclose(f);
    if (base_size < 2 * FORMAT_PAGE_SIZE)
        fuzz_die("the base file is too short", MINIGRAF_FUZZ_WAL_BASE, NULL);
    return 0;
}

static void reseal(uint8_t *w, size_t size) {
    if (size < WAL_HEADER_SIZE)
        return;
    const uint8_t *id = base_file + FORMAT_DB_ID_OFFSET;
    memcpy(w + 24, id, FORMAT_DB_ID_SIZE);
    format_put_le(w + 40, crc32_update(0, w, 40), 4);
    for (size_t at = WAL_HEADER_SIZE; at + WAL_FRAME_HEADER <= size;) {
        uint8_t *h = w + at;
        uint64_t len = format_get_le(h, 4);
        if (len > size - at - WAL_FRAME_HEADER)
            break;
        uint32_t c = crc32_update(0, id, FORMAT_DB_ID_SIZE);
        c = crc32_update(c, h, 4);
        c = crc32_update(c, h + 8, WAL_FRAME_HEADER - 8);
        c = crc32_update(c, h + WAL_FRAME_HEADER, (size_t)len);
        format_put_le(h + 4, c, 4);
        at += WAL_FRAME_HEADER + (size_t)len;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0)
        return 0;
    int flags = data[0];
    size--;
    uint8_t *log = malloc(size ? size : 1);
    if (log == NULL)
        return 0;
    memcpy(log, data + 1, size);
    if (flags & 1)
        reseal(log, size);
    const char *path = fuzz_path("wal.graph");
    fuzz_remove_db(path);
    fuzz_write_file(path, base_file, base_size);
    char wal_path[200];
    snprintf(wal_path, sizeof wal_path, "%s.wal", path);
    fuzz_write_file(wal_path, log, size);
    free(log);
    fuzz_open_and_use(path, flags & 2, flags & 4);
    fuzz_remove_db(path);
    return 0;
}
