import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.minigraf.Minigraf;
import org.minigraf.OpenOptions;
import org.minigraf.PreparedQuery;

/**
 * minigraf through Java beside SQLite through sqlite-jdbc, on the envelope
 * fixture and the EAV table bench_compare builds from it (bench/compare),
 * with the shapes' texts of bench/shapes.c (bench_shapes_java prints them).
 * bench/bindings/bench_java.sh runs one process per shape.
 *
 * <pre>
 * java -cp minigraf.jar:sqlite-jdbc.jar:DIR BenchJava shape   FIXTURE SQLITE SHAPES_TSV NAME
 * java -cp ...                             BenchJava threads FIXTURE SHAPES_TSV NAME THREADS SECONDS
 * </pre>
 *
 * <p>{@code shape}: times the query through {@code db.queryAll(text)} (the
 * same C calls bench_compare times: minigraf_query with its cached parse,
 * then every row stepped and every column read), through a prepared query
 * ({@code pq.execute()}), and the shape's SQL through a JDBC
 * PreparedStatement prepared once (every row, every column with
 * getObject). Each: warm-up, then runs until 1 s and 5 runs (at most
 * 5000); p50 and p99. One JSON line.
 *
 * <p>{@code threads}: one Minigraf shared by 1 thread, then by THREADS
 * threads, each running the shape's prepared query for SECONDS; queries per
 * second of each, their ratio and the cores the process kept busy meanwhile
 * (process CPU time over wall time: on a shared machine, the share it got,
 * which bounds the ratio). One JSON line.
 */
public final class BenchJava {
    private static final int MAX_RUNS = 5000;
    private static final double BUDGET_S = 1.0;
    private static final int MIN_RUNS = 5;
    private static final double WARMUP_S = 0.5;

    private BenchJava() {}

    /** One run: the number of rows it read (every value already a Java object). */
    private interface Run {
        long run() throws Exception;
    }

    private static final class Timing {
        long rows;
        int runs;
        double p50Us;
        double p99Us;
    }

    private static Timing time(Run run) throws Exception {
        Timing t = new Timing();
        t.rows = run.run();
        long warm = System.nanoTime();
        for (int i = 0; i < 3 || System.nanoTime() - warm < WARMUP_S * 1e9; i++) {
            run.run();
        }
        double[] us = new double[MAX_RUNS];
        double spent = 0;
        int n = 0;
        while (n < MAX_RUNS && (n < MIN_RUNS || spent < BUDGET_S * 1e6)) {
            long t0 = System.nanoTime();
            long rows = run.run();
            us[n] = (System.nanoTime() - t0) / 1e3;
            spent += us[n++];
            if (rows != t.rows) {
                throw new IllegalStateException("unstable row count: " + rows + " then " + t.rows);
            }
        }
        Arrays.sort(us, 0, n);
        t.runs = n;
        t.p50Us = us[n / 2];
        t.p99Us = us[(int) ((n - 1) * 0.99 + 0.5)];
        return t;
    }

    /** The shape's line of SHAPES_TSV: name, datalog, sql, expected rows, rules. */
    private static String[] shape(String tsv, String name) throws IOException {
        for (String line : Files.readAllLines(Paths.get(tsv), StandardCharsets.UTF_8)) {
            String[] fields = line.split("\t", -1);
            if (fields[0].equals(name)) {
                return fields;
            }
        }
        throw new IllegalArgumentException("no shape " + name + " in " + tsv);
    }

    private static final String[] BOSS_RULES = {
        "(rule [(boss ?x ?b) [?x :manager ?b]])",
        "(rule [(boss ?x ?b) [?x :manager ?m] (boss ?m ?b)])",
    };

    private static Minigraf open(String path, boolean rules) {
        // Rules live with an open database, and registering one is refused read-only.
        Minigraf db = Minigraf.open(path, OpenOptions.builder().readOnly(!rules).build());
        if (rules) {
            for (String rule : BOSS_RULES) {
                db.execute(rule);
            }
        }
        return db;
    }

