package org.minigraf;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Objects;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * A reference to an entity: what a row holds for an entity id, distinct from its UUID text. Binds
 * back into a prepared query unchanged, in an entity position ({@code [$e :a ?v]}) or a value one
 * ({@code [?x :friend $e]}). Immutable; equal when the UUIDs are.
 */
public final class Entity implements Comparable<Entity> {
    // The UUID's two halves: a row makes no UUID object until uuid() asks.
    private final long msb;
    private final long lsb;

    private Entity(long msb, long lsb) {
        this.msb = msb;
        this.lsb = lsb;
    }

    /**
     * The entity with this UUID.
     *
     * @param uuid the id
     * @return the entity
     */
    public static Entity of(UUID uuid) {
        Objects.requireNonNull(uuid, "uuid");
        return new Entity(uuid.getMostSignificantBits(), uuid.getLeastSignificantBits());
    }

    /** The canonical UUID text the library reads: 8-4-4-4-12 hex digits, either case. */
    private static final Pattern CANONICAL =
            Pattern.compile(
                    "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");

    /**
     * The entity whose UUID is written {@code uuid}, in the canonical form the library reads (not
     * the shorter forms {@link UUID#fromString} also takes, such as {@code "1-2-3-4-5"}).
     *
     * @param uuid e.g. {@code "6ba7b810-9dad-11d1-80b4-00c04fd430c8"}
     * @return the entity
     * @throws MinigrafApiException API-017 if the text is not a UUID, as the library refuses it
     */
    public static Entity of(String uuid) {
        if (!CANONICAL.matcher(Objects.requireNonNull(uuid, "uuid")).matches()) {
            throw MinigrafException.create(
                    5017, "API-017", "Invalid argument: not a UUID: " + uuid);
        }
        return of(UUID.fromString(uuid));
    }

    private static final VarHandle BIG_ENDIAN_LONG =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    /** From 16 bytes in RFC 4122 order at {@code bytes[offset]}. */
    static Entity fromBytes(byte[] bytes, int offset) {
        return new Entity(
                (long) BIG_ENDIAN_LONG.get(bytes, offset),
                (long) BIG_ENDIAN_LONG.get(bytes, offset + 8));
    }

    /** The 16 bytes in RFC 4122 order. */
    byte[] toBytes() {
        byte[] bytes = new byte[16];
        long high = msb;
        long low = lsb;
        for (int i = 7; i >= 0; i--) {
            bytes[i] = (byte) high;
            bytes[8 + i] = (byte) low;
            high >>>= 8;
            low >>>= 8;
        }
        return bytes;
    }

    /** The entity's UUID. */
    public UUID uuid() {
        return new UUID(msb, lsb);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Entity
                && ((Entity) other).msb == msb
                && ((Entity) other).lsb == lsb;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(msb) * 31 + Long.hashCode(lsb);
    }

    /** The order of the UUID texts. */
    @Override
    public int compareTo(Entity other) {
        int high = Long.compareUnsigned(msb, other.msb);
        return high != 0 ? high : Long.compareUnsigned(lsb, other.lsb);
    }

    /** The lowercase UUID text. */
    @Override
    public String toString() {
        return uuid().toString();
    }
}
