import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;
import org.minigraf.Cursor;
import org.minigraf.Entity;
import org.minigraf.Json;
import org.minigraf.Keyword;
import org.minigraf.Minigraf;
import org.minigraf.MinigrafException;
import org.minigraf.OpenOptions;
import org.minigraf.PreparedQuery;

/**
 * Runs the hostile-input catalogue (tests/hostile/README.md) against the
 * org.minigraf API, as a Java user calls it: {@code Minigraf.open} /
 * {@code openInMemory} with {@link OpenOptions}, {@code execute},
 * {@code query}, {@code prepare} (bind with String, Long, Double, Boolean,
 * {@link Keyword}, {@link Entity}, bindTxCount, bindTimestamp,
 * bindAnyValidTime, bindJson), {@code checkpoint} and {@code close}.
 *
 * <pre>
 * java -cp minigraf-0.2.0.jar:&lt;dir of HostileRunner.class&gt; HostileRunner tests/hostile/cases [case.json ...]
 * </pre>
 *
 * <p>Every error must be a {@link MinigrafException} whose message starts
 * with "[CODE] "; any other exception fails the step. Other processes (a
 * crashing writer, a full disk, an unprivileged user) are this class run
 * again with {@code --job FILE}: under {@code prlimit --fsize} for
 * RLIMIT_FSIZE (the JVM ignores SIGXFSZ), through {@code setpriv} as nobody
 * for permission cases, ending in {@code Runtime.halt} (nothing closed) for
 * a crash; close_during closes the database from a second thread. Text
 * that is not UTF-8 cannot be a Java String: a UTF-8-encoded
 * surrogate is played as the lone UTF-16 surrogate it stands for, any other
 * invalid byte makes the case a "skip NAME (reason)", never a pass. Exits
 * non-zero on any failure.
 */
public final class HostileRunner {
    private static final int PAGE = 4096;
    private static final String PROBE = "(query [:find ?e :where [?e :hostile/probe _]])";
    private static final String NOBODY = "65534";

