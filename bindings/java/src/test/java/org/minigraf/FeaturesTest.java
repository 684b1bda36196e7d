package org.minigraf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.ref.WeakReference;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Prepared queries, transactions, host functions, cancellation, threads and close orders. */
class FeaturesTest {
    /** A count over 500^3 solutions: seconds of work unless stopped. */
    private static final String SLOW =
            "(query [:find (count ?x) :where [?a :n ?x] [?b :n ?y] [?c :n ?z]])";

    private static void items(Minigraf db, int n) {
        StringBuilder tx = new StringBuilder("(transact [");
        for (int i = 0; i < n; i++) {
            tx.append("[:e").append(i).append(" :n ").append(i).append("]");
        }
        db.execute(tx.append("])").toString());
    }

    @Test
    @SuppressWarnings("try")
    void preparedQueryBindsExecutesAndStreams() {
        try (Minigraf db = Minigraf.openInMemory()) {
            items(db, 10);
            try (PreparedQuery pq =
                    db.prepare("(query [:find ?x :where [?e :n ?x] [(>= ?x $min)]])")) {
                try (Cursor c = pq.bind("min", 0).query()) {
                    assertEquals(List.of("?x"), c.variables());
                }
                assertEquals(3, pq.bind("min", 7).execute().size());
                assertEquals(
                        List.of(8L, 9L),
                        pq.bind("$min", 8L).stream()
                                .map(r -> r.get(0))
                                .sorted()
                                .collect(Collectors.toList()));
                try (Cursor c = pq.bind("min", 9.5).query()) {
                    assertTrue(c.all().isEmpty());
                }
                pq.clearBindings();
                MinigrafApiException missing =
                        assertThrows(MinigrafApiException.class, pq::execute);
                assertEquals("[API-015] missing bind value for slot '$min'", missing.getMessage());
                assertThrows(IllegalArgumentException.class, () -> pq.bind("min", new Object()));
            }
            try (PreparedQuery asOf =
                    db.prepare("(query [:find (count ?e) :as-of $t :where [?e :n ?x]])")) {
                assertEquals(List.of(List.of(10L)), asOf.bindTxCount("t", 1).execute());
                assertEquals(
                        "API-015",
                        assertThrows(MinigrafApiException.class, () -> asOf.bind("t", 1L))
                                .getCode());
            }
            try (PreparedQuery validAt =
                    db.prepare("(query [:find (count ?e) :valid-at $t :where [?e :n ?x]])")) {
                assertEquals(List.of(List.of(10L)), validAt.bindAnyValidTime("t").execute());
                assertEquals(
                        List.of(List.of(10L)),
                        validAt.bindTimestamp("t", java.time.Instant.now()).execute());
            }
            assertEquals(
                    "API-005",
                    assertThrows(
                                    MinigrafApiException.class,
                                    () -> db.prepare("(transact [[:a :b 1]])"))
                            .getCode());
            PreparedQuery closed = db.prepare("(query [:find ?x :where [?e :n ?x]])");
            db.close();
            assertEquals(
                    "API-018", assertThrows(MinigrafApiException.class, closed::execute).getCode());
            closed.close();
        }
    }

    @Test
    @SuppressWarnings("try")
    void transactionCommitsOnceAndRollsBackAtClose() {
        try (Minigraf db = Minigraf.openInMemory()) {
            try (Transaction tx = db.beginWrite()) {
                assertEquals(Result.Kind.OK, tx.execute("(transact [[:a :n 1]])").kind());
                tx.execute("(transact [[:b :n 2]])");
                assertEquals(2, tx.queryAll("(query [:find ?x :where [?e :n ?x]])").size());
                assertTrue(
                        db.queryAll("(query [:find ?x :where [?e :n ?x]])")
                                .isEmpty()); // not yet visible
                assertEquals(
                        "INT-003",
                        assertThrows(
                                        MinigrafInternalException.class,
                                        () -> db.execute("(transact [[:c :n 3]])"))
                                .getCode());
                tx.commit();
                assertEquals(
                        "API-018", assertThrows(MinigrafApiException.class, tx::commit).getCode());
            }
            assertEquals(1, db.txCount());
            try (Transaction tx = db.beginWrite()) {
                tx.execute("(transact [[:z :n 9]])");
            } // rolled back
            assertEquals(1, db.txCount());
            assertEquals(2, db.queryAll("(query [:find ?x :where [?e :n ?x]])").size());
            Transaction open = db.beginWrite();
            open.execute("(transact [[:y :n 8]])");
            db.close(); // rolls the open transaction back
            assertEquals(
                    "API-018", assertThrows(MinigrafApiException.class, open::commit).getCode());
            open.close();
        }
    }

