package org.minigraf.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NativeLoaderTest {
    private static final String GLIBC_MAPS =
            "7f1c2a000000-7f1c2a028000 r--p 00000000 08:01 131 /usr/lib/x86_64-linux-gnu/libc.so.6\n"
                    + "7f1c2a3b0000-7f1c2a3b2000 r--p 00000000 08:01 128 /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2\n";

    @Test
    void muslIsTheLoaderMappedIntoTheProcess(@TempDir Path dir) throws IOException {
        Path alpine = dir.resolve("alpine");
        Files.writeString(
                alpine,
                "7f3e1c4000-7f3e1c5000 r--p 00000000 00:2e 25 /usr/lib/jvm/java-21/lib/libjli.so\n"
                        + "7f3e2a1000-7f3e2b5000 r-xp 00014000 00:2e 12 /lib/ld-musl-aarch64.so.1\n");
        Path libcLink = dir.resolve("libc-link");
        Files.writeString(
                libcLink,
                "7f3e2a1000-7f3e2b5000 r-xp 00014000 00:2e 12 /lib/libc.musl-x86_64.so.1\n");
        Path glibc = dir.resolve("glibc");
        Files.writeString(glibc, GLIBC_MAPS);
        assertTrue(NativeLoader.isMusl(alpine));
        assertTrue(NativeLoader.isMusl(libcLink));
        assertFalse(NativeLoader.isMusl(glibc));
        assertFalse(NativeLoader.isMusl(dir.resolve("no-proc")));
    }

    @Test
    void thisJvmIsNamedByItsCLibraryAndArchitecture() throws IOException {
        boolean musl =
                Files.readAllLines(Path.of("/proc/self/maps")).stream()
                        .anyMatch(line -> line.contains("ld-musl-"));
        String arch = System.getProperty("os.arch").equals("aarch64") ? "aarch64" : "x86_64";
        assertEquals((musl ? "linux-musl-" : "linux-") + arch, NativeLoader.platform());
        assertTrue(
                List.of("linux-x86_64", "linux-aarch64", "linux-musl-x86_64", "linux-musl-aarch64")
                        .contains(NativeLoader.platform()));
    }
}
