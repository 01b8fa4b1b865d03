package io.dask4j.comm.serialize;

import com.esotericsoftware.kryo.Registration;
import com.esotericsoftware.kryo.util.DefaultClassResolver;

/**
 * Kryo's class resolver for reading, refusing every class its {@link ClassAllowList} does not allow. Two
 * doors are guarded: a class name read from the bytes (checked before the class is loaded), and a class
 * Kryo meets without a name in the bytes (a field whose declared type is final), checked before its first
 * object is built. Classes Kryo registers itself by id (primitives, {@code String}) and the closure marker
 * never pass either door; a lambda's capturing class arrives by name. One per Kryo instance, so confined to
 * the thread holding that instance.
 */
final class AllowListClassResolver extends DefaultClassResolver {

    private final ClassAllowList allowed;

    AllowListClassResolver(ClassAllowList allowed) {
        this.allowed = allowed;
    }

    @Override
    protected Class getTypeByName(String className) {
        check(className);
        return super.getTypeByName(className);
    }

    @Override
    public Registration registerImplicit(Class type) {
        check(type.getName());
        return super.registerImplicit(type);
    }

    private void check(String className) {
        if (!allowed.allows(className)) {
            throw new ClassNotAllowedException(className);
        }
    }
}
