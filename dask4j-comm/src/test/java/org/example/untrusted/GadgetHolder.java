package org.example.untrusted;

/** A user type that would be allowed by class name but holds a {@link Gadget} in a field of its final type. */
public record GadgetHolder(String name, Gadget gadget) {
}