    @Test
    void hostFunctionsRunOnTheCallingThreadAndFailWithTheirMessage() {
        try (Minigraf db = Minigraf.openInMemory()) {
            items(db, 5);
            db.execute("(transact [[:m :mail \"a@b\"] [:m :mail \"nope\"]])");
            AtomicReference<Thread> seen = new AtomicReference<>();
            db.registerPredicate(
                    "email?",
                    v -> {
                        seen.set(Thread.currentThread());
                        return v.type() == Value.Type.STRING && v.asString().contains("@");
                    });
            assertEquals(
                    List.of(List.of("a@b")),
                    db.queryAll("(query [:find ?m :where [?e :mail ?m] [(email? ?m)]])"));
            assertSame(Thread.currentThread(), seen.get());
            db.registerAggregate("product", () -> 1L, (acc, v) -> acc * v.asLong(), acc -> acc);
            assertEquals(
                    List.of(List.of(0L)),
                    db.queryAll("(query [:find (product ?x) :where [?e :n ?x]])"));
            db.registerAggregate(
                    "label",
                    () -> new StringBuilder(),
                    (acc, v) -> acc.append(v.get()),
                    (acc, n) -> Keyword.of(":n/" + n + "-" + acc.length()));
            assertEquals(
                    List.of(List.of(Keyword.of(":n/5-5"))),
                    db.queryAll("(query [:find (label ?x) :where [?e :n ?x]])"));
            db.registerPredicate(
                    "boom?",
                    v -> {
                        throw new IllegalStateException("boom: " + v.get());
                    });
            MinigrafApiException boom =
                    assertThrows(
                            MinigrafApiException.class,
                            () -> db.queryAll("(query [:find ?x :where [?e :n ?x] [(boom? ?x)]])"));
            assertEquals("API-016", boom.getCode());
            assertTrue(
                    boom.getMessage().startsWith("[API-016] predicate 'boom?' failed: boom: "),
                    boom.getMessage());
            assertEquals(
                    "API-021",
                    assertThrows(
                                    MinigrafApiException.class,
                                    () -> db.registerPredicate("email?", v -> true))
                            .getCode());
            db.unregisterPredicate("email?");
            assertEquals(
                    "QRY-007",
                    assertThrows(
                                    MinigrafQueryException.class,
                                    () ->
                                            db.queryAll(
                                                    "(query [:find ?m :where [?e :mail ?m] [(email? ?m)]])"))
                            .getCode());
        }
    }

    @Test
    void closeReleasesHostFunctions() throws Exception {
        WeakReference<Predicate<Value>> ref;
        Minigraf db = Minigraf.openInMemory();
        Object captured = new Object();
        Predicate<Value> p = v -> v.get() != captured; // capturing: a new object, not a constant
        ref = new WeakReference<>(p);
        db.registerPredicate("p?", p);
        p = null;
        db.close();
        for (int i = 0; i < 50 && ref.get() != null; i++) {
            System.gc();
            Thread.sleep(20);
        }
        assertNull(ref.get(), "the destroy callback released the global reference");
    }

