package org.minigraf;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small, strict JSON reader (RFC 8259) for the texts minigraf returns.
 *
 * <p>Values decode to: object → {@code Map<String, Object>} (insertion ordered; a repeated key is
 * an error), array → {@code List<Object>}, string → {@link String}, {@code true}/{@code false} →
 * {@link Boolean}, {@code null} → {@code null}, and numbers: written without a fraction or exponent
 * and within 64 bits → {@link Long} (exact, never through a double), any other number → {@link
 * Double}.
 *
 * <p>Strict means: no comments, no trailing commas, no leading zeros, no bare control characters or
 * lone surrogates in strings, nothing after the value but whitespace, and nesting at most {@value
 * #MAX_DEPTH} deep.
 */
public final class Json {
    /** The deepest nesting accepted; deeper input is rejected, not recursed into. */
    public static final int MAX_DEPTH = 512;

    private final String text;
    private int pos;
    private int depth;

    private Json(String text) {
        this.text = text;
    }

    /**
     * Parses one JSON value.
     *
     * @param text the JSON text
     * @return the decoded value, as described in the class comment
     * @throws IllegalArgumentException if {@code text} is not valid JSON
     * @throws NullPointerException if {@code text} is null
     */
    public static Object parse(String text) {
        if (text == null) {
            throw new NullPointerException("text");
        }
        Json reader = new Json(text);
        reader.skipWhitespace();
        Object value = reader.readValue();
        reader.skipWhitespace();
        if (reader.pos != text.length()) {
            throw reader.error("unexpected text after the value");
        }
        return value;
    }

    private Object readValue() {
        if (pos >= text.length()) {
            throw error("unexpected end of text");
        }
        char c = text.charAt(pos);
        switch (c) {
            case '{':
                return readObject();
            case '[':
                return readArray();
            case '"':
                return readString();
            case 't':
                return readLiteral("true", Boolean.TRUE);
            case 'f':
                return readLiteral("false", Boolean.FALSE);
            case 'n':
                return readLiteral("null", null);
            default:
                if (c == '-' || (c >= '0' && c <= '9')) {
                    return readNumber();
                }
                throw error("unexpected character");
        }
    }

    private Map<String, Object> readObject() {
        enter();
        pos++; // '{'
        Map<String, Object> object = new LinkedHashMap<>();
        skipWhitespace();
        if (peek() == '}') {
            pos++;
            depth--;
            return object;
        }
        while (true) {
            skipWhitespace();
            if (peek() != '"') {
                throw error("expected a string key");
            }
            int keyAt = pos;
            String key = readString();
            skipWhitespace();
            expect(':');
            skipWhitespace();
            Object value = readValue();
            if (object.containsKey(key)) {
                pos = keyAt;
                throw error("repeated key \"" + key + "\"");
            }
            object.put(key, value);
            skipWhitespace();
            if (peek() == ',') {
                pos++;
            } else {
                expect('}');
                depth--;
                return object;
            }
        }
    }

    private List<Object> readArray() {
        enter();
        pos++; // '['
        List<Object> array = new ArrayList<>();
        skipWhitespace();
        if (peek() == ']') {
            pos++;
            depth--;
            return array;
        }
        while (true) {
            skipWhitespace();
            array.add(readValue());
            skipWhitespace();
            if (peek() == ',') {
                pos++;
            } else {
                expect(']');
                depth--;
                return array;
            }
        }
    }

    private String readString() {
        pos++; // '"'
        StringBuilder out = new StringBuilder();
        while (true) {
            if (pos >= text.length()) {
                throw error("unterminated string");
            }
            char c = text.charAt(pos);
            if (c == '"') {
                pos++;
                return out.toString();
            } else if (c == '\\') {
                readEscape(out);
            } else if (c < 0x20) {
                throw error("control character in a string");
            } else if (Character.isHighSurrogate(c)) {
                if (pos + 1 >= text.length() || !Character.isLowSurrogate(text.charAt(pos + 1))) {
                    throw error("lone surrogate in a string");
                }
                out.append(c).append(text.charAt(pos + 1));
                pos += 2;
            } else if (Character.isLowSurrogate(c)) {
                throw error("lone surrogate in a string");
            } else {
                out.append(c);
                pos++;
            }
        }
    }

    private void readEscape(StringBuilder out) {
        pos++; // '\\'
        if (pos >= text.length()) {
            throw error("unterminated escape");
        }
        char c = text.charAt(pos++);
        switch (c) {
            case '"':
                out.append('"');
                break;
            case '\\':
                out.append('\\');
                break;
            case '/':
                out.append('/');
                break;
            case 'b':
                out.append('\b');
                break;
            case 'f':
                out.append('\f');
                break;
            case 'n':
                out.append('\n');
                break;
            case 'r':
                out.append('\r');
                break;
            case 't':
                out.append('\t');
                break;
            case 'u':
                {
                    char unit = readHex4();
                    if (Character.isHighSurrogate(unit)) {
                        if (!text.startsWith("\\u", pos)) {
                            throw error("lone surrogate escape");
                        }
                        pos += 2;
                        char low = readHex4();
                        if (!Character.isLowSurrogate(low)) {
                            throw error("lone surrogate escape");
                        }
                        out.append(unit).append(low);
                    } else if (Character.isLowSurrogate(unit)) {
                        throw error("lone surrogate escape");
                    } else {
                        out.append(unit);
                    }
                    break;
                }
            default:
                pos--;
                throw error("invalid escape");
        }
    }

    private char readHex4() {
        if (pos + 4 > text.length()) {
            throw error("truncated \\u escape");
        }
        int value = 0;
        for (int i = 0; i < 4; i++) {
            int digit = Character.digit(text.charAt(pos), 16);
            if (digit < 0 || text.charAt(pos) > 'f') {
                throw error("invalid \\u escape");
            }
            value = value * 16 + digit;
            pos++;
        }
        return (char) value;
    }

    private Object readNumber() {
        int start = pos;
        boolean integral = true;
        if (peek() == '-') {
            pos++;
        }
        if (peek() == '0') {
            pos++;
        } else if (isDigit(peek())) {
            skipDigits();
        } else {
            throw error("invalid number");
        }
        if (peek() == '.') {
            integral = false;
            pos++;
            if (!isDigit(peek())) {
                throw error("invalid number: digits expected after '.'");
            }
            skipDigits();
        }
        if (peek() == 'e' || peek() == 'E') {
            integral = false;
            pos++;
            if (peek() == '+' || peek() == '-') {
                pos++;
            }
            if (!isDigit(peek())) {
                throw error("invalid number: digits expected in the exponent");
            }
            skipDigits();
        }
        String number = text.substring(start, pos);
        if (integral) {
            try {
                return Long.parseLong(number);
            } catch (NumberFormatException beyond64Bits) {
                return Double.parseDouble(number);
            }
        }
        return Double.parseDouble(number);
    }

    private Object readLiteral(String literal, Object value) {
        if (!text.startsWith(literal, pos)) {
            throw error("unexpected character");
        }
        pos += literal.length();
        return value;
    }

    private void enter() {
        if (++depth > MAX_DEPTH) {
            throw error("nested more than " + MAX_DEPTH + " deep");
        }
    }

    private void skipDigits() {
        while (isDigit(peek())) {
            pos++;
        }
    }

    private static boolean isDigit(int c) {
        return c >= '0' && c <= '9';
    }

    /** The current character, or -1 at the end. */
    private int peek() {
        return pos < text.length() ? text.charAt(pos) : -1;
    }

    private void expect(char c) {
        if (peek() != c) {
            throw error("expected '" + c + "'");
        }
        pos++;
    }

    private void skipWhitespace() {
        while (pos < text.length()) {
            char c = text.charAt(pos);
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                return;
            }
            pos++;
        }
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException("invalid JSON at offset " + pos + ": " + what);
    }
}
