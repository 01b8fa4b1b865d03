package io.dask4j.comm;

import java.security.SecureRandom;
import java.util.Base64;

/**
 * Makes the secret a cluster authenticates with when the user gave none: 256 bits from {@link SecureRandom}, as
 * URL-safe base64 text (43 characters), so that it travels unchanged in {@code DASK4J_SECRET}, scheduler
 * files and command lines. The runtime makes one per cluster (the scheduler, when it starts without a secret and
 * listens where other users can reach it) and hands it on to the workers and clients it starts. Stateless; any
 * thread.
 */
public final class ClusterSecret {

    /** Random bytes behind a generated secret: twice the 128-bit minimum. */
    static final int GENERATED_BYTES = 32;
    private static final SecureRandom RANDOM = new SecureRandom();

    private ClusterSecret() {
    }

    /** A fresh secret as text; its UTF-8 bytes are the key. */
    public static String generate() {
        byte[] bytes = new byte[GENERATED_BYTES];
        RANDOM.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }
}