    @Test
    void cancelAndThreadInterruptStopARunningQuery() throws Exception {
        try (Minigraf db = Minigraf.openInMemory()) {
            items(db, 500);
            ExecutorService pool = Executors.newSingleThreadExecutor();
            try {
                CountDownLatch started = new CountDownLatch(1);
                db.setProgressHandler(
                        1000,
                        () -> {
                            started.countDown();
                            return false;
                        });
                Future<MinigrafException> cancelled =
                        pool.submit(
                                () ->
                                        assertThrows(
                                                MinigrafApiException.class,
                                                () -> db.queryAll(SLOW)));
                assertTrue(started.await(10, TimeUnit.SECONDS));
                db.cancel();
                assertEquals("API-013", cancelled.get(10, TimeUnit.SECONDS).getCode());
                db.setProgressHandler(1, null);

                AtomicReference<Thread> runner = new AtomicReference<>();
                Future<MinigrafException> interrupted =
                        pool.submit(
                                () -> {
                                    runner.set(Thread.currentThread());
                                    MinigrafException e =
                                            assertThrows(
                                                    MinigrafApiException.class,
                                                    () -> db.queryAll(SLOW));
                                    assertTrue(
                                            Thread.interrupted(), "the interrupt flag stays set");
                                    return e;
                                });
                while (runner.get() == null) {
                    Thread.sleep(1);
                }
                Thread.sleep(50);
                runner.get().interrupt();
                assertEquals("API-013", interrupted.get(10, TimeUnit.SECONDS).getCode());

                db.setProgressHandler(10, () -> true);
                MinigrafApiException byHandler =
                        assertThrows(MinigrafApiException.class, () -> db.queryAll(SLOW));
                assertEquals(
                        "[API-013] interrupted by the progress handler", byHandler.getMessage());
                db.setProgressHandler(1, null);
                assertEquals(
                        List.of(List.of(500L)),
                        db.queryAll("(query [:find (count ?x) :where [?a :n ?x]])"));
            } finally {
                pool.shutdownNow();
            }
        }
    }

    @Test
    void fourThreadsQueryInParallelBesideAWriter() throws Exception {
        try (Minigraf db = Minigraf.openInMemory()) {
            items(db, 200);
            ExecutorService pool = Executors.newFixedThreadPool(5);
            AtomicInteger queries = new AtomicInteger();
            try {
                Future<?> writer =
                        pool.submit(
                                () -> {
                                    for (int i = 0; i < 50; i++) {
                                        db.execute("(transact [[:w" + i + " :w " + i + "]])");
                                    }
                                });
                List<Future<?>> readers = new java.util.ArrayList<>();
                for (int t = 0; t < 4; t++) {
                    readers.add(
                            pool.submit(
                                    () -> {
                                        try (PreparedQuery pq =
                                                db.prepare(
                                                        "(query [:find ?x :where [?e :n ?x] [(= ?x $v)]])")) {
                                            for (int i = 0; i < 300; i++) {
                                                assertEquals(
                                                        List.of(List.of((long) (i % 200))),
                                                        pq.bind("v", i % 200).execute());
                                                assertEquals(
                                                        200,
                                                        db.queryAll(
                                                                        "(query [:find ?e :where [?e :n ?x]])")
                                                                .size());
                                                queries.addAndGet(2);
                                            }
                                        }
                                    }));
                }
                writer.get(60, TimeUnit.SECONDS);
                for (Future<?> r : readers) {
                    r.get(60, TimeUnit.SECONDS);
                }
            } finally {
                pool.shutdownNow();
            }
            assertEquals(2400, queries.get());
            assertEquals(51, db.txCount());
        }
    }

