package io.dask4j.jobs;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MpiPlacementOptionsTest {

    @Command(name = "placed")
    static final class Placed implements Runnable {
        @Mixin
        MpiPlacementOptions placement = new MpiPlacementOptions();
        @Spec
        CommandSpec spec;

        @Override
        public void run() {
            placement.check(spec);
        }
    }

    private static MpiPlacementOptions parse(String... args) {
        Placed placed = new Placed();
        new CommandLine(placed).parseArgs(args);
        placed.run();
        return placed.placement;
    }

    @Test
    void hostsAgentAndLauncherArgumentsBecomeEachLaunchersOwnOptions() {
        MpiPlacementOptions p = parse("--hosts", "node1:3,node2:2", "--launcher-agent", "/opt/rsh",
                "--launcher-arg=--mca", "--launcher-arg=btl_tcp_if_include", "--launcher-arg=10.0.0.0/24");

        assertThat(p.launcherOptions("openmpi")).containsExactly("--mca", "plm_rsh_agent", "/opt/rsh",
                "--host", "node1:3,node2:2", "--mca", "btl_tcp_if_include", "10.0.0.0/24");
        assertThat(p.launcherOptions("MPICH")).containsExactly("-launcher", "ssh", "-launcher-exec", "/opt/rsh",
                "-hosts", "node1:3,node2:2", "--mca", "btl_tcp_if_include", "10.0.0.0/24");
    }

    @Test
    void withoutThemTheLauncherDecides() {
        assertThat(parse().launcherOptions("openmpi")).isEmpty();
        assertThat(parse("--hosts", "a,b").launcherOptions("mpich")).isEqualTo(List.of("-hosts", "a,b"));
    }

    @Test
    void aMalformedHostListIsACommandLineError() {
        assertThatThrownBy(() -> parse("--hosts", "node1:three")).isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("--hosts must be HOST[:SLOTS],...");
        assertThatThrownBy(() -> parse("--hosts", "node1,,node2")).isInstanceOf(CommandLine.ParameterException.class);
    }
}
