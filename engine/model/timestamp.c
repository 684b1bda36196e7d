/* Timestamp strings (language.md §7.2).
 *
 * The spec gives these errors no code; minigraf reports all of them as
 * PRS-075 (docs/errors.md). */
#include "model/timestamp.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/utf8.h"

#define TS_CODE ERR(PRS, 75)
#define TS_SHOW 128 /* longest part of the input quoted in a message */

/* Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar, by
 * counting in 400-year eras that start on March 1st (so the leap day is the
 * last day of its era-year). */
static int64_t ts_days_from_civil(int64_t y, int m, int d) {
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static bool ts_is_leap(int y) {
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int ts_days_in_month(int y, int m) {
    static const int days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && ts_is_leap(y) ? 29 : days[m - 1];
}

/* Reads exactly `n` ASCII digits at s[*i]. */
static bool ts_digits(const char *s, size_t len, size_t *i, int n, int *out) {
    int v = 0;
    for (int k = 0; k < n; k++, (*i)++) {
        if (*i >= len || s[*i] < '0' || s[*i] > '9')
            return false;
        v = v * 10 + (s[*i] - '0');
    }
    *out = v;
    return true;
}

static bool ts_expect(const char *s, size_t len, size_t *i, char c) {
    if (*i >= len || s[*i] != c)
        return false;
    (*i)++;
    return true;
}

/* "YYYY-MM-DD" at the start of s; the day count goes to *days. */
static bool ts_parse_date(const char *s, size_t len, size_t *i, int64_t *days) {
    int y, m, d;
    if (!ts_digits(s, len, i, 4, &y) || !ts_expect(s, len, i, '-') ||
        !ts_digits(s, len, i, 2, &m) || !ts_expect(s, len, i, '-') || !ts_digits(s, len, i, 2, &d))
        return false;
    if (m < 1 || m > 12 || d < 1 || d > ts_days_in_month(y, m))
        return false;
    *days = ts_days_from_civil(y, m, d);
    return true;
}

/* "HH:MM:SS[.fraction]" then Z or z, ending the string. */
static bool ts_parse_time(const char *s, size_t len, size_t *i, int64_t *ms) {
    int hh, mm, ss;
    if (!ts_digits(s, len, i, 2, &hh) || !ts_expect(s, len, i, ':') ||
        !ts_digits(s, len, i, 2, &mm) || !ts_expect(s, len, i, ':') ||
        !ts_digits(s, len, i, 2, &ss))
        return false;
    if (hh > 23 || mm > 59 || ss > 59)
        return false;
    int frac = 0, frac_digits = 0;
    if (*i < len && s[*i] == '.') {
        (*i)++;
        while (*i < len && s[*i] >= '0' && s[*i] <= '9') {
            if (frac_digits < 3)
                frac = frac * 10 + (s[*i] - '0');
            frac_digits++;
            (*i)++;
        }
        if (frac_digits == 0)
            return false;
        for (int k = frac_digits; k < 3; k++)
            frac *= 10;
    }
    if (*i >= len || (s[*i] != 'Z' && s[*i] != 'z') || *i + 1 != len)
        return false;
    *ms = ((int64_t)hh * 3600 + mm * 60 + ss) * 1000 + frac;
    return true;
}

static bool ts_has_offset(const char *s, size_t len) {
    for (size_t i = 0; i < len; i++)
        if (s[i] == '+' || (s[i] == '-' && i >= 10))
            return true;
    return false;
}

int timestamp_parse(const char *s, size_t len, int64_t *out_ms, err *e) {
    int show = (int)utf8_clip(s, len, TS_SHOW);
    if (ts_has_offset(s, len))
        return err_set(e, TS_CODE,
                       "timezone offsets are not supported; use UTC (Z) timestamps only. "
                       "Got '%.*s'; write e.g. 2024-01-15T10:00:00Z",
                       show, s);
    size_t i = 0;
    int64_t days, ms = 0;
    if (memchr(s, 'T', len)) {
        if (!ts_parse_date(s, len, &i, &days) || !ts_expect(s, len, &i, 'T') ||
            !ts_parse_time(s, len, &i, &ms))
            return err_set(e, TS_CODE,
                           "invalid UTC timestamp '%.*s': expected YYYY-MM-DDTHH:MM:SS[.fraction]Z",
                           show, s);
    } else if (!ts_parse_date(s, len, &i, &days) || i != len) {
        return err_set(
            e, TS_CODE,
            "invalid date '%.*s': expected YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS[.fraction]Z", show, s);
    }
    *out_ms = days * 86400000 + ms;
    return 0;
}

/* The inverse of ts_days_from_civil, with the same March-based eras. */
static void ts_civil_from_days(int64_t z, int64_t *y, int *m, int *d) {
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = yoe + era * 400 + (*m <= 2);
}

void timestamp_format(int64_t ms, char *out) {
    int64_t days = ms / 86400000, rem = ms % 86400000;
    if (rem < 0)
        rem += 86400000, days--;
    int64_t y;
    int m, d;
    ts_civil_from_days(days, &y, &m, &d);
    snprintf(out, TIMESTAMP_TEXT_CAP, "%04lld-%02d-%02dT%02d:%02d:%02d.%03dZ", (long long)y, m, d,
             (int)(rem / 3600000), (int)(rem / 60000 % 60), (int)(rem / 1000 % 60),
             (int)(rem % 1000));
}
