package org.minigraf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MinigrafTest {
    private static final String NAME_QUERY = "(query [:find ?n :where [?e :person/name ?n]])";

    /** One fact per entity :e0 .. :e{n-1}, attribute :item/n, value i. */
    private static void transactItems(Minigraf db, int n) {
        StringBuilder facts = new StringBuilder("(transact [");
        for (int i = 0; i < n; i++) {
            facts.append("[:e").append(i).append(" :item/n ").append(i).append("]");
        }
        db.execute(facts.append("])").toString());
    }

    private static Object single(Result result) {
        assertEquals(Result.Kind.QUERY, result.kind());
        assertEquals(1, result.rows().size(), () -> "rows: " + result.rows());
        assertEquals(1, result.rows().get(0).size());
        return result.rows().get(0).get(0);
    }

    @Test
    void libraryVersionMatchesTheBinding() {
        assertEquals("0.2.0", Minigraf.libraryVersion());
    }

    @Test
    void transactThenQuery() {
        try (Minigraf db = Minigraf.openInMemory()) {
            Result tx =
                    db.execute(
                            "(transact [[:alice :person/name \"Alice\"] [:alice :person/age 30]])");
            assertEquals(Result.Kind.TRANSACTED, tx.kind());
            assertTrue(tx.txId() > 0);
            assertTrue(tx.rows().isEmpty());

            Result answer = db.execute(NAME_QUERY);
            assertEquals(Result.Kind.QUERY, answer.kind());
            assertEquals(List.of("?n"), answer.variables());
            assertEquals(List.of(List.of("Alice")), answer.rows());
            assertThrows(IllegalStateException.class, answer::txId);
        }
    }

    @Test
    void retractResult() {
        try (Minigraf db = Minigraf.openInMemory()) {
            db.execute("(transact [[:alice :person/name \"Alice\"]])");
            Result retracted = db.execute("(retract [[:alice :person/name \"Alice\"]])");
            assertEquals(Result.Kind.RETRACTED, retracted.kind());
            assertTrue(retracted.txId() > 0);
            assertEquals(Collections.emptyList(), db.execute(NAME_QUERY).rows());
        }
    }

    @Test
    void valueTypesDecode() {
        try (Minigraf db = Minigraf.openInMemory()) {
            db.execute(
                    "(transact [[:v :t/s \"x\"] [:v :t/i 42] [:v :t/f 1.5] [:v :t/g 30.0]"
                            + " [:v :t/b true] [:v :t/k :status/active] [:v :t/n nil]])");
            assertEquals("x", single(db.execute("(query [:find ?x :where [:v :t/s ?x]])")));
            assertEquals(42L, single(db.execute("(query [:find ?x :where [:v :t/i ?x]])")));
            assertEquals(1.5, single(db.execute("(query [:find ?x :where [:v :t/f ?x]])")));
            assertEquals(30.0, single(db.execute("(query [:find ?x :where [:v :t/g ?x]])")));
            assertEquals(
                    Boolean.TRUE, single(db.execute("(query [:find ?x :where [:v :t/b ?x]])")));
            assertEquals(
                    ":status/active", single(db.execute("(query [:find ?x :where [:v :t/k ?x]])")));
            assertEquals(null, single(db.execute("(query [:find ?x :where [:v :t/n ?x]])")));
        }
    }

    @Test
    void extremeIntegersAreExact() {
        try (Minigraf db = Minigraf.openInMemory()) {
            db.execute(
                    "(transact [[:x :n/max 9223372036854775807] [:x :n/min -9223372036854775808]"
                            + " [:x :n/near 9007199254740993]])");
            assertEquals(
                    Long.MAX_VALUE, single(db.execute("(query [:find ?v :where [:x :n/max ?v]])")));
            assertEquals(
                    Long.MIN_VALUE, single(db.execute("(query [:find ?v :where [:x :n/min ?v]])")));
            // 2^53 + 1: not representable as a double.
            assertEquals(
                    9007199254740993L,
                    single(db.execute("(query [:find ?v :where [:x :n/near ?v]])")));
        }
    }

    @Test
    void unicodeRoundTrips() {
        String text = "h\u00e9llo \u65e5\u672c \uD83C\uDF89 \uD834\uDD1E \\ \u00a0 \"q\" \t end";
        String literal = text.replace("\\", "\\\\").replace("\"", "\\\"");
        try (Minigraf db = Minigraf.openInMemory()) {
            db.execute("(transact [[:u :text/v \"" + literal + "\"]])");
            assertEquals(text, single(db.execute("(query [:find ?v :where [:u :text/v ?v]])")));
            // and as a query constant
            Result found = db.execute("(query [:find ?e :where [?e :text/v \"" + literal + "\"]])");
            assertEquals(1, found.rows().size());
        }
    }

    @Test
    void tryWithResourcesClosesAndUseAfterCloseThrows() {
        Minigraf outside;
        try (Minigraf db = Minigraf.openInMemory()) {
            outside = db;
            assertFalse(db.isClosed());
        }
        assertTrue(outside.isClosed());
        MinigrafApiException e =
                assertThrows(MinigrafApiException.class, () -> outside.execute(NAME_QUERY));
        assertEquals("API-018", e.getCode());
        assertEquals(5018, e.getNumericCode());
        assertTrue(e.getMessage().startsWith("[API-018] "), e.getMessage());
        assertThrows(MinigrafApiException.class, outside::txCount);
        assertThrows(MinigrafApiException.class, outside::checkpoint);
        assertThrows(MinigrafApiException.class, () -> outside.query(NAME_QUERY));
        outside.close(); // idempotent
        assertTrue(outside.isClosed());
    }

    @Test
    void txCountCountsCommits() {
        try (Minigraf db = Minigraf.openInMemory()) {
            assertEquals(0, db.txCount());
            db.execute("(transact [[:a :x/y 1]])");
            db.execute("(transact [])");
            assertEquals(2, db.txCount());
            assertThrows(MinigrafParseException.class, () -> db.execute("(transact)"));
            assertEquals(2, db.txCount());
            db.checkpoint(); // no-op in memory
        }
    }

    @Test
    void cursorIsIterableAndBatched() {
        try (Minigraf db = Minigraf.openInMemory()) {
            transactItems(db, 2500);
            String q = "(query [:find ?v :where [?e :item/n ?v]])";

            try (Cursor cursor = db.query(q)) {
                assertEquals(List.of("?v"), cursor.variables());
                List<List<Object>> first = cursor.nextBatch(1000);
                assertEquals(1000, first.size());
                assertEquals(1000, cursor.nextBatch(1000).size());
                assertEquals(500, cursor.nextBatch(1000).size());
                assertTrue(cursor.nextBatch(1000).isEmpty());
                assertTrue(cursor.nextBatch(1).isEmpty());
                assertThrows(IllegalArgumentException.class, () -> cursor.nextBatch(0));
            }

            List<Long> seen = new ArrayList<>();
            try (Cursor cursor = db.query(q)) {
                for (List<Object> row : cursor) {
                    seen.add((Long) row.get(0));
                }
                Iterator<List<Object>> done = cursor.iterator();
                assertFalse(done.hasNext());
                assertThrows(NoSuchElementException.class, done::next);
            }
            Collections.sort(seen);
            assertEquals(2500, seen.size());
            assertEquals(0L, seen.get(0));
            assertEquals(2499L, seen.get(2499));

            Cursor streamed = db.query(q);
            try (Stream<List<Object>> rows = streamed.stream()) {
                assertEquals(2500 * 2499L / 2, rows.mapToLong(r -> (Long) r.get(0)).sum());
            }
            assertTrue(streamed.isClosed(), "closing the stream closes the cursor");

            try (Cursor cursor = db.query(q)) {
                Iterator<List<Object>> it = cursor.iterator();
                it.next(); // fetches a batch of DEFAULT_BATCH rows, delivers one
                int rest = 0;
                for (List<List<Object>> b = cursor.nextBatch(700);
                        !b.isEmpty();
                        b = cursor.nextBatch(700)) {
                    rest += b.size();
                }
                assertEquals(2499, rest, "every row delivered once");
            }
        }
    }

    @Test
    void nextBatchOfAnySizeAndAllDeliverEveryRowOnce() {
        try (Minigraf db = Minigraf.openInMemory()) {
            transactItems(db, 2500);
            String q = "(query [:find ?v :where [?e :item/n ?v]])";
            try (Cursor cursor = db.query(q)) {
                assertEquals(2500, cursor.nextBatch(Integer.MAX_VALUE).size());
                assertTrue(cursor.nextBatch(Integer.MAX_VALUE).isEmpty());
            }
            try (Cursor cursor = db.query(q)) {
                Iterator<List<Object>> it = cursor.iterator();
                Set<Object> seen = new HashSet<>(it.next());
                List<List<Object>> rest = cursor.all();
                assertEquals(2499, rest.size());
                rest.forEach(row -> seen.addAll(row));
                assertEquals(2500, seen.size(), "every row delivered once");
                assertFalse(it.hasNext());
                assertTrue(cursor.all().isEmpty());
            }
        }
    }

    @Test
    void rowListsAreUnmodifiableListsOfRows() {
        try (Minigraf db = Minigraf.openInMemory()) {
            transactItems(db, 3);
            String q = "(query [:find ?v :where [?e :item/n ?v]])";
            List<List<Object>> all = db.queryAll(q);
            List<List<Object>> expected = List.of(List.of(0L), List.of(1L), List.of(2L));
            assertEquals(new HashSet<>(expected), new HashSet<>(all), "rows equal any equal list");
            assertThrows(UnsupportedOperationException.class, () -> all.add(List.of(3L)));
            assertThrows(UnsupportedOperationException.class, () -> all.set(0, List.of(3L)));
            assertThrows(IndexOutOfBoundsException.class, () -> all.get(3));
            try (Cursor cursor = db.query(q)) {
                List<List<Object>> batch = cursor.nextBatch(2);
                assertEquals(2, batch.size());
                assertThrows(UnsupportedOperationException.class, () -> batch.remove(0));
                assertThrows(IndexOutOfBoundsException.class, () -> batch.get(2));
            }
        }
    }

    @Test
    void cursorSurvivesWritesAndClose() {
        Minigraf db = Minigraf.openInMemory();
        db.execute("(transact [[:alice :person/name \"Alice\"]])");
        try (Cursor cursor = db.query(NAME_QUERY)) {
            db.execute("(transact [[:bob :person/name \"Bob\"]])");
            db.close();
            List<List<Object>> rows = cursor.stream().collect(Collectors.toList());
            assertEquals(List.of(List.of("Alice")), rows, "answer fixed when the cursor opened");
        }
    }

    @Test
    void cursorUseAfterCloseThrows() {
        try (Minigraf db = Minigraf.openInMemory()) {
            Cursor cursor = db.query(NAME_QUERY);
            cursor.close();
            cursor.close();
            MinigrafApiException e =
                    assertThrows(MinigrafApiException.class, () -> cursor.nextBatch(10));
            assertEquals("API-018", e.getCode());
            assertThrows(MinigrafApiException.class, cursor::variables);
            assertThrows(MinigrafApiException.class, () -> cursor.iterator().hasNext());
        }
    }

    @Test
    void errorsCarryTheirCodes() {
        try (Minigraf db = Minigraf.openInMemory()) {
            MinigrafParseException parse =
                    assertThrows(MinigrafParseException.class, () -> db.execute("(frobnicate)"));
            assertEquals("PRS-011", parse.getCode());
            assertEquals(1011, parse.getNumericCode());
            assertTrue(parse.getMessage().startsWith("[PRS-011] "), parse.getMessage());
            assertTrue(parse instanceof MinigrafException);
            assertTrue(parse instanceof RuntimeException);

            MinigrafApiException notQuery =
                    assertThrows(
                            MinigrafApiException.class, () -> db.query("(transact [[:a :b/c 1]])"));
            assertEquals("API-012", notQuery.getCode());
            assertEquals(0, db.txCount(), "query() did not run the transact");

            // the database is still usable after errors
            assertEquals(Result.Kind.TRANSACTED, db.execute("(transact [[:a :b/c 1]])").kind());
        }
    }

    @Test
    void badTextIsRejectedWithoutCrashing() {
        try (Minigraf db = Minigraf.openInMemory()) {
            MinigrafApiException nul =
                    assertThrows(
                            MinigrafApiException.class,
                            () -> db.execute("(query [:find ?n :where [?e :a \"x\u0000y\"]])"));
            assertEquals("API-017", nul.getCode());
            MinigrafApiException surrogate =
                    assertThrows(
                            MinigrafApiException.class,
                            () -> db.execute("(transact [[:a :b/c \"\uD800\"]])"));
            assertEquals("API-017", surrogate.getCode());
            assertThrows(NullPointerException.class, () -> db.execute(null));
            assertThrows(
                    MinigrafParseException.class,
                    () -> db.execute("(transact [[:a :b \"unterminated"));
            assertThrows(MinigrafException.class, () -> db.execute(""));
            assertEquals(0, db.txCount());
        }
    }

    @Test
    void fileDatabasePersistsAndReadOnlyRefusesWrites(@TempDir Path dir) {
        String path = dir.resolve("people.graph").toString();
        try (Minigraf db = Minigraf.open(path)) {
            db.execute("(transact [[:alice :person/name \"Alice\"]])");
            db.checkpoint();
            db.execute("(transact [[:bob :person/name \"Bob\"]])");
        }
        OpenOptions readOnly = OpenOptions.builder().readOnly(true).build();
        try (Minigraf db = Minigraf.open(path, readOnly)) {
            assertEquals(2, db.txCount());
            List<Object> names =
                    db.execute(NAME_QUERY).rows().stream()
                            .map(r -> r.get(0))
                            .sorted()
                            .collect(Collectors.toList());
            assertEquals(Arrays.asList("Alice", "Bob"), names);
            MinigrafApiException e =
                    assertThrows(
                            MinigrafApiException.class,
                            () -> db.execute("(transact [[:carol :person/name \"Carol\"]])"));
            assertEquals("API-014", e.getCode());
        }
    }

    @Test
    void openFailuresCarryTheirCodes(@TempDir Path dir) {
        MinigrafApiException badLimit =
                assertThrows(
                        MinigrafApiException.class,
                        () -> Minigraf.openInMemory(OpenOptions.builder().maxResults(0).build()));
        assertEquals("API-017", badLimit.getCode());
        assertTrue(badLimit.getMessage().startsWith("[API-017] "), badLimit.getMessage());

        MinigrafException notAFile =
                assertThrows(
                        MinigrafException.class,
                        () -> Minigraf.open(dir.toString())); // a directory
        assertTrue(notAFile.getMessage().startsWith("[" + notAFile.getCode() + "] "));
    }

    @Test
    void limitOptionsAreAcceptedAndDoNotTruncatePlainQueries() {
        // max_results / max_derived_facts bound rule evaluation only (language.md §8.14).
        OpenOptions limits =
                OpenOptions.builder().maxResults(10).maxDerivedFacts(10).readOnly(false).build();
        assertEquals(
                "{\"max_results\":10,\"max_derived_facts\":10,\"read_only\":false}",
                limits.toJson());
        try (Minigraf db = Minigraf.openInMemory(limits)) {
            transactItems(db, 20);
            assertEquals(20, db.execute("(query [:find ?v :where [?e :item/n ?v]])").rows().size());
        }
    }

    @Test
    void threadsShareOneDatabase() throws Exception {
        int threads = 8;
        int perThread = 40;
        try (Minigraf db = Minigraf.openInMemory()) {
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            try {
                List<Future<Integer>> results = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    final int id = t;
                    results.add(
                            pool.submit(
                                    () -> {
                                        int queried = 0;
                                        for (int i = 0; i < perThread; i++) {
                                            db.execute(
                                                    "(transact [[:t"
                                                            + id
                                                            + "_"
                                                            + i
                                                            + " :item/n "
                                                            + i
                                                            + "]])");
                                            try (Cursor c =
                                                    db.query(
                                                            "(query [:find ?e :where [?e :item/n "
                                                                    + i
                                                                    + "]])")) {
                                                queried += c.nextBatch(1000).size();
                                            }
                                            assertThrows(
                                                    MinigrafParseException.class,
                                                    () -> db.execute("(nope)"));
                                        }
                                        return queried;
                                    }));
                }
                for (Future<Integer> result : results) {
                    assertTrue(result.get(60, TimeUnit.SECONDS) >= perThread);
                }
            } finally {
                pool.shutdown();
                assertTrue(pool.awaitTermination(60, TimeUnit.SECONDS));
            }
            assertEquals((long) threads * perThread, db.txCount());
            assertEquals(
                    threads * perThread,
                    db.execute("(query [:find ?e :where [?e :item/n _]])").rows().size());
        }
    }

    @Test
    void closeRacesWithCallsSafely() throws Exception {
        for (int round = 0; round < 20; round++) {
            Minigraf db = Minigraf.openInMemory();
            Thread writer =
                    new Thread(
                            () -> {
                                for (int i = 0; i < 1000; i++) {
                                    try {
                                        db.execute("(transact [[:a :item/n " + i + "]])");
                                    } catch (MinigrafApiException closed) {
                                        assertEquals("API-018", closed.getCode());
                                        return;
                                    }
                                }
                            });
            writer.start();
            Thread.sleep(1);
            db.close();
            writer.join();
        }
    }
}