    /** The case needs something a Java caller cannot do. */
    static final class Skip extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Skip(String reason) {
            super(reason);
        }
    }

    private HostileRunner() {}

    // ---- JSON access ---------------------------------------------------------------

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object o) {
        return (Map<String, Object>) o;
    }

    @SuppressWarnings("unchecked")
    static List<Object> list(Object o) {
        return (List<Object>) o;
    }

    // ---- texts ---------------------------------------------------------------------

    /** The bytes of a TEXT: a string or {concat: [string | {repeat, times} | {hex}]}. */
    static byte[] textBytes(Object value) {
        if (value instanceof String) {
            return ((String) value).getBytes(StandardCharsets.UTF_8);
        }
        Map<String, Object> v = map(value);
        List<Object> pieces = v.containsKey("concat") ? list(v.get("concat")) : List.of(value);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Object p : pieces) {
            if (p instanceof String) {
                out.writeBytes(((String) p).getBytes(StandardCharsets.UTF_8));
            } else if (map(p).containsKey("repeat")) {
                String unit = (String) map(p).get("repeat");
                out.writeBytes(unit.repeat((int) (long) (Long) map(p).get("times")).getBytes(StandardCharsets.UTF_8));
            } else if (map(p).containsKey("hex")) {
                String hex = (String) map(p).get("hex");
                for (int i = 0; i < hex.length(); i += 2) {
                    out.write(Integer.parseInt(hex.substring(i, i + 2), 16));
                }
            } else {
                throw new IllegalArgumentException("bad text piece " + p);
            }
        }
        return out.toByteArray();
    }

    /**
     * The Java string of a TEXT. Valid UTF-8 decodes as such; the three-byte
     * encoding of a surrogate (ED A0..BF xx) becomes that lone surrogate, the
     * only ill-formed text a String can hold; anything else is a Skip.
     */
    static String textString(Object value) {
        byte[] bytes = textBytes(value);
        StringBuilder out = new StringBuilder();
        int start = 0;
        for (int i = 0; i + 2 < bytes.length; i++) {
            if ((bytes[i] & 0xff) == 0xed && (bytes[i + 1] & 0xe0) == 0xa0 && (bytes[i + 2] & 0xc0) == 0x80) {
                out.append(decodeStrict(bytes, start, i));
                out.append((char) (0xd000 | ((bytes[i + 1] & 0x3f) << 6) | (bytes[i + 2] & 0x3f)));
                i += 2;
                start = i + 1;
            }
        }
        return out.append(decodeStrict(bytes, start, bytes.length)).toString();
    }

    static String decodeStrict(byte[] bytes, int from, int to) {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes, from, to - from)).toString();
        } catch (CharacterCodingException e) {
            throw new Skip("text that is not UTF-8 is not a Java String");
        }
    }

    // ---- outcomes ------------------------------------------------------------------

    static boolean matches(Object expect, String code) {
        if (expect instanceof Map) {
            Map<String, Object> byRunner = map(expect);
            expect = byRunner.containsKey("java") ? byRunner.get("java") : byRunner.get("default");
        }
        if (expect == null) {
            expect = "ok";
        }
        List<Object> alternatives = expect instanceof List ? list(expect) : List.of(expect);
        for (Object a : alternatives) {
            String e = (String) a;
            if (e.equals("ok") && code.equals("ok")) {
                return true;
            }
            if (!code.equals("ok") && (e.equals(code) || (e.endsWith("-*") && code.startsWith(e.substring(0, 4))))) {
                return true;
            }
        }
        return false;
    }

    /** Something a step does that may throw. */
    interface Call {
        void run() throws Exception;
    }

    /** Runs the call; returns null or what it threw (a Skip goes on up). */
    static Throwable attempt(Call call) {
        try {
            call.run();
            return null;
        } catch (Skip s) {
            throw s;
        } catch (Throwable t) {
            return t;
        }
    }

    // ---- one case ------------------------------------------------------------------

    static final class Case {
        final String name;
        Map<String, Object> spec;
        final Path dir;
        final Path path;
        Path target;
        boolean opened;
        Minigraf db;
        boolean readOnly;
        long acked;
        final List<String> failures = new ArrayList<>();

        Case(String name, Map<String, Object> spec, Path dir) {
            this.name = name;
            this.spec = spec;
            this.dir = dir;
            this.path = dir.resolve("db.graph");
        }

        void fail(String step, String message) {
            failures.add(step + ": " + message);
        }

        void outcome(String step, Object expect, Throwable error) {
            if (System.getenv("HOSTILE_VERBOSE") != null) {
                String what = error == null ? "ok" : String.valueOf(error.getMessage());
                System.err.println("  " + name + ": " + step + ": " + (what.length() > 160 ? what.substring(0, 160) : what));
            }
            String code = "ok";
            if (error != null) {
                if (!(error instanceof MinigrafException)) {
                    fail(step, error.getClass().getName() + " without a spec code: " + error.getMessage());
                    return;
                }
                code = ((MinigrafException) error).getCode();
                if (!String.valueOf(error.getMessage()).startsWith("[" + code + "] ")) {
                    fail(step, "message without its code: " + error.getMessage());
                }
            }
            if (!matches(expect, code)) {
                String message = error == null ? "" : " (" + error.getMessage() + ")";
                fail(step, "got " + code + (message.length() > 200 ? message.substring(0, 200) : message));
            }
        }

        // ---- opening
        Path targetPath(String t) throws IOException {
            switch (t) {
                case "memory":
                    return null;
                case "file":
                    return path;
                case "other":
                    return dir.resolve("other.graph");
                case "directory":
                    return dir;
                case "dev_null":
                    return Paths.get("/dev/null");
                case "missing_dir":
                    return dir.resolve("missing").resolve("db.graph");
                case "readonly_dir": {
                    Path ro = dir.resolve("ro");
                    Files.createDirectories(ro);
                    Files.setPosixFilePermissions(ro, PosixFilePermissions.fromString("r-xr-xr-x"));
                    return ro.resolve("db.graph");
                }
                default:
                    throw new IllegalArgumentException("unknown target " + t);
            }
        }

        void close() {
            if (db != null && !db.isClosed()) {
                db.close();
            }
        }

        void open(Map<String, Object> step, String t) throws IOException {
            close();
            Map<String, Object> options = step.containsKey("options") ? map(step.get("options")) : Map.of();
            Path where = targetPath(t);
            target = where;
            opened = true;
            Minigraf[] got = new Minigraf[1];
            Throwable error = attempt(() -> {
                OpenOptions.Builder builder = OpenOptions.builder();
                options.forEach(builder::option);
                OpenOptions o = builder.build();
                got[0] = where == null ? Minigraf.openInMemory(o) : Minigraf.open(where.toString(), o);
            });
            outcome("open", step.get("expect"), error);
            if (got[0] != null) {
                db = got[0];
                readOnly = Boolean.TRUE.equals(options.get("read_only"));
            }
        }

        // ---- commands
        void execute(Map<String, Object> step) {
            if ("null".equals(step.get("handle"))) {
                throw new Skip("a NULL handle: a Java caller has no such thing");
            }
            String text = textString(step.get("execute"));
            outcome("execute", step.get("expect"), attempt(() -> db.execute(text)));
        }

        int countRows(String query) {
            return db.queryAll(query).size();
        }

        void count(Map<String, Object> step) {
            int[] got = new int[1];
            String query = (String) step.get("count");
            Throwable error = attempt(() -> got[0] = countRows(query));
            long want = (Long) step.get("rows");
            if (error != null) {
                fail("count", String.valueOf(error));
            } else if (got[0] != want) {
                fail("count", query + ": " + got[0] + " rows, want " + want);
            }
        }

        /** Binds one slot as a Java caller writes it. */
        void bind(PreparedQuery q, String slot, String kind, Object value) {
            switch (kind) {
                case "string":
                    q.bind(slot, textString(value));
                    break;
                case "keyword":
                    q.bind(slot, Keyword.of(textString(value)));
                    break;
                case "entity":
                    q.bind(slot, Entity.of(textString(value)));
                    break;
                case "int64":
                    q.bind(slot, Long.parseLong((String) value));
                    break;
                case "double":
                    q.bind(slot, Double.parseDouble((String) value));
                    break;
                case "bool":
                    q.bind(slot, Boolean.TRUE.equals(value));
                    break;
                case "null":
                    q.bind(slot, null);
                    break;
                case "tx_count":
                    q.bindTxCount(slot, Long.parseUnsignedLong((String) value));
                    break;
                case "timestamp":
                    q.bindTimestamp(slot, Long.parseLong((String) value));
                    break;
                case "any_valid_time":
                    q.bindAnyValidTime(slot);
                    break;
                case "json":
                    q.bindJson(textString(value));
                    break;
                default:
                    throw new IllegalArgumentException("unknown bind kind " + kind);
            }
        }

        void prepare(Map<String, Object> step) {
            PreparedQuery[] q = new PreparedQuery[1];
            Throwable error = attempt(() -> q[0] = db.prepare((String) step.get("prepare")));
            if (error != null) {
                fail("prepare", String.valueOf(error));
                return;
            }
            try (PreparedQuery stmt = q[0]) {
                String kind = (String) step.get("kind");
                Object value = step.get("value");
                if (kind.equals("string") || kind.equals("json")) {
                    textString(value); // a Skip before the call, not an outcome of it
                }
                outcome("bind", step.get("expect"), attempt(() -> bind(stmt, (String) step.get("bind"), kind, value)));
                if (step.containsKey("then")) {
                    outcome("bind then execute", step.get("then"), attempt(stmt::execute));
                }
            }
        }

        void checkpoint(Map<String, Object> step) {
            outcome("checkpoint", step.get("expect"), attempt(() -> db.checkpoint()));
        }

        void transactUntilError(Map<String, Object> step) {
            String template = (String) step.get("transact_until_error");
            long max = step.containsKey("max") ? (Long) step.get("max") : 1000;
            for (long i = 0; i < max; i++) {
                String text = template.replace("{n}", Long.toString(acked));
                Throwable error = attempt(() -> db.execute(text));
                if (error != null) {
                    outcome("transact_until_error", step.get("expect"), error);
                    return;
                }
                acked++;
            }
            outcome("transact_until_error", step.get("expect"), null);
        }

        void checkAcked(Map<String, Object> step) {
            List<List<Object>> rows = db.queryAll((String) step.get("acked"));
            long got = rows.isEmpty() ? 0 : ((Number) rows.get(0).get(0)).longValue();
            if (got != acked) {
                fail("acked", acked + " acknowledged, " + got + " found");
            }
        }

        // ---- files and processes
        Path wal() {
            return Paths.get(path + ".wal");
        }

        void damage(Map<String, Object> step, Path file) throws IOException {
            if (file == null) {
                file = "wal".equals(step.get("file")) ? wal() : path;
            }
            try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
                long size = f.length();
                long offset = step.containsKey("offset") ? ((Number) step.get("offset")).longValue() : 0;
                if (offset < 0) {
                    offset += size;
                }
                String how = (String) step.get("damage");
                if (how.equals("truncate")) {
                    f.setLength(offset);
                } else if (how.equals("zero")) {
                    long length = step.containsKey("length") ? (Long) step.get("length") : size - offset;
                    f.seek(offset);
                    f.write(new byte[(int) length]);
                } else if (how.equals("flip")) {
                    if (offset < size) {
                        f.seek(offset);
                        int b = f.read();
                        long bit = step.containsKey("bit") ? (Long) step.get("bit") : 0;
                        f.seek(offset);
                        f.write(b ^ (1 << (bit & 7)));
                    }
                } else {
                    throw new IllegalArgumentException("unknown damage " + how);
                }
            }
        }

        static void copy(Path source, Path to) throws IOException {
            if (Files.exists(source)) {
                Files.copy(source, to, StandardCopyOption.REPLACE_EXISTING);
            } else {
                Files.deleteIfExists(to);
            }
        }

        void eachPage(Map<String, Object> step) throws IOException, InterruptedException {
            close();
            Path keep = dir.resolve("pristine");
            Path keepWal = dir.resolve("pristine.wal");
            copy(path, keep);
            copy(wal(), keepWal);
            Map<String, Object> how = map(step.get("each_page"));
            long pages = Files.size(keep) / PAGE;
            long at = how.containsKey("offset") ? (Long) how.get("offset") : 0;
            for (long page = 0; page < pages && failures.isEmpty(); page++) {
                copy(keep, path);
                copy(keepWal, wal());
                Map<String, Object> one = new LinkedHashMap<>(how);
                one.put("offset", page * PAGE + at);
                damage(one, path);
                runSteps(list(step.get("steps")));
                close();
            }
            copy(keep, path);
            copy(keepWal, wal());
        }

        /** Plays steps in another JVM: a crash (halted, nothing closed) or a child under a file size limit. */
        void child(Map<String, Object> step, boolean crash) throws IOException, InterruptedException {
            Map<String, Object> job = new LinkedHashMap<>();
            job.put("name", name);
            job.put("dir", dir.toString());
            job.put("crash", crash);
            job.put("steps", step.get(crash ? "crash" : "child"));
            List<String> prefix = new ArrayList<>();
            if (step.containsKey("file_size_limit")) {
                prefix.add("prlimit");
                prefix.add("--fsize=" + step.get("file_size_limit"));
            }
            Map<String, Object> report = runJob(dir, job, prefix);
            if (report == null) {
                fail("child", "the child process reported nothing");
                return;
            }
            if (report.containsKey("skip")) {
                throw new Skip((String) report.get("skip"));
            }
            acked += (Long) report.get("acked");
            for (Object f : list(report.get("failures"))) {
                fail("child", (String) f);
            }
        }

        /** One round of a close_during call; an exception ends the rounds. */
        void oneCall(Minigraf on, String call, String text) {
            switch (call) {
                case "query":
                    on.execute(text);
                    break;
                case "fetch":
                    try (Cursor cursor = on.query(text)) {
                        for (List<Object> row : cursor) {
                            Objects.requireNonNull(row);
                        }
                    }
                    break;
                case "transact":
                case "checkpoint":
                    on.execute(text.replace("{n}", Long.toString(acked)));
                    acked++;
                    if (call.equals("checkpoint")) {
                        on.checkpoint();
                    }
                    break;
                default:
                    throw new IllegalArgumentException("unknown close_during call " + call);
            }
        }

        /**
         * Another thread closes the database while this one repeats a call
         * on it, until the call fails (API-013 interrupted, API-018 closed).
         */
        void closeDuring(Map<String, Object> step) throws InterruptedException {
            String call = (String) step.get("close_during");
            String text = (String) step.getOrDefault("text", "");
            long after = step.containsKey("after_ms") ? (Long) step.get("after_ms") : 0;
            Minigraf on = db;
            Thread closer = new Thread(() -> {
                try {
                    Thread.sleep(after);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                on.close();
            }, "hostile-closer");
            closer.start();
            try {
                if (call.equals("close")) {
                    on.close(); // both threads at once
                    return;
                }
                long deadline = System.nanoTime() + 30_000_000_000L;
                while (System.nanoTime() < deadline) {
                    Throwable error = attempt(() -> oneCall(on, call, text));
                    if (error != null) {
                        outcome("close_during", step.get("expect"), error);
                        return;
                    }
                }
                fail("close_during", "the calls never failed: the close did not stop them");
            } finally {
                closer.join();
            }
        }

        void foreignWal() throws IOException, InterruptedException {
            Map<String, Object> job = new LinkedHashMap<>();
            job.put("name", "foreign");
            job.put("dir", dir.toString());
            job.put("crash", true);
            job.put("steps", List.of(Map.of("open", "other"), Map.of("execute", "(transact [[:foreign :x/y 1]])")));
            runJob(dir, job, List.of());
            Files.copy(dir.resolve("other.graph.wal"), wal(), StandardCopyOption.REPLACE_EXISTING);
        }

        // ---- the driver
        void runStep(Map<String, Object> step) throws IOException, InterruptedException {
            if (step.containsKey("open")) {
                open(step, (String) step.get("open"));
            } else if (step.containsKey("reopen")) {
                open(step, target == null ? "memory" : "file");
            } else if (step.containsKey("close")) {
                close();
            } else if (step.containsKey("execute")) {
                execute(step);
            } else if (step.containsKey("count")) {
                count(step);
            } else if (step.containsKey("prepare")) {
                prepare(step);
            } else if (step.containsKey("checkpoint")) {
                checkpoint(step);
            } else if (step.containsKey("transact_until_error")) {
                transactUntilError(step);
            } else if (step.containsKey("acked")) {
                checkAcked(step);
            } else if (step.containsKey("damage")) {
                damage(step, null);
            } else if (step.containsKey("each_page")) {
                eachPage(step);
            } else if (step.containsKey("delete_wal")) {
                Files.deleteIfExists(wal());
            } else if (step.containsKey("foreign_wal")) {
                foreignWal();
            } else if (step.containsKey("close_during")) {
                closeDuring(step);
            } else if (step.containsKey("crash")) {
                child(step, true);
            } else if (step.containsKey("child")) {
                child(step, false);
            } else {
                fail("?", "unknown step " + step);
            }
        }

        void runSteps(List<Object> steps) throws IOException, InterruptedException {
            for (Object s : steps) {
                runStep(map(s));
            }
        }

        void probe() {
            if (db == null || db.isClosed()) {
                return;
            }
            Throwable error = attempt(() -> {
                int before = countRows(PROBE);
                if (readOnly) {
                    return;
                }
                db.execute("(transact [[:hostile-probe :hostile/probe 1]])");
                if (countRows(PROBE) != 1 || before != 0) {
                    fail("probe", "the probe fact is missing");
                }
            });
            if (error != null) {
                fail("probe", String.valueOf(error));
            }
        }

        void run() throws IOException, InterruptedException {
            try {
                runSteps(list(spec.get("steps")));
                if (!Boolean.FALSE.equals(spec.get("usable"))) {
                    probe();
                }
            } finally {
                close();
            }
        }
    }

    // ---- other processes -------------------------------------------------------------

    /** JSON text of the runner's own simple values (maps, lists, strings, numbers, booleans). */
    static String toJson(Object v) {
        if (v == null) {
            return "null";
        }
        if (v instanceof String) {
            StringBuilder b = new StringBuilder("\"");
            for (char c : ((String) v).toCharArray()) {
                if (c == '"' || c == '\\') {
                    b.append('\\').append(c);
                } else if (c < 0x20) {
                    b.append(String.format("\\u%04x", (int) c));
                } else {
                    b.append(c);
                }
            }
            return b.append('"').toString();
        }
        if (v instanceof Map) {
            StringBuilder b = new StringBuilder("{");
            for (Map.Entry<String, Object> e : map(v).entrySet()) {
                b.append(b.length() > 1 ? "," : "").append(toJson(e.getKey())).append(':').append(toJson(e.getValue()));
            }
            return b.append('}').toString();
        }
        if (v instanceof List) {
            StringBuilder b = new StringBuilder("[");
            for (Object o : list(v)) {
                b.append(b.length() > 1 ? "," : "").append(toJson(o));
            }
            return b.append(']').toString();
        }
        return String.valueOf(v);
    }

    /** The command line of this runner in a new JVM, with `classpath`. */
    static List<String> javaCommand(String classpath) {
        String java = ProcessHandle.current().info().command().orElse("java");
        return new ArrayList<>(List.of(java, "-XX:-UsePerfData", "-Xshare:auto", "-cp", classpath, HostileRunner.class.getName()));
    }

    /** Runs a job in another JVM (after `prefix`, e.g. prlimit) and returns its report, or null. */
    static Map<String, Object> runJob(Path dir, Map<String, Object> job, List<String> prefix)
            throws IOException, InterruptedException {
        return runJobAs(dir, job, prefix, System.getProperty("java.class.path"));
    }

    static Map<String, Object> runJobAs(Path dir, Map<String, Object> job, List<String> prefix, String classpath)
            throws IOException, InterruptedException {
        Path file = Files.createTempFile(dir, "job-", ".json");
        Files.write(file, toJson(job).getBytes(StandardCharsets.UTF_8));
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        List<String> command = new ArrayList<>(prefix);
        command.addAll(javaCommand(classpath));
        command.add("--job");
        command.add(file.toString());
        Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String out;
        try (InputStream in = p.getInputStream()) {
            out = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        int status = p.waitFor();
        Files.deleteIfExists(file);
        for (String line : out.split("\n")) {
            if (line.startsWith("{")) {
                Map<String, Object> report = map(Json.parse(line));
                if (status != 0 && !report.containsKey("skip")) {
                    list(report.get("failures")).add("the child process ended with status " + status);
                }
                return report;
            }
        }
        return null;
    }

    /** --job FILE: plays a job here and reports {acked, failures} or {skip} on stdout. */
    static int job(String file) throws IOException, InterruptedException {
        Map<String, Object> job = map(Json.parse(Files.readString(Paths.get(file))));
        boolean crash = Boolean.TRUE.equals(job.get("crash"));
        Case c = new Case((String) job.get("name"), map(job.getOrDefault("spec", Map.of())), Paths.get((String) job.get("dir")));
        Map<String, Object> report = new LinkedHashMap<>();
        try {
            if (job.containsKey("spec")) {
                c.run();
            } else {
                c.runSteps(list(job.get("steps")));
                if (!crash) {
                    c.close();
                }
            }
        } catch (Skip s) {
            report.put("skip", s.getMessage());
        } catch (Exception e) {
            c.fail("child", String.valueOf(e));
        }
        if (!report.containsKey("skip")) {
            report.put("acked", c.acked);
            report.put("failures", new ArrayList<Object>(c.failures));
        }
        System.out.println(toJson(report));
        System.out.flush();
        if (crash) {
            Runtime.getRuntime().halt(0); // as a killed process: nothing closed, no cleaner runs
        }
        c.close();
        return 0;
    }

    /**
     * Permission cases mean nothing to root: run them as nobody (setpriv),
     * from a copy of the class path nobody can read.
     */
    static void runAsNobody(Case c) throws IOException, InterruptedException {
        Files.setPosixFilePermissions(c.dir, PosixFilePermissions.fromString("rwxrwxrwx"));
        Path cp = c.dir.resolve("classpath");
        Files.createDirectories(cp);
        List<String> entries = new ArrayList<>();
        int i = 0;
        for (String entry : System.getProperty("java.class.path").split(":")) {
            Path copy = cp.resolve(Integer.toString(i++));
            copyTree(Paths.get(entry), copy);
            entries.add(copy.toString());
        }
        Map<String, Object> job = new LinkedHashMap<>();
        job.put("name", c.name);
        job.put("dir", c.dir.toString());
        job.put("spec", c.spec);
        List<String> prefix = List.of("setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY, "--clear-groups");
        Map<String, Object> report = runJobAs(c.dir, job, prefix, String.join(":", entries));
        if (report == null) {
            c.fail("-", "the unprivileged run reported nothing");
        } else if (report.containsKey("skip")) {
            throw new Skip((String) report.get("skip"));
        } else {
            for (Object f : list(report.get("failures"))) {
                c.fail("unprivileged", (String) f);
            }
        }
    }

    static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> all = Files.walk(from)) {
            for (Path p : (Iterable<Path>) all::iterator) {
                Path t = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(t);
                } else {
                    Files.copy(p, t);
                }
                Files.setPosixFilePermissions(t, PosixFilePermissions.fromString(Files.isDirectory(p) ? "rwxr-xr-x" : "rw-r--r--"));
            }
        }
    }

    static void remove(Path dir) throws IOException {
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) all::iterator) {
                if (Files.isDirectory(p)) {
                    Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwx------"));
                }
            }
        }
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) all.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        }
    }

    // ---- the catalogue ---------------------------------------------------------------

    static String runCase(Path file) throws IOException, InterruptedException {
        Map<String, Object> spec = map(Json.parse(Files.readString(file)));
        String name = (String) spec.getOrDefault("name", file.toString());
        if (spec.containsKey("runners") && !list(spec.get("runners")).contains("java")) {
            System.out.println("skip " + name + " (the case is for " + list(spec.get("runners")) + " only)");
            return "skip";
        }
        Case c = new Case(name, spec, Files.createTempDirectory("minigraf-hostile-java-"));
        try {
            if (Boolean.TRUE.equals(spec.get("unprivileged")) && "root".equals(System.getProperty("user.name"))) {
                runAsNobody(c);
            } else {
                c.run();
            }
        } catch (Skip s) {
            System.out.println("skip " + name + " (" + s.getMessage() + ")");
            return "skip";
        } finally {
            remove(c.dir);
        }
        for (String f : c.failures) {
            System.err.println("  " + name + ": " + f);
        }
        System.out.println((c.failures.isEmpty() ? "ok " : "FAIL ") + name);
        return c.failures.isEmpty() ? "pass" : "fail";
    }

    public static void main(String[] args) throws IOException, InterruptedException {
        if (args.length == 2 && args[0].equals("--job")) {
            System.exit(job(args[1]));
        }
        List<Path> files = new ArrayList<>();
        for (String arg : args) {
            Path p = Paths.get(arg);
            if (Files.isDirectory(p)) {
                try (Stream<Path> all = Files.list(p)) {
                    all.filter(f -> f.toString().endsWith(".json")).sorted().forEach(files::add);
                }
            } else {
                files.add(p);
            }
        }
        Map<String, Integer> counts = new LinkedHashMap<>(Map.of("pass", 0, "fail", 0, "skip", 0));
        for (Path file : files) {
            String result;
            try {
                result = runCase(file);
            } catch (Exception e) {
                e.printStackTrace();
                System.out.println("FAIL " + file.getFileName());
                result = "fail";
            }
            counts.merge(result, 1, Integer::sum);
        }
        System.out.println(counts.get("pass") + " passed, " + counts.get("fail") + " failed, " + counts.get("skip") + " skipped");
        System.exit(counts.get("fail") == 0 && counts.get("pass") > 0 ? 0 : 1);
    }
}
