import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.List;
import org.minigraf.Cursor;
import org.minigraf.Minigraf;
import org.minigraf.OpenOptions;

/**
 * The Java package's cost per row (issue 14): attribute_scan ({@code :find
 * ?e ?a :where [?e :age ?a]}, an Entity and a Long per row) read through a
 * Cursor's iterator with every value touched and the rows dropped, timed by
 * this thread's CPU time (steadier than wall time on a shared machine).
 * Compare with bench_rows's "cpu" columns for C's step loop on the same
 * fixture: the difference is the binding's cost per row.
 *
 * <pre>
 *   javac -cp minigraf-0.2.0.jar -d out bench/bindings/BenchRows.java
 *   java -cp minigraf-0.2.0.jar:out BenchRows DIR/envelope-1000000.graph [RUNS]
 * </pre>
 */
public final class BenchRows {
    private static final String QUERY = "(query [:find ?e ?a :where [?e :age ?a]])";

    public static void main(String[] args) {
        if (args.length < 1) {
            System.err.println("usage: BenchRows FIXTURE.graph [RUNS]");
            System.exit(2);
        }
        int runs = args.length > 1 ? Integer.parseInt(args[1]) : 21;
        ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
        try (Minigraf db = Minigraf.open(args[0], OpenOptions.builder().readOnly(true).build())) {
            double[] perRow = new double[runs];
            long sink = 0;
            for (int i = -10; i < runs; i++) { // 10 warm-up runs for the JIT
                long start = cpu.getCurrentThreadCpuTime();
                long rows = 0;
                try (Cursor cursor = db.query(QUERY)) {
                    for (List<Object> row : cursor) {
                        sink += (Long) row.get(1) + row.get(0).hashCode();
                        rows++;
                    }
                }
                if (i >= 0) {
                    perRow[i] = (cpu.getCurrentThreadCpuTime() - start) / (double) rows;
                }
            }
            Arrays.sort(perRow);
            System.out.printf("attribute_scan, iterator: CPU ns/row p50 %.1f min %.1f (checksum %d)%n",
                    perRow[runs / 2], perRow[0], sink);
        }
    }
}
