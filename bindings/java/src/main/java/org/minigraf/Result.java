package org.minigraf;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * The result of {@link Minigraf#execute(String)}: what kind of command ran, and its transaction
 * time or its answer.
 *
 * <p>Values in {@link #rows()} are {@link String}, {@link Long}, {@link Double}, {@link Boolean} or
 * {@code null}. Keywords arrive as strings such as {@code ":person/name"} and entity references as
 * UUID strings; NaN and infinite floats arrive as {@code null} (the library's JSON form, lossy by
 * design).
 */
public final class Result {
    /** What kind of command produced a result. */
    public enum Kind {
        /** A {@code (transact ...)}; {@link #txId()} is its transaction time. */
        TRANSACTED,
        /** A {@code (retract ...)}; {@link #txId()} is its transaction time. */
        RETRACTED,
        /** A command with nothing to return, such as {@code (rule ...)}. */
        OK,
        /** A {@code (query ...)}; see {@link #variables()} and {@link #rows()}. */
        QUERY
    }

    private final Kind kind;
    private final long txId;
    private final List<String> variables;
    private final List<List<Object>> rows;

    private Result(Kind kind, long txId, List<String> variables, List<List<Object>> rows) {
        this.kind = kind;
        this.txId = txId;
        this.variables = variables;
        this.rows = rows;
    }

    /** Decodes the JSON text minigraf_execute returns. */
    static Result fromJson(String json) {
        Object parsed = parseLibraryJson(json);
        if (parsed instanceof Map) {
            Map<?, ?> object = (Map<?, ?>) parsed;
            if (object.size() == 1 && object.get("transacted") instanceof Long) {
                return new Result(
                        Kind.TRANSACTED,
                        (Long) object.get("transacted"),
                        Collections.emptyList(),
                        Collections.emptyList());
            }
            if (object.size() == 1 && object.get("retracted") instanceof Long) {
                return new Result(
                        Kind.RETRACTED,
                        (Long) object.get("retracted"),
                        Collections.emptyList(),
                        Collections.emptyList());
            }
            if (object.size() == 1 && Boolean.TRUE.equals(object.get("ok"))) {
                return new Result(Kind.OK, 0, Collections.emptyList(), Collections.emptyList());
            }
            if (object.size() == 2
                    && object.containsKey("variables")
                    && object.containsKey("results")) {
                return new Result(
                        Kind.QUERY,
                        0,
                        variables(object.get("variables")),
                        rows(object.get("results")));
            }
        }
        throw unexpected(json);
    }

    /** Json.parse, with a library bug (invalid JSON) reported as INT-000. */
    static Object parseLibraryJson(String json) {
        try {
            return Json.parse(json);
        } catch (IllegalArgumentException e) {
            throw unexpected(json);
        }
    }

    /** The :find headers of a JSON array of strings. */
    static List<String> variables(Object value) {
        if (!(value instanceof List)) {
            throw unexpected(String.valueOf(value));
        }
        List<String> names = new ArrayList<>();
        for (Object name : (List<?>) value) {
            if (!(name instanceof String)) {
                throw unexpected(String.valueOf(value));
            }
            names.add((String) name);
        }
        return Collections.unmodifiableList(names);
    }

    /** The rows of a JSON array of arrays, each made unmodifiable. */
    static List<List<Object>> rows(Object value) {
        if (!(value instanceof List)) {
            throw unexpected(String.valueOf(value));
        }
        List<List<Object>> rows = new ArrayList<>();
        for (Object row : (List<?>) value) {
            if (!(row instanceof List)) {
                throw unexpected(String.valueOf(value));
            }
            @SuppressWarnings("unchecked")
            List<Object> cells = (List<Object>) row;
            rows.add(Collections.unmodifiableList(cells));
        }
        return Collections.unmodifiableList(rows);
    }

    static MinigrafException unexpected(String json) {
        String shown = json.length() > 200 ? json.substring(0, 200) + "..." : json;
        return MinigrafException.create(
                6000, "INT-000", "Unexpected result from the library: " + shown);
    }

    /** The kind of command that ran. */
    public Kind kind() {
        return kind;
    }

    /**
     * The transaction time (wall-clock milliseconds) of a transact or retract.
     *
     * @throws IllegalStateException if {@link #kind()} is not TRANSACTED or RETRACTED
     */
    public long txId() {
        if (kind != Kind.TRANSACTED && kind != Kind.RETRACTED) {
            throw new IllegalStateException("a " + kind + " result has no transaction");
        }
        return txId;
    }

    /**
     * The :find headers of a query, e.g. {@code ["?name"]}; empty for other kinds. Unmodifiable.
     */
    public List<String> variables() {
        return variables;
    }

    /** The answer rows of a query; empty for other kinds. Unmodifiable. */
    public List<List<Object>> rows() {
        return rows;
    }

    @Override
    public String toString() {
        switch (kind) {
            case TRANSACTED:
            case RETRACTED:
                return "Result{" + kind + " " + txId + "}";
            case QUERY:
                return "Result{QUERY " + variables + " " + rows + "}";
            default:
                return "Result{OK}";
        }
    }
}
