import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * One round of ./irdma-emu soak: reads the surefire XML reports of the modules given (a run with only the jqwik
 * engine), appends the full text of every failure to FAILURES, and prints on stdout one line of counts,
 * "tests properties tries checks failures", then one line per failure, "FAIL module class#method seed".
 * Run as a single-file source program: java qemu-bridge/src/main/soak/SoakRound.java ROUND FAILURES MODULE_DIR...
 */
public final class SoakRound {
    private static final Pattern TRIES = Pattern.compile("(?m)^tries = (\\d+)");
    private static final Pattern CHECKS = Pattern.compile("(?m)^checks = (\\d+)");
    private static final Pattern SEED = Pattern.compile("(?m)^seed = (-?\\d+)");

    public static void main(String[] args) throws Exception {
        String round = args[0];
        Path failuresFile = Path.of(args[1]);
        long tests = 0, properties = 0, tries = 0, checks = 0;
        List<String> failLines = new ArrayList<>();
        StringBuilder failText = new StringBuilder();
        var factory = DocumentBuilderFactory.newInstance();
        for (int i = 2; i < args.length; i++) {
            Path module = Path.of(args[i]);
            Path reports = module.resolve("target/surefire-reports");
            if (!Files.isDirectory(reports)) {
                continue;
            }
            List<Path> xmls;
            try (Stream<Path> s = Files.list(reports)) {
                xmls = s.filter(p -> p.getFileName().toString().matches("TEST-.*\\.xml")).sorted().toList();
            }
            for (Path xml : xmls) {
                Element suite = factory.newDocumentBuilder().parse(xml.toFile()).getDocumentElement();
                String suiteName = suite.getAttribute("name");
                NodeList cases = suite.getElementsByTagName("testcase");
                for (int c = 0; c < cases.getLength(); c++) {
                    Element tc = (Element) cases.item(c);
                    tests++;
                    String out = text(tc, "system-out") + text(tc, "system-err");
                    Matcher t = TRIES.matcher(out);
                    if (t.find()) {
                        properties++;
                        tries += Long.parseLong(t.group(1));
                        Matcher k = CHECKS.matcher(out);
                        if (k.find()) {
                            checks += Long.parseLong(k.group(1));
                        }
                    }
                    Element failure = first(tc, "failure");
                    if (failure == null) {
                        failure = first(tc, "error");
                    }
                    if (failure == null) {
                        continue;
                    }
                    String name = suiteName + "#" + tc.getAttribute("name");
                    Matcher s = SEED.matcher(out);
                    String seed = s.find() ? s.group(1) : "-";
                    failLines.add("FAIL " + module.getFileName() + " " + name + " " + seed);
                    failText.append("==== round ").append(round).append(": ").append(module.getFileName())
                            .append(' ').append(name).append(" seed = ").append(seed).append('\n');
                    String type = failure.getAttribute("type");
                    String message = failure.getAttribute("message");
                    failText.append(failure.getTagName()).append(": ").append(type)
                            .append(message.isEmpty() ? "" : ": " + message).append('\n');
                    failText.append(failure.getTextContent().strip()).append('\n');
                    if (!out.isBlank()) {
                        failText.append("---- output\n").append(out.strip()).append('\n');
                    }
                    failText.append('\n');
                }
            }
        }
        if (failText.length() > 0) {
            Files.writeString(failuresFile, failText, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        }
        PrintStream o = System.out;
        o.println(tests + " " + properties + " " + tries + " " + checks + " " + failLines.size());
        failLines.forEach(o::println);
    }

    private static Element first(Element parent, String tag) {
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(tag)) {
                return e;
            }
        }
        return null;
    }

    private static String text(Element parent, String tag) {
        Element e = first(parent, tag);
        return e == null ? "" : e.getTextContent();
    }

    private SoakRound() {}
}
