package io.dask4j.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import io.dask4j.bench.comm.CommBenchCommand;
import io.dask4j.bench.mpi.MpiCommBenchCommand;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Every {@code ./dask4j} command named in README.md, dask4j-examples/README.md and docs/*.md exists, with only options its command has:
 * the lines of shell blocks are parsed by the CLI's own picocli spec as they are written, and commands in inline
 * code (where they may be usage syntax such as {@code [--n N]} or {@code tcp\|mpi}) are checked name by name.
 * {@code test}, {@code build} and {@code classpath} are the launcher script's own commands.
 */
class DocCommandsTest {

    private static final String BENCH_COMM = "dask4j bench comm";
    private static final Set<String> SCRIPT_COMMANDS = Set.of("test", "build", "classpath");
    private static final Pattern FENCE = Pattern.compile("(?ms)^```(\\w*)\\n(.*?)^```");
    private static final Pattern INLINE = Pattern.compile("`([^`]+)`");
    private static final Pattern INVOCATION = Pattern.compile("(?<![\\w./])\\./dask4j(?![\\w-])");

    /** A command as the docs write it: where, and its words after {@code ./dask4j}. */
    record Written(String where, List<String> words, boolean syntax) {
    }

    private static Path repositoryRoot() {
        Path root = Path.of("").toAbsolutePath().getParent();
        assertThat(root.resolve("dask4j")).as("the repository root").isRegularFile();
        return root;
    }

    @Test
    void everyCommandInTheDocsIsOneTheCliHas() throws IOException {
        Path root = repositoryRoot();
        List<Written> commands = commands(root);
        assertThat(commands).as("./dask4j commands in README.md and docs/").hasSizeGreaterThan(20);
        List<String> problems = new ArrayList<>();
        for (Written c : commands) {
            String problem = check(c);
            if (problem != null) {
                problems.add(c.where() + ": ./dask4j " + String.join(" ", c.words()) + ": " + problem);
            }
        }
        assertThat(problems).as("commands in the docs that the CLI does not accept").isEmpty();
    }

    @Test
    void anUnknownCommandOrOptionIsFound() {
        assertThat(check(new Written("x", List.of("sheduler"), false))).contains("unknown command 'sheduler'");
        assertThat(check(new Written("x", List.of("worker", "--nthread", "2", "tcp://h:1"), false))).isNotNull();
        assertThat(check(new Written("x", List.of("bench", "seed", "--layuot", "row-major"), true)))
                .contains("unknown option --layuot");
        assertThat(check(new Written("x", List.of("classpath", "--full"), false))).contains("--full");
        assertThat(check(new Written("x", List.of("bench", "seed", "--n", "100", "--layout", "row-major"), false))).isNull();
        assertThat(check(new Written("x", List.of("worker", "ADDRESS", "|", "--scheduler-file", "F"), true))).isNull();
    }

    /** Null if the CLI accepts the command, else what is wrong. */
    static String check(Written c) {
        List<String> words = c.words();
        if (words.isEmpty()) {
            return null;
        }
        if (SCRIPT_COMMANDS.contains(words.getFirst())) {
            boolean onlyHelp = words.stream().skip(1).allMatch(w -> w.equals("--help") || w.equals("-h"));
            return words.getFirst().equals("test") || onlyHelp ? null
                    : "the script's " + words.getFirst() + " command takes no " + String.join(" ", words.subList(1, words.size()));
        }
        String names = checkNames(words);
        if (names != null || c.syntax()) {
            return names;
        }
        try {
            int comm = String.join(" ", words).startsWith("bench comm") ? 2 : -1;
            if (comm > 0) {
                List<String> rest = words.subList(comm, words.size());
                new CommandLine(benchCommSpec(rest)).parseArgs(rest.toArray(String[]::new));
            } else {
                Main.commandLine().parseArgs(words.toArray(String[]::new));
            }
            return null;
        } catch (CommandLine.ParameterException e) {
            return e.getMessage();
        }
    }

    /**
     * {@code bench comm} routes its options, unparsed, to the benchmark of its {@code --backend}: the spec that
     * checks them is that benchmark's (both, when the docs name both backends), plus the router's own options.
     */
    private static CommandSpec benchCommSpec(List<String> rest) {
        int at = rest.indexOf("--backend");
        String backend = at >= 0 && at + 1 < rest.size() ? String.join(" ", rest.subList(at + 1, rest.size())) : "tcp";
        boolean mpi = backend.startsWith("mpi") || backend.matches("^(tcp|inproc) \\| .*mpi.*");
        boolean other = !backend.startsWith("mpi");
        CommandSpec spec = CommandSpec.create().name("comm");
        spec.addOption(OptionSpec.builder("--backend").arity("1").build());
        for (CommandSpec target : List.of(CommandSpec.forAnnotatedObject(new MpiCommBenchCommand()),
                CommandSpec.forAnnotatedObject(new CommBenchCommand()))) {
            boolean isMpi = target.userObject() instanceof MpiCommBenchCommand;
            if (isMpi ? mpi : other) {
                for (OptionSpec o : target.options()) {
                    if (o.names().length > 0 && spec.findOption(o.longestName()) == null) {
                        spec.addOption(OptionSpec.builder(o.names()).arity(o.arity().originalValue())
                                .type(o.type()).auxiliaryTypes(o.auxiliaryTypes()).splitRegex(o.splitRegex()).build());
                    }
                }
            }
        }
        return spec;
    }

