package org.example.untrusted;

import java.io.Serializable;

/** Stands for a gadget: a class on the class path that nobody declared. */
public final class Gadget implements Serializable {

    public String command = "touch /tmp/pwned";
}
