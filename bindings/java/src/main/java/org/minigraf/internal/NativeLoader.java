package org.minigraf.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Loads minigraf's native libraries, once per class loader.
 *
 * <p>The jar carries {@code native/<platform>/libminigraf_jni.so}, the JNI library with the engine
 * linked in, for each platform of {@link #platform()} (the release jar: {@code linux-x86_64},
 * {@code linux-aarch64}, {@code linux-musl-x86_64}, {@code linux-musl-aarch64}). The one for this
 * platform is extracted once per content into {@code
 * <java.io.tmpdir>/minigraf-<user>/minigraf-<version>-<hash>/} (or, when that directory cannot be
 * used or its file system refuses to map code, {@code noexec}, into {@code
 * $XDG_CACHE_HOME/minigraf} or {@code ~/.cache/minigraf}) and loaded with {@link System#load}.
 *
 * <p>{@code -Dminigraf.native.dir=<dir>} loads the library from {@code <dir>} instead, with no
 * extraction (development builds, locked-down hosts).
 *
 * <p>This class is internal: the generated {@code minigraf_jniJNI} calls it from its static
 * initialiser.
 */
public final class NativeLoader {
    /** The system property naming a directory to load the libraries from. */
    public static final String NATIVE_DIR_PROPERTY = "minigraf.native.dir";

    /** The JNI library, self-contained: it needs only the C library of its platform. */
    private static final String[] LIBRARIES = {"libminigraf_jni.so"};

    /** Where Linux lists the files mapped into this process, the C library's among them. */
    private static final Path PROC_MAPS = Paths.get("/proc/self/maps");

    private static final String VERSION =
            minigraf_jniConstants.MINIGRAF_VERSION_MAJOR
                    + "."
                    + minigraf_jniConstants.MINIGRAF_VERSION_MINOR
                    + "."
                    + minigraf_jniConstants.MINIGRAF_VERSION_PATCH;

    private static boolean loaded;

    private NativeLoader() {}

    /**
     * Loads the libraries if this class loader has not loaded them yet.
     *
     * @throws UnsatisfiedLinkError when no usable copy of the libraries can be loaded
     */
    public static synchronized void load() {
        if (loaded) {
            return;
        }
        String override = System.getProperty(NATIVE_DIR_PROPERTY);
        if (override != null && !override.isEmpty()) {
            loadFrom(Paths.get(override));
        } else {
            loadFromJar();
        }
        loaded = true;
    }

    /**
     * The platform directory name inside the jar: {@code linux-x86_64}, {@code linux-aarch64},
     * {@code linux-musl-x86_64}, {@code linux-musl-aarch64} (other systems get a name of the same
     * shape, which the jar does not carry).
     *
     * @return the name of this JVM's platform
     */
    public static String platform() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        if (os.startsWith("linux")) {
            os = isMusl(PROC_MAPS) ? "linux-musl" : "linux";
        } else if (os.startsWith("mac")) {
            os = "darwin";
        } else if (os.startsWith("windows")) {
            os = "windows";
        }
        if (arch.equals("amd64") || arch.equals("x86_64")) {
            arch = "x86_64";
        } else if (arch.equals("arm64")) {
            arch = "aarch64";
        }
        return os + "-" + arch;
    }

    /**
     * Whether this process runs on musl: its C library, mapped into the JVM, is musl's dynamic
     * loader ({@code /lib/ld-musl-<arch>.so.1}, which Alpine also links as {@code
     * libc.musl-<arch>.so.1}); glibc maps {@code libc.so.6} instead. The process's own mappings
     * answer for the JVM that runs, even where both C libraries are installed.
     *
     * @param maps the process's {@code /proc/self/maps}
     * @return true when a musl C library is mapped; false when none is or the file cannot be read
     *     (no {@code /proc}: glibc is the safe guess)
     */
    static boolean isMusl(Path maps) {
        try (Stream<String> lines = Files.lines(maps)) {
            return lines.anyMatch(
                    line -> line.contains("/ld-musl-") || line.contains("/libc.musl-"));
        } catch (IOException | java.io.UncheckedIOException e) {
            return false;
        }
    }

    private static void loadFrom(Path dir) {
        for (String name : LIBRARIES) {
            System.load(dir.resolve(name).toAbsolutePath().toString());
        }
    }

    private static void loadFromJar() {
        Map<String, byte[]> contents = readResources();
        String dirName = "minigraf-" + VERSION + "-" + digest(contents);
        List<Throwable> failures = new ArrayList<>();
        for (Path base : candidateBases()) {
            Path dir;
            try {
                dir = extract(base, dirName, contents);
            } catch (IOException | RuntimeException e) {
                failures.add(e);
                continue;
            }
            try {
                loadFrom(dir);
                return;
            } catch (UnsatisfiedLinkError e) {
                failures.add(e); // e.g. "failed to map segment" on a noexec mount
            }
        }
        UnsatisfiedLinkError error =
                new UnsatisfiedLinkError(
                        "minigraf: cannot load the native libraries for "
                                + platform()
                                + " (set -D"
                                + NATIVE_DIR_PROPERTY
                                + "=<dir> to load them from elsewhere): "
                                + failures);
        for (Throwable failure : failures) {
            error.addSuppressed(failure);
        }
        throw error;
    }

    private static Map<String, byte[]> readResources() {
        Map<String, byte[]> contents = new LinkedHashMap<>();
        for (String name : LIBRARIES) {
            String resource = "/native/" + platform() + "/" + name;
            try (InputStream in = NativeLoader.class.getResourceAsStream(resource)) {
                if (in == null) {
                    throw new UnsatisfiedLinkError(
                            "minigraf: the jar has no "
                                    + resource
                                    + " (unsupported platform?); set -D"
                                    + NATIVE_DIR_PROPERTY
                                    + "=<dir> to load the libraries from a directory");
                }
                ByteArrayOutputStream buffer = new ByteArrayOutputStream();
                in.transferTo(buffer);
                contents.put(name, buffer.toByteArray());
            } catch (IOException e) {
                UnsatisfiedLinkError error =
                        new UnsatisfiedLinkError("minigraf: cannot read " + resource);
                error.initCause(e);
                throw error;
            }
        }
        return contents;
    }

    /** The first 16 hex digits of the SHA-256 of the libraries: names the cache directory. */
    private static String digest(Map<String, byte[]> contents) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            for (Map.Entry<String, byte[]> entry : contents.entrySet()) {
                sha.update(entry.getKey().getBytes(java.nio.charset.StandardCharsets.UTF_8));
                sha.update((byte) 0);
                sha.update(entry.getValue());
            }
            StringBuilder hex = new StringBuilder();
            for (byte b : Arrays.copyOf(sha.digest(), 8)) {
                hex.append(String.format("%02x", b & 0xff));
            }
            return hex.toString();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    private static List<Path> candidateBases() {
        List<Path> bases = new ArrayList<>();
        String user = System.getProperty("user.name", "user").replaceAll("[^A-Za-z0-9._-]", "_");
        String tmp = System.getProperty("java.io.tmpdir");
        if (tmp != null && !tmp.isEmpty()) {
            bases.add(Paths.get(tmp, "minigraf-" + user));
        }
        String cache = System.getenv("XDG_CACHE_HOME");
        if (cache != null && !cache.isEmpty()) {
            bases.add(Paths.get(cache, "minigraf"));
        }
        String home = System.getProperty("user.home");
        if (home != null && !home.isEmpty()) {
            bases.add(Paths.get(home, ".cache", "minigraf"));
        }
        return bases;
    }

    /**
     * Returns a directory under {@code base} holding exactly {@code contents}: the shared {@code
     * dirName} when it is already complete, else a fresh copy renamed into place atomically
     * (another process may race us: then whichever complete copy wins is used).
     */
    private static Path extract(Path base, String dirName, Map<String, byte[]> contents)
            throws IOException {
        Set<PosixFilePermission> ownerOnly = PosixFilePermissions.fromString("rwx------");
        if (!Files.isDirectory(base)) {
            Files.createDirectories(base, PosixFilePermissions.asFileAttribute(ownerOnly));
        }
        checkPrivate(base);
        Path dir = base.resolve(dirName);
        if (matches(dir, contents)) {
            return dir;
        }
        Path fresh = Files.createTempDirectory(base, dirName + ".tmp-");
        for (Map.Entry<String, byte[]> entry : contents.entrySet()) {
            Files.write(fresh.resolve(entry.getKey()), entry.getValue());
        }
        try {
            Files.move(fresh, dir, StandardCopyOption.ATOMIC_MOVE);
            return dir;
        } catch (FileAlreadyExistsException
                | AtomicMoveNotSupportedException
                | java.nio.file.DirectoryNotEmptyException e) {
            if (matches(dir, contents)) {
                deleteTree(fresh);
                return dir;
            }
            return fresh; // a broken shared copy: use our own
        }
    }

    /** Refuses a cache directory that another user owns or may write. */
    private static void checkPrivate(Path base) throws IOException {
        PosixFileAttributes attributes;
        try {
            attributes = Files.readAttributes(base, PosixFileAttributes.class);
        } catch (UnsupportedOperationException e) {
            return; // not a POSIX file system
        }
        String user = System.getProperty("user.name");
        Set<PosixFilePermission> permissions = attributes.permissions();
        if ((user != null && !attributes.owner().getName().equals(user))
                || permissions.contains(PosixFilePermission.GROUP_WRITE)
                || permissions.contains(PosixFilePermission.OTHERS_WRITE)) {
            throw new IOException("minigraf: " + base + " is not private to " + user);
        }
    }

    private static boolean matches(Path dir, Map<String, byte[]> contents) throws IOException {
        if (!Files.isDirectory(dir)) {
            return false;
        }
        for (Map.Entry<String, byte[]> entry : contents.entrySet()) {
            Path file = dir.resolve(entry.getKey());
            if (!Files.isRegularFile(file)
                    || Files.size(file) != entry.getValue().length
                    || !Arrays.equals(Files.readAllBytes(file), entry.getValue())) {
                return false;
            }
        }
        return true;
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | RuntimeException ignored) {
            // best effort: a leftover temporary copy is harmless
        }
    }
}
