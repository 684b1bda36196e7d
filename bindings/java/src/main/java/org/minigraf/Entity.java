package org.minigraf;

import java.util.Objects;
import java.util.UUID;

/**
 * A reference to an entity: what a row holds for an entity id, distinct
 * from its UUID text. Binds back into a prepared query unchanged, in an
 * entity position ({@code [$e :a ?v]}) or a value one ({@code [?x :friend $e]}).
 * Immutable; equal when the UUIDs are.
 */
public final class Entity implements Comparable<Entity> {
    private final UUID uuid;

    private Entity(UUID uuid) {
        this.uuid = uuid;
    }

    /**
     * The entity with this UUID.
     *
     * @param uuid the id
     * @return the entity
     */
    public static Entity of(UUID uuid) {
        return new Entity(Objects.requireNonNull(uuid, "uuid"));
    }

    /**
     * The entity whose UUID is written {@code uuid}.
     *
     * @param uuid e.g. {@code "6ba7b810-9dad-11d1-80b4-00c04fd430c8"}
     * @return the entity
     * @throws IllegalArgumentException if the text is not a UUID
     */
    public static Entity of(String uuid) {
        return new Entity(UUID.fromString(Objects.requireNonNull(uuid, "uuid")));
    }

    /** From 16 bytes in RFC 4122 order at {@code bytes[offset]}. */
    static Entity fromBytes(byte[] bytes, int offset) {
        long msb = 0;
        long lsb = 0;
        for (int i = 0; i < 8; i++) {
            msb = (msb << 8) | (bytes[offset + i] & 0xff);
            lsb = (lsb << 8) | (bytes[offset + 8 + i] & 0xff);
        }
        return new Entity(new UUID(msb, lsb));
    }

    /** The 16 bytes in RFC 4122 order. */
    byte[] toBytes() {
        byte[] bytes = new byte[16];
        long msb = uuid.getMostSignificantBits();
        long lsb = uuid.getLeastSignificantBits();
        for (int i = 7; i >= 0; i--) {
            bytes[i] = (byte) msb;
            bytes[8 + i] = (byte) lsb;
            msb >>>= 8;
            lsb >>>= 8;
        }
        return bytes;
    }

    /** The entity's UUID. */
    public UUID uuid() {
        return uuid;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Entity && ((Entity) other).uuid.equals(uuid);
    }

    @Override
    public int hashCode() {
        return uuid.hashCode();
    }

    @Override
    public int compareTo(Entity other) {
        return uuid.toString().compareTo(other.uuid.toString());
    }

    /** The lowercase UUID text. */
    @Override
    public String toString() {
        return uuid.toString();
    }
}
