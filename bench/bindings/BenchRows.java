import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.List;
import org.minigraf.Cursor;
import org.minigraf.Minigraf;
import org.minigraf.OpenOptions;

/**
 * The Java package's cost per row (issue 14): attribute_scan ({@code :find ?e ?a :where [?e :age
 * ?a]}, an Entity and a Long per row) read two ways, runs alternating: through a Cursor's iterator
 * with the rows dropped, and through {@code queryAll} with the rows kept until the run ends; every
 * value touched. Timed by this thread's CPU time (steadier than wall time on a shared machine) and
 * by every thread's (the garbage collector's too; Linux's /proc/self/task/N/schedstat). Compare
 * with bench_rows's "cpu" columns for C's step loop on the same fixture: the difference is the
 * binding's cost per row.
 *
 * <pre>
 *   javac -cp minigraf-0.2.0.jar -d out bench/bindings/BenchRows.java
 *   java -cp minigraf-0.2.0.jar:out BenchRows DIR/envelope-1000000.graph [RUNS]
 * </pre>
 */
public final class BenchRows {
    private static final String QUERY = "(query [:find ?e ?a :where [?e :age ?a]])";
    private static final String[] PATHS = {"iterator", "queryAll"};

    private static long sink;

    public static void main(String[] args) throws IOException {
        if (args.length < 1) {
            System.err.println("usage: BenchRows FIXTURE.graph [RUNS]");
            System.exit(2);
        }
        int runs = args.length > 1 ? Integer.parseInt(args[1]) : 21;
        ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
        try (Minigraf db = Minigraf.open(args[0], OpenOptions.builder().readOnly(true).build())) {
            double[][] thread = new double[PATHS.length][runs];
            double[][] process = new double[PATHS.length][runs];
            for (int i = -10; i < runs; i++) { // 10 warm-up runs for the JIT
                for (int path = 0; path < PATHS.length; path++) {
                    long start = cpu.getCurrentThreadCpuTime();
                    long startAll = allThreadsNanos();
                    long rows = path == 0 ? iterate(db) : keepAll(db);
                    if (i >= 0) {
                        thread[path][i] = (cpu.getCurrentThreadCpuTime() - start) / (double) rows;
                        process[path][i] = (allThreadsNanos() - startAll) / (double) rows;
                    }
                }
            }
            for (int path = 0; path < PATHS.length; path++) {
                Arrays.sort(thread[path]);
                Arrays.sort(process[path]);
                System.out.printf(
                        "attribute_scan, %s: CPU ns/row p50 %.1f min %.1f;"
                                + " all threads p50 %.1f min %.1f%n",
                        PATHS[path],
                        thread[path][runs / 2],
                        thread[path][0],
                        process[path][runs / 2],
                        process[path][0]);
            }
            System.out.println("checksum " + sink);
        }
    }

    private static long iterate(Minigraf db) {
        long rows = 0;
        try (Cursor cursor = db.query(QUERY)) {
            for (List<Object> row : cursor) {
                sink += (Long) row.get(1) + row.get(0).hashCode();
                rows++;
            }
        }
        return rows;
    }

    private static long keepAll(Minigraf db) {
        List<List<Object>> all = db.queryAll(QUERY);
        for (List<Object> row : all) {
            sink += (Long) row.get(1) + row.get(0).hashCode();
        }
        return all.size();
    }

    /** The run time of every thread of this process so far, in ns. */
    private static long allThreadsNanos() throws IOException {
        long sum = 0;
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Paths.get("/proc/self/task"))) {
            for (Path task : tasks) {
                try {
                    String stat = Files.readString(task.resolve("schedstat"));
                    sum += Long.parseLong(stat.substring(0, stat.indexOf(' ')));
                } catch (IOException ended) {
                    // the thread ended meanwhile
                }
            }
        }
        return sum;
    }
}
