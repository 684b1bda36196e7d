package org.minigraf.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.minigraf.Minigraf;

class AppTest {
    @Test
    void theJarLoadsItsOwnNatives() {
        assertEquals("0.2.0", Minigraf.libraryVersion());
        String jar = Minigraf.class.getProtectionDomain().getCodeSource().getLocation().getPath();
        assertTrue(jar.endsWith("minigraf-0.2.0.jar"), "minigraf comes from its jar: " + jar);
    }

    @Test
    void transactsAndQueries() {
        assertEquals("Bob", App.friendsOfAlice());
    }

    @Test
    void exportsAndReadsTheFactLog(@TempDir Path dir) {
        assertEquals(
                ":person/age=30@1\n:person/name=Alice@1\n:person/age=30-@2\n",
                App.exportAndReadBack(dir.resolve("copy.graph").toString()));
    }
}
