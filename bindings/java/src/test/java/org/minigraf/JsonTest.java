package org.minigraf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonTest {
    @Test
    void decodesEveryKind() {
        Map<String, Object> expected = new LinkedHashMap<>();
        expected.put("variables", List.of("?a", "?b"));
        expected.put("results", List.of(Arrays.asList("s", 1L, 2.5, true, false, null)));
        assertEquals(
                expected,
                Json.parse(
                        " {\"variables\": [\"?a\",\"?b\"], \"results\":[[\"s\",1,2.5,true,false,null]]} "));
    }

    @Test
    void integersAreExactLongsAndOthersDoubles() {
        assertEquals(Long.MAX_VALUE, Json.parse("9223372036854775807"));
        assertEquals(Long.MIN_VALUE, Json.parse("-9223372036854775808"));
        assertEquals(0L, Json.parse("-0"));
        assertEquals(30.0, Json.parse("30.0"));
        assertEquals(1e21, Json.parse("1e21"));
        assertEquals(-2.5e-7, Json.parse("-2.5E-7"));
        assertEquals(9.223372036854775808E18, Json.parse("9223372036854775808"));
    }

    @Test
    void decodesEscapesAndSurrogatePairs() {
        assertEquals(
                "a\"\\/\b\f\n\r\t\u00e9\uD83C\uDF89",
                Json.parse("\"a\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83c\\uDF89\""));
        assertEquals("\uD83C\uDF89", Json.parse("\"\uD83C\uDF89\""));
    }

    @Test
    void rejectsInvalidJson() {
        String[] invalid = {
            "",
            " ",
            "[",
            "]",
            "[1,]",
            "[,1]",
            "{\"a\":1,}",
            "{\"a\" 1}",
            "{1:2}",
            "01",
            "1.",
            ".5",
            "+1",
            "1e",
            "-",
            "tru",
            "nul",
            "\"abc",
            "\"\\x\"",
            "\"\\u12\"",
            "\"\\ud800\"",
            "\"\\udc00\"",
            "\"a\nb\"",
            "[1] 2",
            "{\"a\":1,\"a\":2}",
            "NaN",
            "Infinity",
            "'a'",
            "[1 2]",
            "\"\uD800\"",
            "\"\\u00g0\"",
            "//c\n1",
        };
        for (String text : invalid) {
            assertThrows(IllegalArgumentException.class, () -> Json.parse(text), text);
        }
        assertThrows(NullPointerException.class, () -> Json.parse(null));
    }

    @Test
    void rejectsDeepNestingWithoutOverflowingTheStack() {
        String deep = "[".repeat(100_000) + "]".repeat(100_000);
        assertThrows(IllegalArgumentException.class, () -> Json.parse(deep));
        String ok = "[".repeat(Json.MAX_DEPTH) + "]".repeat(Json.MAX_DEPTH);
        assertEquals(List.class.isInstance(Json.parse(ok)), true);
    }
}