    @Test
    @SuppressWarnings("try")
    void everyCloseOrderIsSafe(@TempDir Path dir) throws Exception {
        String path = dir.resolve("close.graph").toString();
        Minigraf db = Minigraf.open(path);
        items(db, 3000);
        Cursor beforeDb = db.query("(query [:find ?x :where [?e :n ?x]])");
        Cursor neverClosed = db.query("(query [:find ?x :where [?e :n ?x]])");
        PreparedQuery pq = db.prepare("(query [:find ?x :where [?e :n ?x]])");
        Transaction tx = db.beginWrite();
        tx.execute("(transact [[:t :n -1]])");
        assertEquals(1000, beforeDb.nextBatch(1000).size());
        db.close(); // before the cursors, the statement and the open transaction
        db.close();
        assertTrue(db.isClosed());
        assertEquals(2000, beforeDb.all().size()); // the answer stays readable
        beforeDb.close();
        assertEquals(3000, neverClosed.all().size());
        assertEquals("API-018", assertThrows(MinigrafApiException.class, pq::execute).getCode());
        assertEquals(
                "API-018",
                assertThrows(MinigrafApiException.class, () -> tx.execute("(transact [[:u :n 1]])"))
                        .getCode());
        assertEquals(
                "API-018",
                assertThrows(
                                MinigrafApiException.class,
                                () -> db.execute("(query [:find ?x :where [?e :n ?x]])"))
                        .getCode());
        neverClosed = null;
        // Dropped without close: the cleaner frees them (no crash, no double free).
        for (int i = 0; i < 20; i++) {
            Minigraf dropped = Minigraf.openInMemory();
            items(dropped, 10);
            dropped.query("(query [:find ?x :where [?e :n ?x]])");
            dropped.prepare("(query [:find ?x :where [?e :n ?x]])");
            dropped.beginWrite().execute("(transact [[:q :n 1]])");
            dropped = null;
            System.gc();
        }
        Thread.sleep(100);
        try (Minigraf reopened = Minigraf.open(path)) {
            assertEquals(
                    3000,
                    reopened.queryAll("(query [:find ?x :where [?e :n ?x]])")
                            .size()); // rolled back
            Cursor c = reopened.query("(query [:find ?x :where [?e :n ?x]])");
            reopened.close();
            c.close();
        }
        assertFalse(pq.isClosed());
        pq.close();
        tx.close();
        assertTrue(tx.isClosed());
    }

    @Test
    void everyOpenOptionIsABuilderMethod() {
        String described = Minigraf.describeOptions();
        OpenOptions all =
                OpenOptions.builder()
                        .readOnly(false)
                        .allowUnlocked(false)
                        .pageCacheSize(64)
                        .walCheckpointThreshold(10)
                        .synchronous(LogWriterOptions.Synchronous.NORMAL)
                        .recoverTruncateWal(true)
                        .maxDerivedFacts(10)
                        .maxResults(10)
                        .queryMemoryLimit(0)
                        .busyTimeoutMs(10)
                        .queryTimeoutMs(0)
                        .historyIndex(true)
                        .build();
        for (String name : all.values().keySet()) {
            assertTrue(described.contains("\"name\":\"" + name + "\""), name);
        }
        assertEquals(described.split("\"name\":").length - 1, all.values().size(), described);
        try (Minigraf db = Minigraf.openInMemory(all)) {
            assertEquals(0, db.txCount());
        }
        assertEquals(
                "API-017",
                assertThrows(
                                MinigrafApiException.class,
                                () ->
                                        Minigraf.openInMemory(
                                                OpenOptions.builder().option("nope", 1).build()))
                        .getCode());
    }

    @Test
    void exportUsesOneCall(@TempDir Path dir) {
        String copy = dir.resolve("copy.graph").toString();
        try (Minigraf db = Minigraf.openInMemory()) {
            items(db, 20);
            db.execute("(transact [])");
            db.exportTo(copy);
            assertEquals(
                    "STG-043",
                    assertThrows(MinigrafStorageException.class, () -> db.exportTo(copy))
                            .getCode());
        }
        try (Minigraf db = Minigraf.open(copy)) {
            assertEquals(2, db.txCount());
            assertEquals(20, db.queryAll("(query [:find ?x :where [?e :n ?x]])").size());
        }
    }
}
