package org.minigraf.consumer;

import java.util.List;
import org.minigraf.Cursor;
import org.minigraf.Minigraf;
import org.minigraf.MinigrafException;
import org.minigraf.Result;

/** A minimal application: an in-memory database, one transaction, one query. */
public final class App {
    private App() {}

    /** The names of everyone Alice knows, read through a cursor. */
    static String friendsOfAlice() {
        try (Minigraf db = Minigraf.openInMemory()) {
            db.execute("(transact [[:alice :person/name \"Alice\"] [:bob :person/name \"Bob\"]"
                    + " [:alice :friend :bob]])");
            StringBuilder names = new StringBuilder();
            try (Cursor cursor = db.query(
                    "(query [:find ?n :where [:alice :friend ?f] [?f :person/name ?n]])")) {
                for (List<Object> row : cursor) {
                    names.append(row.get(0));
                }
            }
            return names.toString();
        }
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
