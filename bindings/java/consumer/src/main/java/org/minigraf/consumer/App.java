package org.minigraf.consumer;

import java.util.List;
import org.minigraf.Cursor;
import org.minigraf.FactLog;
import org.minigraf.FactRecord;
import org.minigraf.Minigraf;
import org.minigraf.MinigrafException;
import org.minigraf.Result;

/** A minimal application: an in-memory database, one transaction, one query. */
public final class App {
    private App() {}

    /** The names of everyone Alice knows, read through a cursor. */
    static String friendsOfAlice() {
        try (Minigraf db = Minigraf.openInMemory()) {
            db.execute(
                    "(transact [[:alice :person/name \"Alice\"] [:bob :person/name \"Bob\"]"
                            + " [:alice :friend :bob]])");
            StringBuilder names = new StringBuilder();
            try (Cursor cursor =
                    db.query(
                            "(query [:find ?n :where [:alice :friend ?f] [?f :person/name ?n]])")) {
                for (List<Object> row : cursor) {
                    names.append(row.get(0));
                }
            }
            return names.toString();
        }
    }

    /**
     * Copies a small database into the new file {@code path} with {@link Minigraf#exportTo(String)}
     * and reads the copy's fact log back: one "attribute=value@tx" line per record.
     */
    static String exportAndReadBack(String path) {
        try (Minigraf db = Minigraf.openInMemory()) {
            db.execute("(transact [[:alice :person/age 30] [:alice :person/name \"Alice\"]])");
            db.execute("(retract [[:alice :person/age 30]])");
            db.exportTo(path);
        }
        StringBuilder lines = new StringBuilder();
        try (Minigraf copy = Minigraf.open(path);
                FactLog log = copy.factLog()) {
            for (FactRecord record : log) {
                lines.append(record.attribute())
                        .append('=')
                        .append(record.value().value())
                        .append(record.asserted() ? "@" : "-@")
                        .append(record.txCount())
                        .append('\n');
            }
        }
        return lines.toString();
    }

    public static void main(String[] args) {
        System.out.println("minigraf " + Minigraf.libraryVersion());
        System.out.println("Alice knows: " + friendsOfAlice());
        try (Minigraf db = Minigraf.openInMemory()) {
            Result result = db.execute("(frobnicate)");
            System.out.println("unexpected: " + result);
        } catch (MinigrafException e) {
            System.out.println("error " + e.getCode() + ": " + e.getMessage());
        }
    }
}
