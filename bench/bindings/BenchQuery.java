import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.minigraf.Cursor;
import org.minigraf.Minigraf;
import org.minigraf.OpenOptions;

/**
 * One query shape through the Java package (the jar on the class path),
 * timed as bench_query.c times it through the C API (see there;
 * bench/bench_bindings.sh compiles this file and runs all four languages):
 *
 * <pre>java -cp minigraf-0.2.0.jar:DIR BenchQuery PATH QUERY [RULE ...]</pre>
 *
 * <p>A run opens the cursor, iterates every row as a user would
 * ({@code for (List<Object> row : cursor)}) and closes it. Prints one JSON
 * line.
 */
public final class BenchQuery {
    private static final int WARMUP_RUNS = 3;
    private static final double WARMUP_S = 0.5;
    private static final int MIN_RUNS = 5;
    private static final double BUDGET_S = 1.5;
    private static final int MAX_RUNS = 5000;

    private BenchQuery() {}

    private static double nowS() {
        return System.nanoTime() / 1e9;
    }

    private static long runOnce(Minigraf db, String query) {
        long rows = 0;
        try (Cursor cursor = db.query(query)) {
            for (List<Object> row : cursor) {
                rows++;
            }
        }
        return rows;
    }

    private static double us(double s) {
        return Math.round(s * 1e8) / 100.0;
    }

    public static void main(String[] args) {
        if (args.length < 2) {
            System.err.println("usage: BenchQuery PATH QUERY [RULE ...]");
            System.exit(2);
        }
        String query = args[1];
        String[] rules = Arrays.copyOfRange(args, 2, args.length);
        // Registering a rule is refused read-only (rules live with the open database).
        OpenOptions options = OpenOptions.builder().readOnly(rules.length == 0).build();
        double[] times = new double[MAX_RUNS];
        int n = 0;
        long rows;
        try (Minigraf db = Minigraf.open(args[0], options)) {
            for (String rule : rules) {
                db.execute(rule);
            }
            rows = runOnce(db, query);
            double start = nowS();
            for (int runs = 1; runs < WARMUP_RUNS || nowS() - start < WARMUP_S; runs++) {
                if (runOnce(db, query) != rows) {
                    throw new IllegalStateException("unstable: " + query);
                }
            }
            double spent = 0;
            while (n < MAX_RUNS && (n < MIN_RUNS || spent < BUDGET_S)) {
                double t0 = nowS();
                long got = runOnce(db, query);
                times[n] = nowS() - t0;
                spent += times[n++];
                if (got != rows) {
                    throw new IllegalStateException("unstable: " + query);
                }
            }
        }
        Arrays.sort(times, 0, n);
        System.out.printf(Locale.ROOT, "{\"rows\": %d, \"runs\": %d, \"p50_us\": %.2f, \"p99_us\": %.2f, \"min_us\": %.2f}%n",
                rows, n, us(times[n / 2]), us(times[(int) ((n - 1) * 0.99 + 0.5)]), us(times[0]));
    }
}
