import java.io.IOException;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.minigraf.Cursor;
import org.minigraf.Entity;
import org.minigraf.FactLog;
import org.minigraf.FactLogFilter;
import org.minigraf.FactRecord;
import org.minigraf.Json;
import org.minigraf.Keyword;
import org.minigraf.LogWriter;
import org.minigraf.Minigraf;
import org.minigraf.MinigrafException;
import org.minigraf.PreparedQuery;
import org.minigraf.Result;
import org.minigraf.Transaction;
import org.minigraf.TypedValue;
import org.minigraf.Value;

/**
 * The Java runner of the parity suite (tests/parity/README.md).
 *
 * <pre>
 * java -cp minigraf-0.2.0.jar:&lt;dir of ParityRunner.class&gt; ParityRunner &lt;cases_dir&gt; &lt;transcript_out&gt;
 * </pre>
 *
 * Runs every {@code cases_dir/*.json} in file-name order through the public
 * org.minigraf API and writes the canonical transcript. It exits non-zero
 * only when it cannot run (bad arguments, an unreadable directory, or an
 * unreadable or malformed case file, which is skipped); wrong answers are
 * the harness's to judge.
 */
public final class ParityRunner {
    private static final BigDecimal LONG_MIN = BigDecimal.valueOf(Long.MIN_VALUE);
    private static final BigDecimal LONG_MAX = BigDecimal.valueOf(Long.MAX_VALUE);

