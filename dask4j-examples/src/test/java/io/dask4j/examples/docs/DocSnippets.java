package io.dask4j.examples.docs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The {@code ```java} blocks of README.md, dask4j-examples/README.md and docs/*.md, each made into a compilation unit: a block that is a whole
 * file (imports, a class) as it is; a block of members (a {@code main} method) inside a class; a block of statements
 * inside a method of a class. An HTML comment on the line before a block, {@code <!-- compiled with: static Comm
 * comm; -->}, adds members to that class, for names the block takes as given.
 */
record DocSnippets(List<Snippet> snippets) {

    /** One block: where it is, its text, and what the comment before it declares. */
    record Snippet(Path doc, int firstLine, String code, String given) {

        /** Its place for messages: {@code docs/tuning.md:42}. */
        String where(Path root) {
            return root.relativize(doc) + ":" + firstLine;
        }
    }

    private static final Pattern GIVEN = Pattern.compile("^<!--\\s*compiled with:(.*)-->\\s*$");
    private static final Pattern WHOLE_FILE = Pattern.compile("(?m)^(import |package |(public |final |abstract )*(class|record|interface|enum) )");
    private static final Pattern MEMBERS = Pattern.compile("(?m)^(public |private |protected |static )");
    private static final Pattern PUBLIC_TYPE = Pattern.compile("(?m)^public (final |abstract )*(class|record|interface|enum) (\\w+)");

    /** The repository's root, seen from a module's directory (where Maven runs its tests). */
    static Path repositoryRoot() {
        Path root = Path.of("").toAbsolutePath().getParent();
        if (!Files.isRegularFile(root.resolve("dask4j"))) {
            throw new IllegalStateException("not the repository root (no dask4j script): " + root);
        }
        return root;
    }

    /** README.md, dask4j-examples/README.md and every docs/*.md under {@code root}: the docs whose examples are checked. */
    static List<Path> docs(Path root) throws IOException {
        List<Path> docs = new ArrayList<>();
        docs.add(root.resolve("README.md"));
        docs.add(root.resolve("dask4j-examples/README.md"));
        try (Stream<Path> s = Files.list(root.resolve("docs"))) {
            s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
        }
        return docs;
    }

    /** The blocks of {@link #docs}, in file order. */
    static DocSnippets of(Path root) throws IOException {
        List<Snippet> out = new ArrayList<>();
        for (Path doc : docs(root)) {
            List<String> lines = Files.readAllLines(doc, StandardCharsets.UTF_8);
            for (int i = 0; i < lines.size(); i++) {
                if (!lines.get(i).strip().equals("```java")) {
                    continue;
                }
                Matcher given = i > 0 ? GIVEN.matcher(lines.get(i - 1).strip()) : GIVEN.matcher("");
                StringBuilder code = new StringBuilder();
                int start = i + 1;
                for (i = start; i < lines.size() && !lines.get(i).strip().equals("```"); i++) {
                    code.append(lines.get(i)).append('\n');
                }
                out.add(new Snippet(doc, start + 1, code.toString(), given.matches() ? given.group(1).strip() : ""));
            }
        }
        return new DocSnippets(out);
    }

    /** The kind of unit a block makes. */
    enum Shape { WHOLE_FILE, MEMBERS, STATEMENTS }

    static Shape shape(String code) {
        if (WHOLE_FILE.matcher(code).find()) {
            return Shape.WHOLE_FILE;
        }
        return MEMBERS.matcher(code).find() ? Shape.MEMBERS : Shape.STATEMENTS;
    }

    /**
     * The source of block {@code index} in package {@code docsnippets.s<index>}, its imports first (the block's own,
     * then {@code imports}), and the number of lines put before the block's first line.
     */
    static Unit unit(Snippet snippet, int index, List<String> imports) {
        String pkg = "docsnippets.s" + index;
        StringBuilder head = new StringBuilder("package " + pkg + ";\n");
        String code = snippet.code();
        Shape shape = shape(code);
        if (shape == Shape.WHOLE_FILE) {
            code = code.replaceAll("(?m)^package [\\w.]+;", "");
        }
        for (String i : imports) {
            head.append("import ").append(i).append(".*;\n");
        }
        String className = "Snippet";
        String open = "";
        String close = "";
        switch (shape) {
            case WHOLE_FILE -> {
                Matcher m = PUBLIC_TYPE.matcher(code);
                if (m.find()) {
                    className = m.group(3);
                }
            }
            case MEMBERS -> {
                open = "class Snippet { " + snippet.given() + "\n";
                close = "}\n";
            }
            case STATEMENTS -> {
                open = "class Snippet { " + snippet.given() + " static void snippet() throws Exception {\n";
                close = "}}\n";
            }
        }
        String prefix = head + open;
        if (shape == Shape.WHOLE_FILE) {
            // A whole file keeps its own imports first: imports go after them would be an error, so put ours first.
            prefix = head.toString();
        }
        int offset = (int) prefix.chars().filter(c -> c == '\n').count();
        return new Unit(pkg + "." + className, prefix + code + close, offset, snippet);
    }

    /** A compilation unit made of a block: its class name, its source, and the lines before the block's text. */
    record Unit(String className, String source, int linesBefore, Snippet snippet) {
    }
}
