package dev.irdmaemu.bridge.container;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * docs/containers.md's "Guest containers" section shows how to write a scenario test both ways; its Java examples must
 * compile and run as written. Each one is therefore, line for line (indentation aside), in a test source of this
 * module, which the build compiles and the suite runs: this finds each there.
 */
class ReadmeExamplesTest {
    private static final String SECTION = "## Guest containers";
    private static final Path TESTS = Path.of("qemu-bridge", "src", "test", "java");

    @Test
    void everyJavaExampleOfTheGuestContainersSectionIsInATestAsWritten() throws IOException {
        Path root = GuestImage.repositoryRoot();
        List<String> examples = javaBlocks(section(Files.readString(root.resolve("docs").resolve("containers.md"),
                StandardCharsets.UTF_8)));
        assertTrue(examples.size() >= 3, "the section shows the direct test, the container test and a plain one: "
                + examples.size());
        assertTrue(examples.stream().anyMatch(e -> e.contains("model = HostedNodeModel.class")
                && e.contains("ScenarioExpectations.")), "an example boots the hosted node through a container");
        assertTrue(examples.stream().anyMatch(e -> e.contains("BootTests.boot(") && e.contains("ScenarioExpectations.")),
                "an example boots the same scenario directly");
        List<String> sources;
        try (Stream<Path> files = Files.walk(root.resolve(TESTS))) {
            sources = files.filter(f -> f.toString().endsWith(".java")).map(ReadmeExamplesTest::normalised).toList();
        }
        for (String example : examples) {
            String wanted = normalise(example);
            assertFalse(wanted.isEmpty());
            assertTrue(sources.stream().anyMatch(source -> source.contains(wanted)),
                    "no test source holds this docs/containers.md example as written:\n" + example);
        }
    }

    @Test
    void theComparisonIgnoresIndentationOnlyAndSeesAChangedLine() {
        String file = "package x;\n\nclass A {\n    @Test\n    void a() {\n        b(1);\n    }\n}\n";
        assertTrue(normalise(file).contains(normalise("    void a() {\n      b(1);\n    }")));
        assertFalse(normalise(file).contains(normalise("void a() {\n    b(2);\n}")));
        assertFalse(normalise(file).contains(normalise("void a() {\n}")), "a line left out is not the same code");
    }

    /** The section's text, from its heading to the next second-level heading. */
    static String section(String readme) {
        int from = readme.indexOf(SECTION);
        assertTrue(from >= 0, "docs/containers.md has a section " + SECTION);
        int to = readme.indexOf("\n## ", from + SECTION.length());
        return readme.substring(from, to < 0 ? readme.length() : to);
    }

    /** The bodies of the section's ```java blocks. */
    static List<String> javaBlocks(String text) {
        List<String> blocks = new ArrayList<>();
        int at = 0;
        while ((at = text.indexOf("```java\n", at)) >= 0) {
            int start = at + "```java\n".length();
            int end = text.indexOf("```", start);
            assertTrue(end > start, "an unclosed ```java block");
            blocks.add(text.substring(start, end));
            at = end + 3;
        }
        return blocks;
    }

    /** Every line stripped of its indentation, blank lines dropped, one newline between lines. */
    static String normalise(String code) {
        return code.lines().map(String::strip).filter(l -> !l.isEmpty()).collect(Collectors.joining("\n", "\n", "\n"));
    }

    private static String normalised(Path file) {
        try {
            return normalise(Files.readString(file, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
