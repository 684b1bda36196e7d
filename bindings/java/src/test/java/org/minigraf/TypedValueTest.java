package org.minigraf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The record JSON, both ways, without the natives. */
class TypedValueTest {
    private static final String E = "6ba7b810-9dad-11d1-80b4-00c04fd430c8";

    private static TypedValue roundTrip(TypedValue value) {
        return TypedValue.fromJsonObject(Json.parse(value.toJson()));
    }

    @Test
    void typedJsonForms() {
        assertEquals(
                "{\"type\":\"integer\",\"value\":-9223372036854775808}",
                TypedValue.ofInteger(Long.MIN_VALUE).toJson());
        assertEquals(
                "{\"type\":\"float\",\"value\":\"NaN\"}", TypedValue.ofFloat(Double.NaN).toJson());
        assertEquals(
                "{\"type\":\"float\",\"value\":\"Infinity\"}",
                TypedValue.ofFloat(Double.POSITIVE_INFINITY).toJson());
        assertEquals(
                "{\"type\":\"float\",\"value\":\"-Infinity\"}",
                TypedValue.ofFloat(Double.NEGATIVE_INFINITY).toJson());
        assertEquals("{\"type\":\"float\",\"value\":30.0}", TypedValue.ofFloat(30).toJson());
        assertEquals("{\"type\":\"float\",\"value\":1.0e-7}", TypedValue.ofFloat(1e-7).toJson());
        assertEquals(
                "{\"type\":\"keyword\",\"value\":\":a/b\"}", TypedValue.ofKeyword(":a/b").toJson());
        assertEquals(
                "{\"type\":\"ref\",\"value\":\"" + E + "\"}",
                TypedValue.ofRef(UUID.fromString(E)).toJson());
        assertEquals(
                "{\"type\":\"boolean\",\"value\":false}", TypedValue.ofBoolean(false).toJson());
        assertEquals("{\"type\":\"null\",\"value\":null}", TypedValue.ofNull().toJson());
        assertEquals(
                "{\"type\":\"string\",\"value\":\"q\\\"\\\\\\u0001\\u000a\uD83C\uDF89\"}",
                TypedValue.ofString("q\"\\\u0001\n\uD83C\uDF89").toJson());
    }

    @Test
    void everyValueRoundTrips() {
        List<TypedValue> values =
                Arrays.asList(
                        TypedValue.ofString("h\u00e9llo \uD834\uDD1E \u0000 \t"),
                        TypedValue.ofInteger(Long.MAX_VALUE),
                        TypedValue.ofInteger(Long.MIN_VALUE),
                        TypedValue.ofInteger(9007199254740993L),
                        TypedValue.ofFloat(Double.NaN),
                        TypedValue.ofFloat(Double.NEGATIVE_INFINITY),
                        TypedValue.ofFloat(-0.0),
                        TypedValue.ofFloat(Double.MIN_VALUE),
                        TypedValue.ofFloat(Double.MAX_VALUE),
                        TypedValue.ofFloat(0.1 + 0.2),
                        TypedValue.ofBoolean(true),
                        TypedValue.ofRef(E),
                        TypedValue.ofKeyword(":status/active"),
                        TypedValue.ofNull());
        for (TypedValue value : values) {
            assertEquals(value, roundTrip(value), value::toString);
        }
    }

    @Test
    void equalityIsExact() {
        assertEquals(TypedValue.ofFloat(Double.NaN), TypedValue.ofFloat(Double.NaN));
        assertNotEquals(TypedValue.ofFloat(0.0), TypedValue.ofFloat(-0.0));
        assertNotEquals(TypedValue.ofString(":a"), TypedValue.ofKeyword(":a"));
        assertNotEquals(TypedValue.ofInteger(30), TypedValue.ofFloat(30.0));
    }

    @Test
    void accessorsCheckTheType() {
        assertEquals(30L, TypedValue.ofInteger(30).asLong());
        assertEquals(":a", TypedValue.ofKeyword(":a").asString());
        assertNull(TypedValue.ofNull().value());
        assertThrows(IllegalStateException.class, () -> TypedValue.ofInteger(30).asDouble());
        assertThrows(IllegalStateException.class, () -> TypedValue.ofNull().asString());
    }

    @Test
    void malformedTypedValuesAreRefused() {
        assertNull(TypedValue.fromJsonObject(Json.parse("{\"type\":\"integer\",\"value\":1.5}")));
        assertNull(TypedValue.fromJsonObject(Json.parse("{\"type\":\"float\",\"value\":\"nan\"}")));
        assertNull(TypedValue.fromJsonObject(Json.parse("{\"type\":\"date\",\"value\":1}")));
        assertNull(TypedValue.fromJsonObject(Json.parse("{\"type\":\"null\"}")));
    }

    @Test
    void recordJsonRoundTrips() {
        FactRecord record =
                new FactRecord(
                        E,
                        ":person/age",
                        TypedValue.ofInteger(30),
                        1,
                        1717000000123L,
                        1717000000123L,
                        FactRecord.FOREVER,
                        true);
        assertEquals(
                "{\"entity\":\""
                        + E
                        + "\",\"attribute\":\":person/age\","
                        + "\"value\":{\"type\":\"integer\",\"value\":30},\"tx_count\":1,\"tx_id\":1717000000123,"
                        + "\"valid_from\":1717000000123,\"valid_to\":9223372036854775807,\"asserted\":true}",
                record.toJson());
        List<FactRecord> decoded =
                FactRecord.listFromJson(FactRecord.toJsonArray(List.of(record, record)));
        assertEquals(List.of(record, record), decoded);
        MinigrafException e =
                assertThrows(
                        MinigrafException.class,
                        () -> FactRecord.listFromJson("[{\"entity\":\"" + E + "\"}]"));
        assertEquals("INT-000", e.getCode());
    }

    @Test
    void filterAndOptionsJson() {
        assertNull(FactLogFilter.all().toJson());
        assertEquals(
                "{\"attributes\":[\":a/b\"],\"attribute_prefixes\":[\":p/\"],\"entities\":[\""
                        + E
                        + "\"],"
                        + "\"tx_from\":2,\"tx_to\":5,\"window\":{\"from\":10,\"to\":20},\"order\":\"storage\"}",
                FactLogFilter.builder()
                        .attributes(":a/b")
                        .attributePrefixes(":p/")
                        .entities(E)
                        .txFrom(2)
                        .txTo(5)
                        .window(10, 20)
                        .order(FactLogFilter.Order.STORAGE)
                        .build()
                        .toJson());
        assertEquals(
                "{\"window\":{\"to\":20}}", FactLogFilter.builder().windowTo(20).build().toJson());
        assertNull(LogWriterOptions.defaults().toJson());
        assertEquals(
                "{\"synchronous\":\"normal\",\"page_cache_size\":64}",
                LogWriterOptions.builder()
                        .synchronous(LogWriterOptions.Synchronous.NORMAL)
                        .pageCacheSize(64)
                        .build()
                        .toJson());
    }
}
