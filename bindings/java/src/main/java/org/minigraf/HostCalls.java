package org.minigraf;

import java.nio.ByteBuffer;
import java.util.function.BiFunction;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * What the C callbacks of minigraf_jni_host.c call, on the thread running the query: the
 * application's host functions and progress handler. A Throwable from the application becomes the
 * query's API-016 failure carrying its message (a byte[] "message" answer), never a JNI exception.
 */
final class HostCalls {
    private HostCalls() {}

    /** A registered aggregate: its three functions. */
    static final class Aggregate<A> {
        final Supplier<A> init;
        final BiFunction<A, Value, A> step;
        final BiFunction<A, Long, Object> finish;

        Aggregate(
                Supplier<A> init,
                BiFunction<A, Value, A> step,
                BiFunction<A, Long, Object> finish) {
            this.init = init;
            this.step = step;
            this.finish = finish;
        }
    }

    /** One accumulator of an aggregate (a group or a window partition). */
    static final class State {
        Object acc;
    }

    /** What the progress handler consults: the interrupt flag, then the application's handler. */
    static final class Progress {
        volatile BooleanSupplier handler;
    }

    static byte[] message(Throwable t) {
        String text = t.getMessage() != null ? t.getMessage() : t.getClass().getName();
        return Utf8.encodeLossy(text);
    }

    private static byte[] failed(Throwable t) {
        byte[] text = message(t);
        byte[] out = new byte[text.length + 1];
        out[0] = 1;
        System.arraycopy(text, 0, out, 1, text.length);
        return out;
    }

    @SuppressWarnings({"unchecked", "unused"})
    static byte[] predicate(Object fn, int type, long integer, double real, byte[] text) {
        try {
            boolean answer =
                    ((Predicate<Value>) fn).test(Value.fromNative(type, integer, real, text));
            return new byte[] {0, (byte) (answer ? 1 : 0)};
        } catch (Throwable t) {
            return failed(t);
        }
    }

    /** A new State, or the failure's message (a byte[]). */
    @SuppressWarnings({"unchecked", "unused"})
    static Object init(Object fn) {
        try {
            State state = new State();
            state.acc = ((Aggregate<Object>) fn).init.get();
            return state;
        } catch (Throwable t) {
            return message(t);
        }
    }

    /** Null, or the failure's message. */
    @SuppressWarnings({"unchecked", "unused"})
    static byte[] step(Object fn, Object state, int type, long integer, double real, byte[] text) {
        try {
            State s = (State) state;
            s.acc =
                    ((Aggregate<Object>) fn)
                            .step.apply(s.acc, Value.fromNative(type, integer, real, text));
            return null;
        } catch (Throwable t) {
            return message(t);
        }
    }

    /** [0, type, payload] (see minigraf_jni_host.c finish_result), or [1, message]. */
    @SuppressWarnings({"unchecked", "unused"})
    static byte[] finish(Object fn, Object state, long n) {
        try {
            return encode(Value.of(((Aggregate<Object>) fn).finish.apply(((State) state).acc, n)));
        } catch (Throwable t) {
            return failed(t);
        }
    }

    private static byte[] encode(Value v) {
        switch (v.type()) {
            case INTEGER:
                return ByteBuffer.allocate(10)
                        .put((byte) 0)
                        .put((byte) NativeCalls.TYPE_INTEGER)
                        .putLong(v.asLong())
                        .array();
            case FLOAT:
                return ByteBuffer.allocate(10)
                        .put((byte) 0)
                        .put((byte) NativeCalls.TYPE_FLOAT)
                        .putLong(Double.doubleToRawLongBits(v.asDouble()))
                        .array();
            case BOOLEAN:
                return new byte[] {0, NativeCalls.TYPE_BOOLEAN, (byte) ((Boolean) v.get() ? 1 : 0)};
            case STRING:
                return withText(NativeCalls.TYPE_STRING, Utf8.encode(v.asString()));
            case KEYWORD:
                return withText(NativeCalls.TYPE_KEYWORD, Utf8.encode(((Keyword) v.get()).text()));
            case ENTITY:
                return withText(NativeCalls.TYPE_REF, ((Entity) v.get()).toBytes());
            case LIST:
                throw new IllegalArgumentException("an aggregate cannot return a list");
            default:
                return new byte[] {0, NativeCalls.TYPE_NULL};
        }
    }

    private static byte[] withText(int type, byte[] text) {
        byte[] out = new byte[text.length + 2];
        out[1] = (byte) type;
        System.arraycopy(text, 0, out, 2, text.length);
        return out;
    }

    /** 1 stops the running call: this thread was interrupted, or the handler says so. */
    @SuppressWarnings("unused")
    static int progress(Object state) {
        if (Thread.currentThread().isInterrupted()) {
            return 1;
        }
        BooleanSupplier handler = ((Progress) state).handler;
        return handler != null && handler.getAsBoolean() ? 1 : 0;
    }

    static <A> Aggregate<A> aggregate(
            Supplier<A> init, BiFunction<A, Value, A> step, Function<A, Object> finish) {
        return new Aggregate<>(init, step, (acc, n) -> finish.apply(acc));
    }
}