    /** Puts UTF-8 byte order on canonical texts (String.compareTo is UTF-16 order). */
    private static final Comparator<String> BYTE_ORDER = (a, b) -> Arrays.compareUnsigned(
            a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));

    private ParityRunner() {}

    public static void main(String[] args) {
        if (args.length != 2) {
            System.err.println("usage: ParityRunner <cases_dir> <transcript_out>");
            System.exit(2);
        }
        int status = 0;
        try {
            StringBuilder transcript = new StringBuilder();
            for (Path file : caseFiles(Paths.get(args[0]))) {
                StringBuilder lines = new StringBuilder();
                try {
                    runCase(file, lines);
                    transcript.append(lines);
                } catch (IOException | RuntimeException e) {
                    System.err.println("ParityRunner: cannot run case " + file + ": " + e);
                    status = 2;
                }
            }
            Files.write(Paths.get(args[1]), transcript.toString().getBytes(StandardCharsets.UTF_8));
        } catch (IOException | RuntimeException e) {
            System.err.println("ParityRunner: cannot run: " + e);
            status = 2;
        }
        System.exit(status);
    }

    private static List<Path> caseFiles(Path dir) throws IOException {
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir, "*.json")) {
            entries.forEach(files::add);
        }
        files.sort(Comparator.comparing(p -> p.getFileName().toString(), BYTE_ORDER));
        return files;
    }

    // ---- running a case -------------------------------------------------------

    /** The database of the case being run, or why it failed to open. */
    private static final class Session implements AutoCloseable {
        final Path workDir; // files of this case; deleted afterwards
        String path; // null: in memory
        Minigraf db; // null when the last open failed
        MinigrafException openError;
        int exports;
        final Map<String, PreparedQuery> statements = new LinkedHashMap<>();
        Transaction tx; // the case's write transaction, null before its first begin_write

        Session(Path workDir, String path) {
            this.workDir = workDir;
            this.path = path;
            open();
        }

        /** (Re)opens the database; a failure is kept in openError. */
        void open() {
            close();
            try {
                db = path == null ? Minigraf.openInMemory() : Minigraf.open(path);
                openError = null;
                HostFunctions.register(db);
            } catch (MinigrafException e) {
                db = null;
                openError = e;
            }
        }

        /** The case's prepared queries and transaction (at the end of the case). */
        void closeHandles() {
            statements.values().forEach(PreparedQuery::close);
            statements.clear();
            if (tx != null) {
                tx.close();
                tx = null;
            }
        }

        @Override
        public void close() {
            if (db != null) {
                db.close();
                db = null;
            }
        }
    }

    private static void runCase(Path file, StringBuilder transcript) throws IOException {
        Map<?, ?> spec = asMap(Json.parse(new String(Files.readAllBytes(file), StandardCharsets.UTF_8)), file);
        String name = (String) spec.get("name");
        if (name == null) {
            throw new IllegalArgumentException(file + ": no \"name\"");
        }
        Object storage = spec.containsKey("storage") ? spec.get("storage") : "memory";
        if (!"file".equals(storage) && !"memory".equals(storage)) {
            throw new IllegalArgumentException(file + ": unknown storage " + storage);
        }
        List<?> steps = (List<?>) spec.get("steps");
        // Every case gets a directory: export_import writes its copy there.
        Path tempDir = Files.createTempDirectory("minigraf-parity-");
        String path = "file".equals(storage) ? tempDir.resolve("case.graph").toString() : null;
        try (Session session = new Session(tempDir, path)) {
            try {
                runSteps(session, steps, name, file, transcript);
            } finally {
                session.closeHandles();
            }
        } finally {
            deleteTree(tempDir);
        }
    }

    private static void runSteps(Session session, List<?> steps, String name, Path file, StringBuilder transcript) {
        for (int i = 0; i < steps.size(); i++) {
            Map<?, ?> step = asMap(steps.get(i), file);
            String outcome;
            try {
                outcome = write(runStep(session, step));
            } catch (MinigrafException e) {
                outcome = write(errorOutcome(e));
            }
            transcript.append(name).append('#').append(i).append('\t').append(outcome).append('\n');
        }
    }

    private static Object runStep(Session session, Map<?, ?> step) {
        if (step.containsKey("reopen")) {
            session.open();
            if (session.openError != null) {
                throw session.openError;
            }
            return singleton("ok", true);
        }
        if (session.db == null) {
            throw session.openError; // every step reports why the database is not open
        }
        boolean ordered = Boolean.TRUE.equals(step.get("ordered"));
        if (step.containsKey("execute")) {
            return executeOutcome(session.db.execute((String) step.get("execute")), ordered);
        }
        if (step.containsKey("query")) {
            try (Cursor cursor = session.db.query((String) step.get("query"))) {
                return rowsOutcome(cursor, batchOf(step), ordered);
            }
        }
        if (step.containsKey("query_typed")) {
            try (Cursor cursor = session.db.query((String) step.get("query_typed"))) {
                return typedRowsOutcome(cursor, ordered);
            }
        }
        if (step.containsKey("prepare")) {
            PreparedQuery pq = session.db.prepare((String) step.get("prepare"));
            PreparedQuery old = session.statements.put((String) step.get("as"), pq);
            if (old != null) {
                old.close();
            }
            return singleton("ok", true);
        }
        if (step.containsKey("execute_prepared")) {
            PreparedQuery pq = statement(session, step.get("execute_prepared"));
            bind(pq, step);
            return executeOutcome(pq.executeResult(), ordered);
        }
        if (step.containsKey("query_prepared")) {
            PreparedQuery pq = statement(session, step.get("query_prepared"));
            bind(pq, step);
            try (Cursor cursor = pq.query()) {
                return rowsOutcome(cursor, batchOf(step), ordered);
            }
        }
        if (step.containsKey("clear_bindings")) {
            statement(session, step.get("clear_bindings")).clearBindings();
            return singleton("ok", true);
        }
        if (step.containsKey("bind_entity")) {
            statement(session, step.get("bind_entity"))
                    .bind((String) step.get("slot"), Entity.of((String) step.get("uuid")));
            return singleton("ok", true);
        }
        if (step.containsKey("begin_write")) {
            Transaction tx = session.db.beginWrite(); // a failure keeps the open one
            if (session.tx != null) {
                session.tx.close(); // ended already, or the begin would have failed
            }
            session.tx = tx;
            return singleton("ok", true);
        }
        if (step.containsKey("tx_execute") || step.containsKey("tx_query") || step.containsKey("commit")
                || step.containsKey("rollback")) {
            return transactionStep(session, step, ordered);
        }
        if (step.containsKey("query_cancelled")) {
            Object every = step.get("every");
            session.db.setProgressHandler(every == null ? 1 : ((Long) every).intValue(), () -> true);
            try {
                return executeOutcome(session.db.execute((String) step.get("query_cancelled")), ordered);
            } finally {
                session.db.setProgressHandler(1, null);
            }
        }
        if (step.containsKey("tx_count")) {
            return singleton("tx_count", session.db.txCount());
        }
        if (step.containsKey("checkpoint")) {
            session.db.checkpoint();
            return singleton("ok", true);
        }
        if (step.containsKey("fact_log")) {
            return factLogOutcome(session.db, step.get("fact_log"));
        }
        if (step.containsKey("export_import")) {
            return exportImport(session);
        }
        throw new IllegalArgumentException("unknown step " + step.keySet());
    }

    private static int batchOf(Map<?, ?> step) {
        Object batchValue = step.get("batch");
        return batchValue == null ? 1000 : ((Long) batchValue).intValue();
    }

    /** {"variables":[...],"rows":[...]} of a cursor drained in batches (values as plain JSON). */
    private static Object rowsOutcome(Cursor cursor, int batch, boolean ordered) {
        Map<String, Object> outcome = new LinkedHashMap<>();
        outcome.put("variables", new ArrayList<Object>(cursor.variables()));
        List<Object> rows = new ArrayList<>();
        for (List<List<Object>> b = cursor.nextBatch(batch); !b.isEmpty(); b = cursor.nextBatch(batch)) {
            rows.addAll(b);
        }
        outcome.put("rows", ordered ? rows : sortRows(rows));
        return outcome;
    }

    /** {"variables":[...],"rows":[...]} with every value typed, read through the iterator. */
    private static Object typedRowsOutcome(Cursor cursor, boolean ordered) {
        Map<String, Object> outcome = new LinkedHashMap<>();
        outcome.put("variables", new ArrayList<Object>(cursor.variables()));
        List<Object> rows = new ArrayList<>();
        for (List<Object> row : cursor) {
            List<Object> typed = new ArrayList<>();
            for (Object value : row) {
                typed.add(typedOf(value));
            }
            rows.add(typed);
        }
        outcome.put("rows", ordered ? rows : sortRows(rows));
        return outcome;
    }

    /** A row value as {"type":T,"value":V} by its Java class. */
    private static Object typedOf(Object value) {
        Map<String, Object> typed = new LinkedHashMap<>();
        String type;
        Object inner = value;
        if (value == null) {
            type = "null";
        } else if (value instanceof String) {
            type = "string";
        } else if (value instanceof Long) {
            type = "integer";
        } else if (value instanceof Double) {
            type = "float";
            double d = (Double) value;
            inner = Double.isNaN(d) ? "NaN" : Double.isInfinite(d) ? (d > 0 ? "Infinity" : "-Infinity") : value;
        } else if (value instanceof Boolean) {
            type = "boolean";
        } else if (value instanceof Keyword) {
            type = "keyword";
            inner = ((Keyword) value).text();
        } else if (value instanceof Entity) {
            type = "ref";
            inner = value.toString();
        } else if (value instanceof List) {
            type = "list";
            List<Object> items = new ArrayList<>();
            for (Object item : (List<?>) value) {
                items.add(typedOf(item));
            }
            inner = items;
        } else {
            throw new IllegalArgumentException("a row holds a " + value.getClass());
        }
        typed.put("type", type);
        typed.put("value", inner);
        return typed;
    }

    private static PreparedQuery statement(Session session, Object name) {
        PreparedQuery pq = session.statements.get((String) name);
        if (pq == null) {
            throw new IllegalArgumentException("no prepared query named " + name);
        }
        return pq;
    }

    /** The step's binds, as their canonical JSON text (README "Prepared query steps"). */
    private static void bind(PreparedQuery pq, Map<?, ?> step) {
        if (step.containsKey("binds")) {
            pq.bindJson(write(step.get("binds")));
        }
    }

    /** tx_execute, tx_query, commit, rollback; without a transaction, C's NULL-handle outcome. */
    private static Object transactionStep(Session session, Map<?, ?> step, boolean ordered) {
        Transaction tx = session.tx;
        if (tx == null) {
            Map<String, Object> error = new LinkedHashMap<>();
            error.put("code", "");
            error.put("message", "");
            return singleton("error", error);
        }
        if (step.containsKey("tx_execute")) {
            return executeOutcome(tx.execute((String) step.get("tx_execute")), ordered);
        }
        if (step.containsKey("tx_query")) {
            try (Cursor cursor = tx.query((String) step.get("tx_query"))) {
                return rowsOutcome(cursor, batchOf(step), ordered);
            }
        }
        if (step.containsKey("commit")) {
            tx.commit();
        } else {
            tx.rollback();
        }
        return singleton("ok", true);
    }

    /** The five host functions of README "Host functions", registered on every open. */
    private static final class HostFunctions {
        static void register(Minigraf db) {
            db.registerPredicate("email?", v -> v.type() == Value.Type.STRING && v.asString().contains("@"));
            db.registerPredicate("big?", v -> v.type() == Value.Type.INTEGER && v.asLong() > 100);
            db.registerPredicate("fails?", v -> {
                throw new IllegalStateException("fails? always fails");
            });
            db.registerAggregate("geomean", () -> new double[2], (acc, v) -> {
                if (v.isNull()) {
                    return acc;
                }
                if (!v.isNumber() || !(v.asDouble() > 0)) {
                    throw new IllegalArgumentException("geomean: expected a positive number");
                }
                acc[0] += Math.log(v.asDouble());
                acc[1] += 1;
                return acc;
            }, (double[] acc) -> acc[1] == 0 ? null
                    : (Object) (Math.floor(Math.exp(acc[0] / acc[1]) * 1e9 + 0.5) / 1e9));
            db.registerAggregate("sum-int", () -> new long[1], (acc, v) -> {
                if (v.isNull()) {
                    return acc;
                }
                if (v.type() != Value.Type.INTEGER) {
                    throw new IllegalArgumentException("sum-int: expected an integer");
                }
                acc[0] += v.asLong();
                return acc;
            }, (long[] acc) -> (Object) acc[0]);
        }
    }

    /** Records per batch in the fact log steps, to cross batch boundaries. */
    private static final int LOG_BATCH = 2;

    /**
     * The fact log through FactLog.nextBatch(2), in the stream's order:
     * {"records":[[entity, attribute, value, tx_count, valid_to, asserted], ...]}
     * without the wall-clock fields.
     */
    private static Object factLogOutcome(Minigraf db, Object filterSpec) {
        List<Object> records = new ArrayList<>();
        try (FactLog log = db.factLog(filter(filterSpec))) {
            for (List<FactRecord> b = log.nextBatch(LOG_BATCH); !b.isEmpty(); b = log.nextBatch(LOG_BATCH)) {
                for (FactRecord r : b) {
                    records.add(Arrays.asList(r.entity(), r.attribute(), typedValue(r.value()), r.txCount(),
                            r.validTo(), r.asserted()));
                }
            }
        }
        return singleton("records", records);
    }

    /** {"type":..., "value":...}; a non-finite float's value as "NaN", "Infinity" or "-Infinity". */
    private static Object typedValue(TypedValue value) {
        Map<String, Object> typed = new LinkedHashMap<>();
        typed.put("type", value.type().jsonName());
        Object inner = value.value();
        if (inner instanceof Double && Double.isNaN((Double) inner)) {
            inner = "NaN";
        } else if (inner instanceof Double && Double.isInfinite((Double) inner)) {
            inner = (Double) inner > 0 ? "Infinity" : "-Infinity";
        }
        typed.put("value", inner);
        return typed;
    }

    /**
     * The case's filter object (or null) as a FactLogFilter: built with
     * FactLogFilter.builder() when the builder can express it, otherwise
     * (the deliberately malformed filters of the error cases: unknown keys,
     * wrong types) passed to the library as JSON text with
     * FactLogFilter.ofJson, so that its own error surfaces.
     */
    private static FactLogFilter filter(Object spec) {
        if (spec == null) {
            return FactLogFilter.all();
        }
        FactLogFilter built = buildFilter(spec);
        return built != null ? built : FactLogFilter.ofJson(write(spec));
    }

    /** The filter through the builder, or null if the builder cannot express it. */
    private static FactLogFilter buildFilter(Object spec) {
        if (!(spec instanceof Map)) {
            return null;
        }
        FactLogFilter.Builder filter = FactLogFilter.builder();
        for (Map.Entry<?, ?> entry : ((Map<?, ?>) spec).entrySet()) {
            Object value = entry.getValue();
            switch ((String) entry.getKey()) {
                case "attributes":
                case "attribute_prefixes":
                case "entities": {
                    List<String> strings = strings(value);
                    if (strings == null) {
                        return null;
                    }
                    if (entry.getKey().equals("attributes")) {
                        filter.attributes(strings);
                    } else if (entry.getKey().equals("attribute_prefixes")) {
                        filter.attributePrefixes(strings);
                    } else {
                        filter.entities(strings);
                    }
                    break;
                }
                case "tx_from":
                    if (!(value instanceof Long)) {
                        return null;
                    }
                    filter.txFrom((Long) value);
                    break;
                case "tx_to":
                    if (!(value instanceof Long)) {
                        return null;
                    }
                    filter.txTo((Long) value);
                    break;
                case "window": {
                    if (!(value instanceof Map)) {
                        return null;
                    }
                    for (Map.Entry<?, ?> bound : ((Map<?, ?>) value).entrySet()) {
                        if (!(bound.getValue() instanceof Long)) {
                            return null;
                        } else if (bound.getKey().equals("from")) {
                            filter.windowFrom((Long) bound.getValue());
                        } else if (bound.getKey().equals("to")) {
                            filter.windowTo((Long) bound.getValue());
                        } else {
                            return null;
                        }
                    }
                    // {} bounds nothing: the same as no window.
                    break;
                }
                case "order":
                    if ("tx".equals(value)) {
                        filter.order(FactLogFilter.Order.TX);
                    } else if ("storage".equals(value)) {
                        filter.order(FactLogFilter.Order.STORAGE);
                    } else {
                        return null;
                    }
                    break;
                default:
                    return null;
            }
        }
        return filter.build();
    }

    /** A JSON array of strings as a list, or null if it is not one. */
    private static List<String> strings(Object value) {
        if (!(value instanceof List)) {
            return null;
        }
        List<String> strings = new ArrayList<>();
        for (Object item : (List<?>) value) {
            if (!(item instanceof String)) {
                return null;
            }
            strings.add((String) item);
        }
        return strings;
    }

    /**
     * Copies the database into a new file (fact log in "tx" order, appended
     * in batches of 2, the counter advanced to the source's, finished),
     * closes the source and continues the case on the copy.
     */
    private static Object exportImport(Session session) {
        Minigraf db = session.db;
        String target = session.workDir.resolve("export-" + (++session.exports) + ".graph").toString();
        try (FactLog log = db.factLog(FactLogFilter.builder().order(FactLogFilter.Order.TX).build());
                LogWriter writer = LogWriter.create(target)) {
            for (List<FactRecord> b = log.nextBatch(LOG_BATCH); !b.isEmpty(); b = log.nextBatch(LOG_BATCH)) {
                writer.appendBatch(b);
            }
            writer.advanceTxCount(db.txCount());
            writer.finish();
        }
        session.close();
        session.path = target;
        session.open();
        if (session.openError != null) {
            throw session.openError;
        }
        return singleton("ok", true);
    }

    /** The execute result with its keys as the engine emits them; the wall clock as "<ms>". */
    private static Object executeOutcome(Result result, boolean ordered) {
        switch (result.kind()) {
            case TRANSACTED:
                return singleton("transacted", result.txId() > 0 ? "<ms>" : (Object) result.txId());
            case RETRACTED:
                return singleton("retracted", result.txId() > 0 ? "<ms>" : (Object) result.txId());
            case OK:
                return singleton("ok", true);
            default:
                Map<String, Object> outcome = new LinkedHashMap<>();
                outcome.put("variables", new ArrayList<Object>(result.variables()));
                List<Object> rows = new ArrayList<>(result.rows());
                outcome.put("results", ordered ? rows : sortRows(rows));
                return outcome;
        }
    }

    private static Object errorOutcome(MinigrafException e) {
        Map<String, Object> error = new LinkedHashMap<>();
        error.put("code", e.getCode());
        error.put("message", e.getMessage());
        return singleton("error", error);
    }

    private static List<Object> sortRows(List<Object> rows) {
        List<String> texts = new ArrayList<>();
        for (Object row : rows) {
            texts.add(write(row));
        }
        texts.sort(BYTE_ORDER);
        List<Object> sorted = new ArrayList<>();
        for (String text : texts) {
            sorted.add(new Canonical(text));
        }
        return sorted;
    }

    // ---- the canonical writer ----------------------------------------------------

    /** An already-written canonical text. */
    private static final class Canonical {
        final String text;

        Canonical(String text) {
            this.text = text;
        }
    }

    static String write(Object value) {
        StringBuilder out = new StringBuilder();
        write(value, out);
        return out.toString();
    }

    private static void write(Object value, StringBuilder out) {
        if (value == null) {
            out.append("null");
        } else if (value instanceof Canonical) {
            out.append(((Canonical) value).text);
        } else if (value instanceof Boolean) {
            out.append(value);
        } else if (value instanceof String) {
            writeString((String) value, out);
        } else if (value instanceof Keyword || value instanceof Entity) {
            writeString(value.toString(), out); // as the library's JSON writes them
        } else if (value instanceof Long) {
            out.append((long) (Long) value);
        } else if (value instanceof Double) {
            writeNumber((Double) value, out);
        } else if (value instanceof List) {
            out.append('[');
            String separator = "";
            for (Object item : (List<?>) value) {
                out.append(separator);
                write(item, out);
                separator = ",";
            }
            out.append(']');
        } else if (value instanceof Map) {
            out.append('{');
            String separator = "";
            for (Map.Entry<?, ?> entry : ((Map<?, ?>) value).entrySet()) {
                out.append(separator);
                writeString((String) entry.getKey(), out);
                out.append(':');
                write(entry.getValue(), out);
                separator = ",";
            }
            out.append('}');
        } else {
            throw new IllegalArgumentException("cannot write " + value.getClass());
        }
    }

    private static void writeString(String s, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"') {
                out.append("\\\"");
            } else if (c == '\\') {
                out.append("\\\\");
            } else if (c < 0x20) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        out.append('"');
    }

    /**
     * A double as the README's canonical number. Its shortest round-trip
     * digits d1…dn and exponent x are found exactly (the fewest significant
     * digits p whose correctly rounded decimal reads back as the same
     * double; Double.toString is not always shortest). If that decimal is an
     * integer within 64 bits it is written as one ("30" for 30.0);
     * otherwise as "d1.d2…dne<x>". The decimal, not the double's exact
     * binary value, decides: this is what the engine's JSON token says.
     */
    static void writeNumber(double x, StringBuilder out) {
        if (Double.isNaN(x) || Double.isInfinite(x)) {
            out.append("null");
            return;
        }
        BigDecimal exact = new BigDecimal(x);
        BigDecimal shortest = exact;
        for (int p = 1; p <= 17; p++) {
            BigDecimal rounded = exact.round(new MathContext(p, RoundingMode.HALF_EVEN));
            if (rounded.doubleValue() == x) {
                shortest = rounded;
                break;
            }
        }
        shortest = shortest.stripTrailingZeros();
        if (shortest.signum() == 0) {
            out.append('0');
            return;
        }
        if (shortest.scale() <= 0 && shortest.compareTo(LONG_MIN) >= 0 && shortest.compareTo(LONG_MAX) <= 0) {
            out.append(shortest.toBigIntegerExact());
            return;
        }
        String digits = shortest.unscaledValue().abs().toString();
        int exponent = digits.length() - 1 - shortest.scale();
        if (shortest.signum() < 0) {
            out.append('-');
        }
        out.append(digits.charAt(0));
        if (digits.length() > 1) {
            out.append('.').append(digits, 1, digits.length());
        }
        out.append('e').append(exponent);
    }

    // ---- helpers -------------------------------------------------------------------

    private static Map<String, Object> singleton(String key, Object value) {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put(key, value);
        return map;
    }

    private static Map<?, ?> asMap(Object value, Path file) {
        if (!(value instanceof Map)) {
            throw new IllegalArgumentException(file + ": expected a JSON object, got " + value);
        }
        return (Map<?, ?>) value;
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            System.err.println("ParityRunner: cannot delete " + dir + ": " + e);
        }
    }
}
