/*
 * packed.c — a batch of typed rows handed to JS as one ArrayBuffer and
 * one string, so that making a row costs no Node-API call per value.
 *
 * Node-API has no cheap way to fill a JS array: each napi_set_element goes
 * through V8's generic property store (~60 ns), a typed array made through
 * it costs ~150 ns, and each Keyword or Entity would be one more call into
 * JS. So one batch is an array of two or three values —
 *   [buffer, texts?, names?]
 *   buffer  ArrayBuffer, read as 32-bit words from its start:
 *             [0] nrows, [1] ncols, [2] MG_PACK_* bits (which parts
 *             follow), [3] 0;
 *             then per cell its MINIGRAF_TYPE_*, or MG_TYPE_WIDE_INTEGER
 *             for an INTEGER beyond 2^53 - 1 in magnitude (row-major);
 *             with MG_PACK_TEXT, per cell the start and length of its
 *             text in the texts joined (UTF-16 units, as
 *             String.prototype.slice counts);
 *           then, at the next multiple of 8 bytes, with MG_PACK_NUMS the
 *           FLOAT, BOOLEAN (0/1) and INTEGER cells as doubles, and after
 *           them with MG_PACK_INTS the INTEGER cells exactly as int64
 *           (when the batch has integers and MG_ROWS_BIGINT is set or one
 *           is wide)
 *   texts   string | string[]  every STRING, KEYWORD, LIST (its typed JSON)
 *           and REF (its UUID text) cell's text, one after another, in
 *           pieces cut between cells (below): the string itself when
 *           there is one piece; a hole when the batch has no text
 *   names   the :find headers of object rows (stmt.c)
 * — and index.js (Cells) makes the typed-array views itself, where the JIT
 * makes them cheaply, and builds the rows with its own loop. A small batch
 * too: rows made here cost two Node-API calls a row and one a value, and
 * each Keyword, Entity or list a call into JS (~0.25 µs).
 */
#include "addon.h"

#include <stdlib.h>
#include <string.h>

#define MG_MAX_SAFE 9007199254740991LL /* 2^53 - 1 */
#define MG_TYPE_WIDE_INTEGER 8
#define MG_PACK_HEADER 4 /* words before the types */
#define MG_PACK_NUMS 1
#define MG_PACK_INTS 2
#define MG_PACK_TEXT 4

/* UTF-16 units of `len` bytes of UTF-8 (valid, as the library gives it). */
static uint32_t utf16_units(const unsigned char *s, size_t len) {
    uint32_t units = 0;
    for (size_t i = 0; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            units++;
        if (s[i] >= 0xF0)
            units++; /* a surrogate pair */
    }
    return units;
}

/* V8 keeps a string of more than 128 KiB in its large-object space: a
 * fresh mapping for each, page faults as it is written, an unmap when it
 * dies. A batch of 4,096 entity rows has 147 KiB of UUID text, and that
 * cost ~30 ns a row. So the texts go to JS in pieces of at most
 * MG_PIECE_UNITS UTF-16 units (under 128 KiB even as a two-byte string),
 * cut between cells; a single longer text is a piece of its own. */
#define MG_PIECE_UNITS 60000

/* The batch's texts as one UTF-8 buffer (UUIDs written out) with the spans
 * of every cell and where each piece after the first begins. */
typedef struct text_out {
    char *utf8; /* the caller's stack buffer until it is outgrown, then malloc'd */
    bool on_heap;
    size_t len, cap;
    uint32_t units;       /* UTF-16 length so far */
    uint32_t piece_units; /* ... of which in the current piece */
    size_t *cuts;         /* byte offsets where the second, third... piece begins */
    size_t ncuts, cap_cuts;
    bool wide; /* some text is not ASCII */
} text_out;

/* Room for `len` more bytes and a NUL. */
static bool text_reserve(text_out *t, size_t len) {
    if (t->len + len + 1 > t->cap) {
        size_t cap = t->cap;
        char *grown;
        while (cap < t->len + len + 1)
            cap *= 2;
        if ((grown = t->on_heap ? realloc(t->utf8, cap) : malloc(cap)) == NULL)
            return false;
        if (!t->on_heap)
            memcpy(grown, t->utf8, t->len);
        t->utf8 = grown;
        t->cap = cap;
        t->on_heap = true;
    }
    return true;
}

static void text_free(text_out *t) {
    if (t->on_heap)
        free(t->utf8);
    free(t->cuts);
}

/* Starts a new piece before a cell of `units` that the current one has
 * no room for; then records the cell's span. */
static bool text_span(text_out *t, uint32_t units, uint32_t *span) {
    if (t->piece_units > 0 && t->piece_units + units > MG_PIECE_UNITS) {
        if (t->ncuts == t->cap_cuts) {
            size_t cap = t->cap_cuts ? 2 * t->cap_cuts : 8;
            size_t *grown = realloc(t->cuts, cap * sizeof *grown);
            if (grown == NULL)
                return false;
            t->cuts = grown;
            t->cap_cuts = cap;
        }
        t->cuts[t->ncuts++] = t->len;
        t->piece_units = 0;
    }
    span[0] = t->units;
    span[1] = units;
    t->units += units;
    t->piece_units += units;
    return true;
}

