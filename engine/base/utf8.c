/* UTF-8 validation/decoding and the letter tests of the lexer. */
#include "base/utf8.h"

#include <string.h>

size_t utf8_decode(const char *s, size_t len, uint32_t *cp) {
    if (len == 0)
        return 0;
    const unsigned char *u = (const unsigned char *)s;
    unsigned char c = u[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    size_t n;
    uint32_t v, min;
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2, v = c & 0x1Fu, min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3, v = c & 0x0Fu, min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4, v = c & 0x07u, min = 0x10000;
    } else {
        return 0; /* continuation byte, overlong lead (C0/C1) or > F4 */
    }
    if (len < n)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((u[i] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (u[i] & 0x3Fu);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return n;
}

/* Texts are mostly ASCII: eight bytes at a time while none has its high
 * bit set. */
bool utf8_valid(const char *s, size_t len) {
    size_t i = 0;
    while (i < len) {
        uint64_t w;
        if (len - i >= 8 && (memcpy(&w, s + i, 8), (w & UINT64_C(0x8080808080808080)) == 0)) {
            i += 8;
            continue;
        }
        if ((unsigned char)s[i] < 0x80) {
            i++;
            continue;
        }
        uint32_t cp;
        size_t n = utf8_decode(s + i, len - i, &cp);
        if (n == 0)
            return false;
        i += n;
    }
    return true;
}

size_t utf8_clip(const char *s, size_t len, size_t max) {
    if (len <= max)
        return len;
    size_t n = max;
    while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
        n--;
    return n;
}

/* Non-ASCII letters are approximated by block: the ranges below are the
 * letter-bearing blocks of the common scripts (Latin-1 letters, Latin
 * Extended, IPA, Greek, Cyrillic, Armenian, Hebrew, Arabic, the Indic
 * scripts, Thai, Georgian, Hangul, Kana, CJK ideographs, ...), minus the
 * obvious non-letters of Latin-1 (× and ÷). Combining marks and the few
 * punctuation signs inside those blocks count as letters; that only makes
 * the lexer accept a handful of odd symbols and never changes the meaning
 * of ASCII text. Digits of Devanagari and Arabic are excluded; those of
 * the other Indic scripts fall inside the ranges and count as letters. */
typedef struct utf8_range {
    uint32_t lo, hi;
} utf8_range;

static const utf8_range utf8_letter_ranges[] = {
    {0x00AA, 0x00AA}, {0x00B5, 0x00B5}, {0x00BA, 0x00BA},
    {0x00C0, 0x00D6}, {0x00D8, 0x00F6}, {0x00F8, 0x02FF}, /* Latin Ext, IPA */
    {0x0370, 0x0373}, {0x0376, 0x037D}, {0x0386, 0x03FF}, /* Greek */
    {0x0400, 0x0481}, {0x048A, 0x052F},                   /* Cyrillic */
    {0x0531, 0x0587},                                     /* Armenian */
    {0x05D0, 0x05F2},                                     /* Hebrew */
    {0x0620, 0x065F}, {0x066E, 0x06D3}, {0x06FA, 0x06FF}, /* Arabic */
    {0x0900, 0x0965}, {0x0970, 0x09E5}, {0x09F0, 0x0DFF}, /* Indic */
    {0x0E01, 0x0E4F}, {0x0E80, 0x0ECF},                   /* Thai, Lao */
    {0x10A0, 0x10FF}, {0x1100, 0x11FF},                   /* Georgian, Jamo */
    {0x1E00, 0x1FFF},                                     /* Latin Ext Additional, Greek Ext */
    {0x2C00, 0x2DFF},                                     /* Glagolitic, Latin Ext-C, Coptic */
    {0x3041, 0x3096}, {0x30A1, 0x30FA}, {0x3105, 0x312F}, /* Kana, Bopomofo */
    {0x3131, 0x318E},                                     /* Hangul compat */
    {0x3400, 0x4DBF}, {0x4E00, 0x9FFF},                   /* CJK */
    {0xA640, 0xA69F}, {0xA720, 0xA7FF}, {0xAC00, 0xD7A3}, /* Hangul */
    {0xF900, 0xFAFF}, {0xFB00, 0xFB06}, {0xFF21, 0xFF3A},
    {0xFF41, 0xFF5A}, {0xFF66, 0xFFDC}, {0x20000, 0x3134F}, /* CJK Ext */
};

static bool utf8_in_ranges(uint32_t cp) {
    size_t lo = 0, hi = sizeof utf8_letter_ranges / sizeof utf8_letter_ranges[0];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cp < utf8_letter_ranges[mid].lo)
            hi = mid;
        else if (cp > utf8_letter_ranges[mid].hi)
            lo = mid + 1;
        else
            return true;
    }
    return false;
}

bool unicode_is_alpha(uint32_t cp) {
    if (cp < 0x80)
        return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z');
    return utf8_in_ranges(cp);
}

bool unicode_is_alnum(uint32_t cp) {
    if (cp >= '0' && cp <= '9')
        return true;
    return unicode_is_alpha(cp);
}
