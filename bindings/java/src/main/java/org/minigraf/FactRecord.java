package org.minigraf;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One stored version of a fact: what {@link FactLog} yields and {@link LogWriter} appends.
 * Instances are immutable.
 *
 * <p>A record is an assertion ({@link #asserted()} true) or a retraction of the triple {@code
 * (entity, attribute, value)}, committed by the transaction numbered {@link #txCount()} (what
 * {@code :as-of N} counts) at wall-clock time {@link #txId()}, and valid over the half-open window
 * [{@link #validFrom()}, {@link #validTo()}) in milliseconds; {@link #FOREVER} as {@code validTo}
 * means "no end".
 *
 * <p>In the library's JSON ({@link #toJson()}):
 *
 * <pre>{@code
 * {"entity":"<uuid>","attribute":":person/age","value":{"type":"integer","value":30},
 *  "tx_count":1,"tx_id":1717000000123,"valid_from":1717000000123,
 *  "valid_to":9223372036854775807,"asserted":true}
 * }</pre>
 */
public final class FactRecord extends JsonWritable {
    /** The {@link #validTo()} of a fact valid with no end: {@link Long#MAX_VALUE}. */
    public static final long FOREVER = Long.MAX_VALUE;

    private final String entity;
    private final String attribute;
    private final TypedValue value;
    private final long txCount;
    private final long txId;
    private final long validFrom;
    private final long validTo;
    private final boolean asserted;

    /**
     * A record; the library checks it when it is appended to a {@link LogWriter}.
     *
     * @param entity the entity's lowercase UUID
     * @param attribute the attribute keyword, with its colon ({@code ":person/age"})
     * @param value the value
     * @param txCount the number of the transaction that committed it (1 for the first)
     * @param txId the transaction's wall-clock time, in milliseconds
     * @param validFrom the start of the valid window (inclusive), in milliseconds
     * @param validTo the end of the valid window (exclusive), or {@link #FOREVER}
     * @param asserted true for an assertion, false for a retraction
     */
    public FactRecord(
            String entity,
            String attribute,
            TypedValue value,
            long txCount,
            long txId,
            long validFrom,
            long validTo,
            boolean asserted) {
        this.entity = Objects.requireNonNull(entity, "entity");
        this.attribute = Objects.requireNonNull(attribute, "attribute");
        this.value = Objects.requireNonNull(value, "value");
        this.txCount = txCount;
        this.txId = txId;
        this.validFrom = validFrom;
        this.validTo = validTo;
        this.asserted = asserted;
    }

    /** The entity's lowercase UUID. */
    public String entity() {
        return entity;
    }

    /** The attribute keyword, with its colon, e.g. {@code ":person/age"}. */
    public String attribute() {
        return attribute;
    }

    /** The value, with its type. */
    public TypedValue value() {
        return value;
    }

    /** The number of the transaction that committed this record (1 for a database's first). */
    public long txCount() {
        return txCount;
    }

    /** The committing transaction's wall-clock time, in milliseconds since the epoch. */
    public long txId() {
        return txId;
    }

    /** The start of the valid window (inclusive), in milliseconds since the epoch. */
    public long validFrom() {
        return validFrom;
    }

    /** The end of the valid window (exclusive); {@link #FOREVER} for no end. */
    public long validTo() {
        return validTo;
    }

    /** True for an assertion, false for a retraction. */
    public boolean asserted() {
        return asserted;
    }

    @Override
    void writeJson(StringBuilder out) {
        out.append("{\"entity\":");
        JsonText.string(entity, out);
        out.append(",\"attribute\":");
        JsonText.string(attribute, out);
        out.append(",\"value\":");
        value.writeJson(out);
        out.append(",\"tx_count\":")
                .append(txCount)
                .append(",\"tx_id\":")
                .append(txId)
                .append(",\"valid_from\":")
                .append(validFrom)
                .append(",\"valid_to\":")
                .append(validTo)
                .append(",\"asserted\":")
                .append(asserted)
                .append('}');
    }

    /** The JSON array of {@code records}, as minigraf_log_writer_append_batch reads it. */
    static String toJsonArray(List<FactRecord> records) {
        StringBuilder out = new StringBuilder("[");
        for (int i = 0; i < records.size(); i++) {
            if (i > 0) {
                out.append(',');
            }
            Objects.requireNonNull(records.get(i), "records contains null").writeJson(out);
        }
        return out.append(']').toString();
    }

    /** Decodes a batch of minigraf_fact_log_next_batch; a malformed one is INT-000. */
    static List<FactRecord> listFromJson(String json) {
        Object parsed = Result.parseLibraryJson(json);
        if (!(parsed instanceof List)) {
            throw Result.unexpected(json);
        }
        List<?> items = (List<?>) parsed;
        List<FactRecord> records = new ArrayList<>(items.size());
        for (Object item : items) {
            FactRecord record = fromJsonObject(item);
            if (record == null) {
                throw Result.unexpected(json);
            }
            records.add(record);
        }
        return Collections.unmodifiableList(records);
    }

    /** A parsed record object, or null if it is not one. */
    static FactRecord fromJsonObject(Object parsed) {
        Map<?, ?> object = jsonObject(parsed);
        if (object == null) {
            return null;
        }
        Object entity = object.get("entity");
        Object attribute = object.get("attribute");
        TypedValue value = TypedValue.fromJsonObject(object.get("value"));
        Object txCount = object.get("tx_count");
        Object txId = object.get("tx_id");
        Object validFrom = object.get("valid_from");
        Object validTo = object.get("valid_to");
        Object asserted = object.get("asserted");
        if (!(entity instanceof String)
                || !(attribute instanceof String)
                || value == null
                || !(txCount instanceof Long)
                || !(txId instanceof Long)
                || !(validFrom instanceof Long)
                || !(validTo instanceof Long)
                || !(asserted instanceof Boolean)) {
            return null;
        }
        return new FactRecord(
                (String) entity,
                (String) attribute,
                value,
                (Long) txCount,
                (Long) txId,
                (Long) validFrom,
                (Long) validTo,
                (Boolean) asserted);
    }

    @Override
    public boolean equals(Object other) {
        if (this == other) {
            return true;
        }
        if (!(other instanceof FactRecord)) {
            return false;
        }
        FactRecord that = (FactRecord) other;
        return entity.equals(that.entity)
                && attribute.equals(that.attribute)
                && value.equals(that.value)
                && txCount == that.txCount
                && txId == that.txId
                && validFrom == that.validFrom
                && validTo == that.validTo
                && asserted == that.asserted;
    }

    @Override
    public int hashCode() {
        return Objects.hash(entity, attribute, value, txCount, txId, validFrom, validTo, asserted);
    }

    /** The record's JSON. */
    @Override
    public String toString() {
        return "FactRecord" + toJson();
    }
}