    private static long sqlRows(PreparedStatement ps) throws SQLException {
        long rows = 0;
        try (ResultSet rs = ps.executeQuery()) {
            int cols = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                for (int c = 1; c <= cols; c++) {
                    rs.getObject(c);
                }
                rows++;
            }
        }
        return rows;
    }

    private static void shapeMode(String fixture, String sqlite, String tsv, String name) throws Exception {
        String[] s = shape(tsv, name);
        String query = s[1];
        String sql = s[2];
        long expected = Long.parseLong(s[3]);
        Timing text;
        Timing prepared;
        try (Minigraf db = open(fixture, s[4].equals("1")); PreparedQuery pq = db.prepare(query)) {
            text = time(() -> db.queryAll(query).size());
            prepared = time(() -> pq.execute().size());
        }
        Timing lite;
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:file:" + sqlite + "?mode=ro");
                PreparedStatement ps = c.prepareStatement(sql)) {
            lite = time(() -> sqlRows(ps));
        }
        String check = expected >= 0 && text.rows != expected ? "ROWS " + text.rows + " expected " + expected
                : text.rows != lite.rows ? "SQLite rows " + lite.rows : "ok";
        System.out.printf(Locale.ROOT, "{\"shape\":\"%s\",\"rows\":%d,\"java_p50_us\":%.2f,\"java_p99_us\":%.2f,"
                + "\"java_prepared_p50_us\":%.2f,\"sqlite_jdbc_p50_us\":%.2f,\"sqlite_jdbc_p99_us\":%.2f,"
                + "\"runs\":%d,\"check\":\"%s\"}%n", name, text.rows, text.p50Us, text.p99Us, prepared.p50Us,
                lite.p50Us, lite.p99Us, text.runs, check);
    }

    /** This process's CPU time so far, in ns. */
    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /**
     * Queries per second of `threads` threads running the prepared query for `seconds`, and the
     * cores the process kept busy meanwhile.
     */
    private static double[] rate(Minigraf db, String query, int threads, double seconds) throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong done = new AtomicLong();
        CountDownLatch ready = new CountDownLatch(threads);
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        List<Throwable> errors = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread w = new Thread(() -> {
                try (PreparedQuery pq = db.prepare(query)) {
                    pq.execute(); // warm
                    ready.countDown();
                    go.await();
                    long n = 0;
                    while (!stop.get()) {
                        pq.execute();
                        n++;
                    }
                    done.addAndGet(n);
                } catch (Throwable e) {
                    synchronized (errors) {
                        errors.add(e);
                    }
                }
            });
            w.start();
            workers.add(w);
        }
        ready.await();
        long cpu0 = processCpuNanos();
        long t0 = System.nanoTime();
        go.countDown();
        Thread.sleep((long) (seconds * 1000));
        stop.set(true);
        for (Thread w : workers) {
            w.join();
        }
        double elapsed = (System.nanoTime() - t0) / 1e9;
        double cores = (processCpuNanos() - cpu0) / 1e9 / elapsed;
        if (!errors.isEmpty()) {
            throw new IllegalStateException(errors.get(0));
        }
        return new double[] {done.get() / elapsed, cores};
    }

    private static void threadsMode(String fixture, String tsv, String name, int threads, double seconds)
            throws Exception {
        String[] s = shape(tsv, name);
        try (Minigraf db = open(fixture, s[4].equals("1"))) {
            rate(db, s[1], 1, 0.5); // JIT warm-up
            double[] one = rate(db, s[1], 1, seconds);
            double[] many = rate(db, s[1], threads, seconds);
            System.out.printf(Locale.ROOT, "{\"shape\":\"%s\",\"threads\":%d,\"qps_1\":%.0f,\"qps_n\":%.0f,"
                    + "\"speedup\":%.2f,\"cores_1\":%.2f,\"cores_n\":%.2f}%n", name, threads, one[0], many[0],
                    many[0] / one[0], one[1], many[1]);
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 5 && args[0].equals("shape")) {
            shapeMode(args[1], args[2], args[3], args[4]);
        } else if (args.length == 6 && args[0].equals("threads")) {
            threadsMode(args[1], args[2], args[3], Integer.parseInt(args[4]), Double.parseDouble(args[5]));
        } else {
            System.err.println("usage: BenchJava shape FIXTURE SQLITE SHAPES_TSV NAME\n"
                    + "       BenchJava threads FIXTURE SHAPES_TSV NAME THREADS SECONDS");
            System.exit(2);
        }
    }
}