static bool text_put(text_out *t, const char *s, size_t len, uint32_t *span) {
    uint32_t units = utf16_units((const unsigned char *)s, len);
    if (!text_reserve(t, len) || !text_span(t, units, span))
        return false;
    if (units != len) /* each non-ASCII character has more bytes than units */
        t->wide = true;
    if (len > 0)
        memcpy(t->utf8 + t->len, s, len);
    t->len += len;
    return true;
}

/* A REF's UUID text, written in place: 36 ASCII characters, so 36 UTF-16
 * units with no need to count them (most cells of an entity column). */
static bool text_put_uuid(text_out *t, const unsigned char *uuid, uint32_t *span) {
    if (!text_reserve(t, 36) || !text_span(t, 36, span))
        return false;
    mg_uuid_text(uuid, t->utf8 + t->len);
    t->len += 36;
    return true;
}

/* Piece i of `t` as a JS string. All-ASCII text (UUIDs, most keywords) is
 * also Latin-1, which V8 copies as it is instead of decoding it as UTF-8. */
static napi_value text_piece(napi_env env, const text_out *t, size_t i) {
    napi_value piece;
    size_t begin = i == 0 ? 0 : t->cuts[i - 1];
    size_t end = i == t->ncuts ? t->len : t->cuts[i];
    MG_CHECK(env, t->wide ? napi_create_string_utf8(env, t->utf8 + begin, end - begin, &piece)
                          : napi_create_string_latin1(env, t->utf8 + begin, end - begin, &piece));
    return piece;
}

/* The pieces of `t`: the one string itself (most batches), else an array. */
static napi_value text_pieces(napi_env env, const text_out *t) {
    napi_value pieces, piece;
    if (t->ncuts == 0)
        return text_piece(env, t, 0);
    MG_CHECK(env, napi_create_array_with_length(env, t->ncuts + 1, &pieces));
    for (size_t i = 0; i <= t->ncuts; i++) {
        if ((piece = text_piece(env, t, i)) == NULL)
            return NULL;
        MG_CHECK(env, napi_set_element(env, pieces, (uint32_t)i, piece));
    }
    return pieces;
}

/* Where the cells go: the batch's ArrayBuffer as 32-bit words (header,
 * types, spans) and as 8-byte numbers (NULL for the arrays the batch has
 * no cells for), and the texts. */
typedef struct columns {
    uint32_t *types;
    double *nums;
    int64_t *ints;
    uint32_t *spans;
    text_out text;
    bool need_ints, need_nums, need_text;
} columns;

/* Which arrays the batch needs (one pass over the cell types), so that
 * the cells can be written straight into its ArrayBuffer. */
static void columns_plan(const mg_rows *r, int flags, columns *c) {
    size_t cells = r->nrows * r->ncols;
    for (size_t k = 0; k < cells; k++) {
        const mg_cell *cell = &r->cells[k];
        switch (cell->type) {
        case MINIGRAF_TYPE_INTEGER:
            c->need_nums = true;
            if ((flags & MG_ROWS_BIGINT) || cell->v.i > MG_MAX_SAFE || cell->v.i < -MG_MAX_SAFE)
                c->need_ints = true;
            break;
        case MINIGRAF_TYPE_FLOAT:
        case MINIGRAF_TYPE_BOOLEAN: c->need_nums = true; break;
        case MINIGRAF_TYPE_STRING:
        case MINIGRAF_TYPE_KEYWORD:
        case MINIGRAF_TYPE_LIST:
        case MINIGRAF_TYPE_REF: c->need_text = true; break;
        default: break;
        }
    }
}

static bool columns_fill(const mg_rows *r, columns *c) {
    size_t cells = r->nrows * r->ncols;
    for (size_t k = 0; k < cells; k++) {
        const mg_cell *cell = &r->cells[k];
        const char *at = NULL; /* a text's or UUID's bytes in the arena */
        if (cell->type >= MINIGRAF_TYPE_KEYWORD || cell->type == MINIGRAF_TYPE_STRING)
            at = r->arena != NULL ? r->arena + cell->v.off : ""; /* "": only empty texts */
        c->types[k] = (uint32_t)cell->type;
        switch (cell->type) {
        case MINIGRAF_TYPE_INTEGER:
            c->nums[k] = (double)cell->v.i;
            if (c->need_ints)
                c->ints[k] = cell->v.i;
            if (cell->v.i > MG_MAX_SAFE || cell->v.i < -MG_MAX_SAFE)
                c->types[k] = MG_TYPE_WIDE_INTEGER;
            break;
        case MINIGRAF_TYPE_FLOAT: c->nums[k] = cell->v.d; break;
        case MINIGRAF_TYPE_BOOLEAN: c->nums[k] = cell->v.i != 0; break;
        case MINIGRAF_TYPE_REF:
            if (!text_put_uuid(&c->text, (const unsigned char *)at, &c->spans[2 * k]))
                return false;
            break;
        case MINIGRAF_TYPE_STRING:
        case MINIGRAF_TYPE_KEYWORD:
        case MINIGRAF_TYPE_LIST:
            if (!text_put(&c->text, at, cell->len, &c->spans[2 * k]))
                return false;
            break;
        default: break;
        }
    }
    return true;
}

