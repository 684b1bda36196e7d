package org.minigraf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FactLogTest {
    private static final long T0 = 1_717_000_000_000L;
    private static final String E1 = "00000000-0000-4000-8000-000000000001";
    private static final String E2 = "00000000-0000-4000-8000-000000000002";

    /** 2023-01-01 and 2023-06-30, UTC, in milliseconds. */
    private static final long JAN_1 = 1_672_531_200_000L;

    private static final long JUN_30 = 1_688_083_200_000L;

    private static List<FactRecord> all(FactLog log) {
        List<FactRecord> records = new ArrayList<>();
        log.forEach(records::add);
        return records;
    }

    private static List<FactRecord> all(Minigraf db, FactLogFilter filter) {
        try (FactLog log = db.factLog(filter)) {
            return all(log);
        }
    }

    private static FactRecord record(
            String entity, String attribute, TypedValue value, long txCount, boolean asserted) {
        long time = T0 + txCount;
        return new FactRecord(
                entity, attribute, value, txCount, time, time, FactRecord.FOREVER, asserted);
    }

    private static <T extends MinigrafException> T assertCode(
            Class<T> type, String code, Runnable call) {
        T e = assertThrows(type, call::run);
        assertEquals(code, e.getCode(), e::getMessage);
        assertTrue(e.getMessage().startsWith("[" + code + "] "), e.getMessage());
        return e;
    }

    /** Three transactions: five items, Alice's name, the retraction of item 0. */
    private static Minigraf itemsDatabase() {
        Minigraf db = Minigraf.openInMemory();
        db.execute(
                "(transact [[:e0 :item/n 0] [:e1 :item/n 1] [:e2 :item/n 2] [:e3 :item/n 3] [:e4 :item/n 4]])");
        db.execute("(transact [[:alice :person/name \"Alice\"]])");
        db.execute("(retract [[:e0 :item/n 0]])");
        return db;
    }

    @Test
    void iterationYieldsEveryVersionInCommitOrder() {
        try (Minigraf db = itemsDatabase();
                FactLog log = db.factLog()) {
            List<FactRecord> records = all(log);
            assertEquals(7, records.size(), records::toString);
            for (int i = 0; i < 5; i++) {
                FactRecord r = records.get(i);
                assertEquals(":item/n", r.attribute());
                assertEquals(TypedValue.ofInteger(i), r.value());
                assertEquals(1, r.txCount());
                assertTrue(r.asserted());
                assertEquals(FactRecord.FOREVER, r.validTo());
                assertTrue(r.txId() > 0 && r.validFrom() > 0);
            }
            FactRecord alice = records.get(5);
            assertEquals(":person/name", alice.attribute());
            assertEquals(TypedValue.ofString("Alice"), alice.value());
            assertEquals(2, alice.txCount());
            FactRecord retraction = records.get(6);
            assertFalse(retraction.asserted());
            assertEquals(3, retraction.txCount());
            assertEquals(records.get(0).entity(), retraction.entity());
            assertEquals(TypedValue.ofInteger(0), retraction.value());
            // at the end: empty, and again
            assertTrue(log.nextBatch(5).isEmpty());
            assertFalse(log.iterator().hasNext());
        }
    }

    @Test
    void batchesCrossEveryBoundary() {
        try (Minigraf db = itemsDatabase();
                FactLog log = db.factLog()) {
            List<Integer> sizes = new ArrayList<>();
            for (List<FactRecord> b = log.nextBatch(2); !b.isEmpty(); b = log.nextBatch(2)) {
                sizes.add(b.size());
                List<FactRecord> batch = b;
                assertThrows(UnsupportedOperationException.class, () -> batch.add(null));
            }
            assertEquals(Arrays.asList(2, 2, 2, 1), sizes);
            assertThrows(IllegalArgumentException.class, () -> log.nextBatch(0));
        }
    }

    @Test
    void iteratorAndBatchesShareTheStream() {
        try (Minigraf db = itemsDatabase();
                FactLog log = db.factLog()) {
            FactRecord first = log.iterator().next(); // fetches a whole batch
            List<FactRecord> rest = log.nextBatch(100);
            assertEquals(6, rest.size());
            assertEquals(TypedValue.ofInteger(0), first.value());
            assertEquals(TypedValue.ofInteger(1), rest.get(0).value());
        }
    }

    @Test
    void streamClosesTheLog() {
        try (Minigraf db = itemsDatabase()) {
            FactLog log = db.factLog();
            try (Stream<FactRecord> records = log.stream()) {
                assertEquals(
                        Arrays.asList(0L, 1L, 2L, 3L, 4L, 0L),
                        records.filter(r -> r.attribute().equals(":item/n"))
                                .map(r -> r.value().asLong())
                                .collect(Collectors.toList()));
            }
            assertTrue(log.isClosed());
            assertCode(MinigrafApiException.class, "API-018", () -> log.nextBatch(1));
            log.close(); // twice is harmless
        }
    }

    @Test
    void theLogIsASnapshot() {
        try (Minigraf db = itemsDatabase();
                FactLog log = db.factLog()) {
            db.execute("(transact [[:late :item/n 99]])");
            assertEquals(7, all(log).size());
            assertEquals(8, all(db, FactLogFilter.all()).size());
        }
    }

    @Test
    void aLogOutlivingItsDatabaseThrows() {
        Minigraf db = itemsDatabase();
        try (FactLog log = db.factLog()) {
            assertEquals(1, log.nextBatch(1).size());
            db.close();
            assertCode(MinigrafApiException.class, "API-018", () -> log.nextBatch(1));
        }
    }

    @Test
    void filtersGivenAsJson() {
        try (Minigraf db = itemsDatabase()) {
            assertEquals(
                    all(db, FactLogFilter.builder().attributes(":person/name").build()),
                    all(db, FactLogFilter.ofJson("{\"attributes\": [\":person/name\"]}")));
            MinigrafApiException e =
                    assertCode(
                            MinigrafApiException.class,
                            "API-017",
                            () -> db.factLog(FactLogFilter.ofJson("{\"bogus\":1}")).close());
            assertTrue(e.getMessage().contains("bogus"), e.getMessage());
            assertCode(
                    MinigrafApiException.class,
                    "API-017",
                    () -> db.factLog(FactLogFilter.ofJson("{\"order\":\"time\"}")).close());
            assertCode(
                    MinigrafApiException.class,
                    "API-017",
                    () -> db.factLog(FactLogFilter.ofJson("[")).close());
        }
    }

    @Test
    void filtersSelectRecords() {
        try (Minigraf db = itemsDatabase()) {
            db.execute(
                    "(transact {:valid-from \"2023-01-01\" :valid-to \"2023-06-30\"} [[:carol :emp/status :active]])");
            List<FactRecord> everything = all(db, FactLogFilter.all());
            assertEquals(8, everything.size());

            List<FactRecord> names =
                    all(db, FactLogFilter.builder().attributes(":person/name").build());
            assertEquals(1, names.size());
            assertEquals(
                    6, all(db, FactLogFilter.builder().attributePrefixes(":item/").build()).size());
            assertEquals(
                    7,
                    all(
                                    db,
                                    FactLogFilter.builder()
                                            .attributes(":person/name")
                                            .attributePrefixes(":item/")
                                            .build())
                            .size());
            assertEquals(
                    names,
                    all(db, FactLogFilter.builder().entities(names.get(0).entity()).build()));
            List<FactRecord> tx2and3 = all(db, FactLogFilter.builder().txFrom(2).txTo(3).build());
            assertEquals(
                    Arrays.asList(2L, 3L),
                    tx2and3.stream().map(FactRecord::txCount).collect(Collectors.toList()));

            // [valid_from, valid_to) overlaps [from, to); retractions start at 0
            List<FactRecord> carol =
                    all(
                            db,
                            FactLogFilter.builder()
                                    .attributes(":emp/status")
                                    .window(JAN_1, JAN_1 + 1)
                                    .build());
            assertEquals(1, carol.size());
            assertEquals(TypedValue.ofKeyword(":active"), carol.get(0).value());
            assertEquals(JAN_1, carol.get(0).validFrom());
            assertEquals(JUN_30, carol.get(0).validTo());
            long[][] windows = {
                {JAN_1, JAN_1 + 1},
                {0, JAN_1},
                {JUN_30, JUN_30 + 1},
                {JUN_30 - 1, JUN_30},
                {JUN_30, Long.MAX_VALUE}
            };
            for (long[] w : windows) {
                List<FactRecord> expected =
                        everything.stream()
                                .filter(r -> r.validFrom() < w[1] && w[0] < r.validTo())
                                .collect(Collectors.toList());
                assertEquals(
                        expected,
                        all(db, FactLogFilter.builder().window(w[0], w[1]).build()),
                        () -> Arrays.toString(w));
            }
            assertEquals(
                    everything.stream()
                            .filter(r -> r.validFrom() < JAN_1)
                            .collect(Collectors.toList()),
                    all(db, FactLogFilter.builder().windowTo(JAN_1).build()));
            assertEquals(
                    everything.stream()
                            .filter(r -> JUN_30 < r.validTo())
                            .collect(Collectors.toList()),
                    all(db, FactLogFilter.builder().windowFrom(JUN_30).build()));
            assertEquals(List.of(), all(db, FactLogFilter.builder().attributes(List.of()).build()));

            // storage order: the same records, perhaps in another order
            Comparator<FactRecord> byJson = Comparator.comparing(FactRecord::toJson);
            List<FactRecord> stored =
                    all(db, FactLogFilter.builder().order(FactLogFilter.Order.STORAGE).build());
            stored.sort(byJson);
            everything.sort(byJson);
            assertEquals(everything, stored);
        }
    }

    @Test
    void invalidFiltersAndClosedDatabasesThrow() {
        Minigraf db = itemsDatabase();
        assertCode(
                MinigrafApiException.class,
                "API-017",
                () -> db.factLog(FactLogFilter.builder().entities("not-a-uuid").build()).close());
        assertCode(
                MinigrafApiException.class,
                "API-017",
                () -> db.factLog(FactLogFilter.builder().attributes("bad\ud800").build()).close());
        db.close();
        assertCode(MinigrafApiException.class, "API-018", () -> db.factLog().close());
        assertCode(MinigrafApiException.class, "API-018", () -> db.exportTo("never-written.graph"));
    }

    // ---- log writer and export -----------------------------------------------------

    /** Values the JSON of other bindings or a careless writer would lose. */
    private static final List<TypedValue> HARD_VALUES =
            Arrays.asList(
                    TypedValue.ofInteger(Long.MAX_VALUE),
                    TypedValue.ofInteger(Long.MIN_VALUE),
                    TypedValue.ofInteger(9007199254740993L),
                    TypedValue.ofFloat(Double.NaN),
                    TypedValue.ofFloat(Double.POSITIVE_INFINITY),
                    TypedValue.ofFloat(Double.NEGATIVE_INFINITY),
                    TypedValue.ofFloat(0.1 + 0.2),
                    TypedValue.ofFloat(Double.MIN_VALUE),
                    TypedValue.ofFloat(30.0),
                    TypedValue.ofString(
                            "\uD83C\uDF89 \uD834\uDD1E h\u00e9llo \u65e5\u672c \"q\" \\ \t\n"),
                    TypedValue.ofString(""),
                    TypedValue.ofKeyword(":status/\u00e9t\u00e9"),
                    TypedValue.ofRef(E2),
                    TypedValue.ofBoolean(true),
                    TypedValue.ofBoolean(false),
                    TypedValue.ofNull());

    /** HARD_VALUES as attributes :v/0 .. of E1 in tx 1, a retraction in tx 2, a window in tx 3. */
    private static List<FactRecord> hardRecords() {
        List<FactRecord> records = new ArrayList<>();
        for (int i = 0; i < HARD_VALUES.size(); i++) {
            records.add(record(E1, ":v/" + i, HARD_VALUES.get(i), 1, true));
        }
        records.add(record(E1, ":v/0", HARD_VALUES.get(0), 2, false));
        records.add(
                new FactRecord(
                        E2,
                        ":emp/status",
                        TypedValue.ofKeyword(":active"),
                        3,
                        T0 + 3,
                        JAN_1,
                        JUN_30,
                        true));
        return records;
    }

    @Test
    void writerBuildsADatabaseAndExportRoundTrips(@TempDir Path dir) {
        String built = dir.resolve("built.graph").toString();
        List<FactRecord> records = hardRecords();
        try (LogWriter writer = LogWriter.create(built)) {
            assertEquals(0, writer.txCount());
            writer.append(records.get(0));
            writer.appendBatch(records.subList(1, records.size() - 1));
            writer.appendBatch(List.of());
            writer.append(records.get(records.size() - 1));
            assertEquals(3, writer.txCount());
            writer.advanceTxCount(5); // two empty transactions
            writer.advanceTxCount(5);
            assertEquals(5, writer.txCount());
            assertFalse(writer.isFinished());
            writer.finish();
            assertTrue(writer.isFinished());
        }
        assertTrue(Files.exists(dir.resolve("built.graph")));

        String copy = dir.resolve("copy.graph").toString();
        try (Minigraf db = Minigraf.open(built)) {
            assertEquals(records, all(db, FactLogFilter.all()));
            assertEquals(5, db.txCount());
            assertEquals(
                    Long.MIN_VALUE,
                    db.execute("(query [:find ?v :where [?e :v/1 ?v]])").rows().get(0).get(0));
            assertEquals(
                    ":active",
                    db.execute(
                                    "(query [:find ?s :valid-at \"2023-03-01\" :where [?e :emp/status ?s]])")
                            .rows()
                            .get(0)
                            .get(0));
            db.exportTo(copy);
        }
        try (Minigraf db = Minigraf.open(copy)) {
            assertEquals(records, all(db, FactLogFilter.all()));
            assertEquals(5, db.txCount());
        }
    }

    @Test
    void exportOfADatabaseAnswersIdentically(@TempDir Path dir) {
        String source = dir.resolve("source.graph").toString();
        String copy = dir.resolve("copy.graph").toString();
        List<String> queries =
                Arrays.asList(
                        "(query [:find ?e ?n :where [?e :item/n ?n]])",
                        "(query [:find ?e ?n :as-of 1 :where [?e :item/n ?n]])",
                        "(query [:find ?n :as-of 2 :where [?e :person/name ?n]])",
                        "(query [:find ?s :valid-at \"2023-03-01\" :where [?e :emp/status ?s]])",
                        "(query [:find ?s :any-valid-time :where [?e :emp/status ?s]])");
        List<FactRecord> before;
        List<Object> answers = new ArrayList<>();
        long count;
        try (Minigraf db = Minigraf.open(source)) {
            db.execute(
                    "(transact [[:e0 :item/n 0] [:e1 :item/n 1.5] [:e1 :item/s \"\uD83C\uDF89\"]])");
            db.execute("(transact [])"); // an empty transaction still counts
            db.execute("(transact [[:alice :person/name \"Alice\"] [:alice :friend :e0]])");
            db.execute("(retract [[:e0 :item/n 0]])");
            db.execute(
                    "(transact {:valid-from \"2023-01-01\" :valid-to \"2023-06-30\"} [[:carol :emp/status :active]])");
            db.execute("(transact [[:e0 :item/n 0]])");
            count = db.txCount();
            before = all(db, FactLogFilter.all());
            for (String q : queries) {
                answers.add(
                        db.execute(q).rows().stream()
                                .map(Object::toString)
                                .sorted()
                                .collect(Collectors.toList()));
            }
            db.exportTo(copy);
            assertCode(
                    MinigrafStorageException.class, "STG-043", () -> db.exportTo(copy)); // exists
        }
        try (Minigraf db = Minigraf.open(copy)) {
            assertEquals(count, db.txCount());
            assertEquals(before, all(db, FactLogFilter.all()));
            for (int i = 0; i < queries.size(); i++) {
                assertEquals(
                        answers.get(i),
                        db.execute(queries.get(i)).rows().stream()
                                .map(Object::toString)
                                .sorted()
                                .collect(Collectors.toList()),
                        queries.get(i));
            }
        }
    }

    @Test
    void inMemoryDatabasesExportToo(@TempDir Path dir) {
        String copy = dir.resolve("copy.graph").toString();
        try (Minigraf db = itemsDatabase()) {
            db.exportTo(
                    copy,
                    LogWriterOptions.builder()
                            .synchronous(LogWriterOptions.Synchronous.NORMAL)
                            .pageCacheSize(16)
                            .build());
            try (Minigraf copied = Minigraf.open(copy)) {
                assertEquals(all(db, FactLogFilter.all()), all(copied, FactLogFilter.all()));
                assertEquals(db.txCount(), copied.txCount());
            }
        }
    }

    @Test
    void closingAnUnfinishedWriterDeletesTheFile(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("abandoned.graph");
        try (LogWriter writer = LogWriter.create(file.toString())) {
            writer.appendBatch(hardRecords());
            assertTrue(Files.exists(file));
        }
        assertFalse(Files.exists(file));
        assertFalse(Files.exists(dir.resolve("abandoned.graph.wal")));
        try (Stream<Path> left = Files.list(dir)) {
            assertEquals(List.of(), left.collect(Collectors.toList()));
        }
        // the path is free again
        try (LogWriter writer = LogWriter.create(file.toString())) {
            writer.finish();
        }
        try (Minigraf db = Minigraf.open(file.toString())) {
            assertEquals(0, db.txCount());
            assertEquals(List.of(), all(db, FactLogFilter.all()));
        }
    }

    @Test
    void writerErrorsCarryTheirCodes(@TempDir Path dir) throws Exception {
        Path existing = Files.createFile(dir.resolve("existing.graph"));
        assertCode(
                MinigrafStorageException.class,
                "STG-043",
                () -> LogWriter.create(existing.toString()));
        assertCode(
                MinigrafApiException.class,
                "API-017",
                () ->
                        LogWriter.create(
                                dir.resolve("x.graph").toString(),
                                LogWriterOptions.builder().pageCacheSize(0).build()));
        assertCode(
                MinigrafApiException.class, "API-017", () -> LogWriter.create("bad\ud800.graph"));
        assertFalse(Files.exists(dir.resolve("x.graph")));

        String path = dir.resolve("w.graph").toString();
        LogWriter writer = LogWriter.create(path);
        try {
            writer.append(record(E1, ":a/b", TypedValue.ofInteger(1), 2, true));
            // a decreasing transaction number
            assertCode(
                    MinigrafApiException.class,
                    "API-017",
                    () -> writer.append(record(E1, ":a/b", TypedValue.ofInteger(2), 1, true)));
            // an empty valid window
            assertCode(
                    MinigrafApiException.class,
                    "API-017",
                    () ->
                            writer.append(
                                    new FactRecord(
                                            E1,
                                            ":a/b",
                                            TypedValue.ofInteger(3),
                                            3,
                                            T0,
                                            T0,
                                            T0,
                                            true)));
            // malformed: not a UUID, not a keyword
            assertCode(
                    MinigrafApiException.class,
                    "API-017",
                    () -> writer.append(record("nope", ":a/b", TypedValue.ofInteger(4), 3, true)));
            assertCode(
                    MinigrafApiException.class,
                    "API-017",
                    () -> writer.append(record(E1, "a/b", TypedValue.ofInteger(4), 3, true)));
            // all or nothing
            assertCode(
                    MinigrafApiException.class,
                    "API-017",
                    () ->
                            writer.appendBatch(
                                    Arrays.asList(
                                            record(E1, ":a/c", TypedValue.ofInteger(5), 4, true),
                                            record(E1, ":a/c", TypedValue.ofInteger(6), 3, true))));
            assertEquals(2, writer.txCount());
            assertCode(MinigrafApiException.class, "API-017", () -> writer.advanceTxCount(1));
            assertThrows(IllegalArgumentException.class, () -> writer.advanceTxCount(-1));
            assertThrows(NullPointerException.class, () -> writer.append(null));
            writer.finish();
            MinigrafApiException again =
                    assertCode(MinigrafApiException.class, "API-018", writer::finish);
            assertInstanceOf(MinigrafApiException.class, again);
            assertCode(
                    MinigrafApiException.class,
                    "API-018",
                    () -> writer.append(record(E1, ":a/b", TypedValue.ofInteger(7), 5, true)));
        } finally {
            writer.close();
        }
        assertTrue(writer.isClosed());
        assertCode(MinigrafApiException.class, "API-018", writer::txCount);
        writer.close(); // twice is harmless
        try (Minigraf db =
                Minigraf.open(path)) { // finished, so kept; the failed appends left nothing
            assertEquals(
                    List.of(record(E1, ":a/b", TypedValue.ofInteger(1), 2, true)),
                    all(db, FactLogFilter.all()));
            assertEquals(2, db.txCount());
        }
    }

    @Test
    void failedExportLeavesNoFile(@TempDir Path dir) {
        Path missingDir = dir.resolve("no-such-dir").resolve("copy.graph");
        try (Minigraf db = itemsDatabase()) {
            MinigrafException e =
                    assertThrows(MinigrafException.class, () -> db.exportTo(missingDir.toString()));
            assertInstanceOf(MinigrafStorageException.class, e, e::getMessage);
            assertFalse(Files.exists(missingDir));
            assertEquals(3, db.txCount()); // the source is untouched
        }
    }

    @Test
    void recordsSurviveAFileReopenOfTheSource(@TempDir Path dir) {
        String path = dir.resolve("db.graph").toString();
        List<FactRecord> before;
        try (Minigraf db = Minigraf.open(path)) {
            db.execute("(transact [[:a :n 1] [:b :n 2]])");
            db.checkpoint();
            db.execute("(transact [[:c :n 3]])"); // in the WAL only
            before = all(db, FactLogFilter.all());
        }
        try (Minigraf db = Minigraf.open(path)) {
            assertEquals(before, all(db, FactLogFilter.all()));
            Function<FactRecord, Long> tx = FactRecord::txCount;
            assertEquals(
                    Arrays.asList(1L, 1L, 2L),
                    before.stream().map(tx).collect(Collectors.toList()));
        }
    }
}
