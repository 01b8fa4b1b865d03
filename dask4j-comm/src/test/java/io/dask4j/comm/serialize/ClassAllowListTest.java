package io.dask4j.comm.serialize;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ClassAllowListTest {

    @Test
    void theRuntimeTheJdkValueTypesAndArraysOfThemAreAlwaysAllowed() {
        ClassAllowList list = ClassAllowList.builtInOnly();
        assertThat(list.allows("io.dask4j.runtime.task.KeyRef")).isTrue();
        assertThat(list.allows("java.lang.Integer")).isTrue();
        assertThat(list.allows("java.util.ImmutableCollections$ListN")).isTrue();
        assertThat(list.allows("[[D")).isTrue();
        assertThat(list.allows("[Ljava.lang.String;")).isTrue();
    }

    @Test
    void otherJdkAndLibraryClassesAreNot() {
        ClassAllowList list = ClassAllowList.builtInOnly();
        assertThat(list.allows("java.util.PriorityQueue")).isFalse();
        assertThat(list.allows("java.lang.invoke.SerializedLambda")).isFalse();
        assertThat(list.allows("javax.management.BadAttributeValueExpException")).isFalse();
        assertThat(list.allows("org.apache.commons.collections.functors.InvokerTransformer")).isFalse();
        assertThat(list.allows("[Lorg.example.untrusted.Gadget;")).isFalse();
        assertThat(list.allows("io.dask4jevil.Gadget")).isFalse();
    }

    @Test
    void aPackageEntryAllowsItsSubPackagesAndAClassEntryItsNestedClasses() {
        ClassAllowList list = ClassAllowList.parse("com.acme.*, org.lab.Kernel");
        assertThat(list.allows("com.acme.Task")).isTrue();
        assertThat(list.allows("com.acme.sub.Task$Inner")).isTrue();
        assertThat(list.allows("com.acmeevil.Task")).isFalse();
        assertThat(list.allows("org.lab.Kernel")).isTrue();
        assertThat(list.allows("org.lab.Kernel$Params")).isTrue();
        assertThat(list.allows("org.lab.KernelEvil")).isFalse();
        assertThat(list.allows("org.lab.Other")).isFalse();
    }

    @Test
    void theSpecRoundTripsForAWorkersCommandLine() {
        ClassAllowList list = ClassAllowList.parse("com.acme.*,org.lab.Kernel");
        assertThat(ClassAllowList.parse(list.toSpec())).isEqualTo(list);
        assertThat(ClassAllowList.builtInOnly().toSpec()).isEmpty();
    }

    @Test
    void allowingEverythingOrNonsenseIsRefused() {
        assertThatThrownBy(() -> ClassAllowList.parse("*")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ClassAllowList.parse("com.acme.*;rm -rf")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theEnvironmentAddsEntriesToTheMainClassesPackage() {
        ClassAllowList list = ClassAllowList.fromEnvironment(Map.of(ClassAllowList.ENV, "org.lab.*"), Optional.of("com.acme.app.*"));
        assertThat(list.allows("com.acme.app.Main")).isTrue();
        assertThat(list.allows("org.lab.Kernel")).isTrue();
        assertThat(list.allows("com.acme.Other")).isFalse();
    }

    @Test
    void theMainClassAddsItsPackageOnlyWhenThatIsSpecificEnough() {
        assertThat(MainClassPackage.ofCommand("com.acme.app.Main --flag")).contains("com.acme.app.*");
        assertThat(MainClassPackage.ofCommand("my.module/com.acme.app.Main")).contains("com.acme.app.*");
        assertThat(MainClassPackage.ofCommand("com.Main")).contains("com.Main");
        assertThat(MainClassPackage.ofCommand("Main")).contains("Main");
        assertThat(MainClassPackage.ofCommand("io.dask4j.cli.Main worker")).isEmpty();
        assertThat(MainClassPackage.ofCommand("org.apache.maven.surefire.booter.ForkedBooter x")).isEmpty();
        assertThat(MainClassPackage.ofCommand("jdk.internal.jshell.tool.JShellToolProvider")).isEmpty();
        assertThat(MainClassPackage.ofCommand("/no/such/app.jar")).isEmpty();
        assertThat(MainClassPackage.ofCommand(null)).isEmpty();
    }
}