/* A batch decoded at once (all but the async reads: index.js turns it
 * into rows before any other code runs) is packed into the environment's
 * one ArrayBuffer, grown as needed up to MG_SHARED_PACK_MAX bytes: making
 * an ArrayBuffer (its backing store malloc'd, tracked by V8's sweeper)
 * cost ~0.15 µs a batch. */
#define MG_SHARED_PACK_MAX (64 * 1024)

static napi_value shared_buffer(napi_env env, size_t bytes, void **data) {
    mg_instance *inst = mg_instance_get(env);
    napi_value buffer;
    if (inst->pack_buffer != NULL && inst->pack_cap >= bytes) {
        MG_CHECK(env, napi_get_reference_value(env, inst->pack_buffer, &buffer));
        *data = inst->pack_data;
        return buffer;
    }
    size_t cap = inst->pack_cap ? inst->pack_cap : 4096;
    while (cap < bytes)
        cap *= 2;
    MG_CHECK(env, napi_create_arraybuffer(env, cap, data, &buffer));
    if (inst->pack_buffer != NULL)
        napi_delete_reference(env, inst->pack_buffer);
    inst->pack_buffer = NULL;
    MG_CHECK(env, napi_create_reference(env, buffer, 1, &inst->pack_buffer));
    inst->pack_data = *data;
    inst->pack_cap = cap;
    return buffer;
}

/* The batch's ArrayBuffer (layout at the top of this file), its header
 * written and c's pointers set to where the cells go. */
static napi_value column_buffer(napi_env env, const mg_rows *r, int flags, columns *c) {
    napi_value buffer;
    uint32_t *words;
    size_t cells = r->nrows * r->ncols;
    size_t nwords = MG_PACK_HEADER + cells + (c->need_text ? 2 * cells : 0);
    size_t numbers = (c->need_nums ? cells : 0) + (c->need_ints ? cells : 0);
    nwords += nwords % 2; /* the numbers 8-byte aligned */
    size_t bytes = 4 * nwords + 8 * numbers;
    if (!(flags & MG_ROWS_OWN_BUFFER) && bytes <= MG_SHARED_PACK_MAX) {
        if ((buffer = shared_buffer(env, bytes, (void **)&words)) == NULL)
            return NULL;
    } else {
        MG_CHECK(env, napi_create_arraybuffer(env, bytes, (void **)&words, &buffer));
    }
    words[0] = (uint32_t)r->nrows;
    words[1] = (uint32_t)r->ncols;
    words[2] = (c->need_nums ? MG_PACK_NUMS : 0) | (c->need_ints ? MG_PACK_INTS : 0) |
               (c->need_text ? MG_PACK_TEXT : 0);
    words[3] = 0;
    c->types = words + MG_PACK_HEADER;
    c->spans = c->need_text ? c->types + cells : NULL;
    c->nums = c->need_nums ? (double *)(words + nwords) : NULL;
    c->ints = c->need_ints ? (int64_t *)(words + nwords) + (c->need_nums ? cells : 0) : NULL;
    return buffer;
}

bool mg_rows_pack_parts(napi_env env, const mg_rows *r, int flags, napi_value *buffer,
                        napi_value *texts) {
    char small[4096]; /* the texts of most batches: no malloc for them */
    columns c = {0};
    bool ok;

    *texts = NULL;
    if (r->nrows == 0 && r->end) {
        if (napi_get_null(env, buffer) == napi_ok)
            return true;
        mg_throw_last_status(env);
        return false;
    }
    c.text.utf8 = small;
    c.text.cap = sizeof small;
    columns_plan(r, flags, &c);
    if ((*buffer = column_buffer(env, r, flags, &c)) == NULL)
        return false;
    if (!columns_fill(r, &c)) {
        text_free(&c.text);
        napi_throw_error(env, NULL, "minigraf: out of memory");
        return false;
    }
    ok = !c.need_text || (*texts = text_pieces(env, &c.text)) != NULL;
    text_free(&c.text);
    return ok;
}

napi_value mg_rows_pack(napi_env env, const mg_rows *r, int flags) {
    napi_value result, buffer, texts;

    if (!mg_rows_pack_parts(env, r, flags, &buffer, &texts))
        return NULL;
    if (r->nrows == 0 && r->end)
        return buffer; /* null */
    if (napi_create_array_with_length(env, 2, &result) != napi_ok ||
        napi_set_element(env, result, 0, buffer) != napi_ok ||
        (texts != NULL && napi_set_element(env, result, 1, texts) != napi_ok)) {
        mg_throw_last_status(env);
        return NULL;
    }
    return result;
}
