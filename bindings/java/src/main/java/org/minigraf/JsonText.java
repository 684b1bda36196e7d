package org.minigraf;

/** Writes the JSON the library reads: strings and typed floats. */
final class JsonText {
    private JsonText() {}

    /**
     * {@code s} as a JSON string: {@code "} and {@code \} escaped, control characters as {@code
     * \}{@code u00XX}, everything else as itself (the text then crosses as UTF-8).
     */
    static void string(String s, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"') {
                out.append("\\\"");
            } else if (c == '\\') {
                out.append("\\\\");
            } else if (c < 0x20) {
                out.append("\\u00")
                        .append(Character.forDigit(c >> 4, 16))
                        .append(Character.forDigit(c & 15, 16));
            } else {
                out.append(c);
            }
        }
        out.append('"');
    }

    /**
     * A float as the typed form writes it: NaN and the infinities as the strings {@code "NaN"},
     * {@code "Infinity"}, {@code "-Infinity"}; any other value as a JSON number that reads back as
     * exactly the same double ({@link Double#toString(double)} round-trips; its exponent marker is
     * lowered to JSON's usual {@code e}).
     */
    static void typedFloat(double x, StringBuilder out) {
        if (Double.isNaN(x)) {
            out.append("\"NaN\"");
        } else if (Double.isInfinite(x)) {
            out.append(x > 0 ? "\"Infinity\"" : "\"-Infinity\"");
        } else {
            out.append(Double.toString(x).replace('E', 'e'));
        }
    }
}