    /** Checks the subcommand path and option names only (usage syntax has placeholders, not values). */
    private static String checkNames(List<String> words) {
        CommandSpec current = Main.commandLine().getCommandSpec();
        for (int i = 0; i < words.size(); i++) {
            String word = words.get(i);
            if (word.equals("|") || word.equals("...") || word.isEmpty()) {
                continue;
            }
            if (word.startsWith("-") && word.length() > 1) {
                String name = word.contains("=") ? word.substring(0, word.indexOf('=')) : word;
                OptionSpec option = current.findOption(name);
                if (option == null) {
                    return "unknown option " + name + " of '" + current.qualifiedName() + "'";
                }
                if (!word.contains("=") && option.arity().min() > 0) {
                    i++;
                }
            } else if (current.subcommands().containsKey(word)) {
                current = current.subcommands().get(word).getCommandSpec();
                if (current.qualifiedName().equals(BENCH_COMM)) {
                    current = benchCommSpec(words.subList(i + 1, words.size()));
                }
            } else if (!current.subcommands().isEmpty() && current.positionalParameters().isEmpty()) {
                return "unknown command '" + word + "' of '" + current.qualifiedName() + "'";
            }
        }
        return null;
    }

    /** The {@code ./dask4j} commands of README.md, dask4j-examples/README.md and docs/*.md. */
    static List<Written> commands(Path root) throws IOException {
        List<Path> docs = new ArrayList<>();
        docs.add(root.resolve("README.md"));
        docs.add(root.resolve("dask4j-examples/README.md"));
        try (Stream<Path> s = Files.list(root.resolve("docs"))) {
            s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
        }
        List<Written> out = new ArrayList<>();
        for (Path doc : docs) {
            String text = Files.readString(doc, StandardCharsets.UTF_8);
            String name = root.relativize(doc).toString();
            Matcher fence = FENCE.matcher(text);
            StringBuilder prose = new StringBuilder();
            int last = 0;
            while (fence.find()) {
                prose.append(text, last, fence.start());
                // keep the line count of the prose for messages
                prose.append("\n".repeat((int) fence.group().chars().filter(ch -> ch == '\n').count()));
                last = fence.end();
                if (Set.of("bash", "sh", "shell", "").contains(fence.group(1))) {
                    int line = lineOf(text, fence.start(2));
                    shellCommands(name, line, fence.group(2), out);
                }
            }
            prose.append(text.substring(last));
            Matcher inline = INLINE.matcher(prose);
            while (inline.find()) {
                // $(./dask4j classpath) is shell; anything else in inline code may be usage syntax.
                boolean shell = inline.group(1).contains("$(./dask4j");
                String span = shell ? inline.group(1)
                        : inline.group(1).replace("\\|", " | ").replaceAll("[\\[\\]()]", " ");
                Matcher at = INVOCATION.matcher(span);
                while (at.find()) {
                    List<String> words = words(span.substring(at.end()), !shell);
                    if (!words.isEmpty() && words.getFirst().startsWith("<")) {
                        continue; // ./dask4j <command> --help: a placeholder
                    }
                    out.add(new Written(name + ":" + lineOf(prose.toString(), inline.start()), words, true));
                }
            }
        }
        return out;
    }

    private static void shellCommands(String doc, int firstLine, String block, List<Written> out) {
        String[] lines = block.split("\n", -1);
        StringBuilder logical = new StringBuilder();
        int start = firstLine;
        for (int i = 0; i < lines.length; i++) {
            if (logical.isEmpty()) {
                start = firstLine + i;
            }
            String line = lines[i];
            if (line.endsWith("\\")) {
                logical.append(line, 0, line.length() - 1).append(' ');
                continue;
            }
            logical.append(line);
            String command = logical.toString();
            logical.setLength(0);
            if (command.strip().startsWith("#")) {
                continue;
            }
            // A block may show usage syntax ([--nthreads T], mpi|tcp) rather than a command to paste.
            boolean syntax = command.contains("[-");
            if (syntax) {
                command = command.replace("\\|", " | ").replaceAll("[\\[\\]()]", " ");
            }
            Matcher at = INVOCATION.matcher(command);
            while (at.find()) {
                List<String> words = words(command.substring(at.end()), syntax);
                boolean placeholder = syntax || words.contains("...");
                out.add(new Written(doc + ":" + start, words.contains("...") ? words.subList(0, words.indexOf("...")) : words,
                        placeholder));
            }
        }
    }

    /** The words of a command up to where the shell ends it (a pipe, a redirect, a comment, a closing paren). */
    private static List<String> words(String rest, boolean syntax) {
        String stops = syntax ? "#;&>" : "#;&>|)`";
        int end = rest.length();
        for (char c : stops.toCharArray()) {
            int at = rest.indexOf(c);
            if (at >= 0 && at < end) {
                end = at;
            }
        }
        return Arrays.stream(rest.substring(0, end).strip().split("\\s+"))
                .map(w -> w.replace("\"", "").replace("'", "")).filter(w -> !w.isEmpty()).toList();
    }

    private static int lineOf(String text, int offset) {
        return (int) text.substring(0, offset).chars().filter(ch -> ch == '\n').count() + 1;
    }
}
