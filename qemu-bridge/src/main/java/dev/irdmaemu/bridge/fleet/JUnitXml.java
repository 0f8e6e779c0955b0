package dev.irdmaemu.bridge.fleet;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import javax.xml.stream.XMLOutputFactory;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamWriter;

/**
 * A {@link FleetReport} as JUnit XML, the report format CI services read (the Ant JUnit task's schema, as Maven
 * Surefire, Jenkins, GitLab and GitHub's test reporters take it): one {@code testsuite}, one {@code testcase} per
 * scenario with its time, a failed scenario's failure summary as {@code <failure>} (a scenario that could not run
 * as {@code <error>}) and the container's report as {@code <system-out>}. Characters XML 1.0 cannot hold (a report is
 * what a container printed) are replaced.
 */
public final class JUnitXml {
    /** The suite's and every test case's class name. */
    public static final String SUITE = "irdma-emu.fleet";

    private JUnitXml() {
    }

    public static void write(FleetReport report, Path file, Instant when) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try (OutputStream out = Files.newOutputStream(tmp)) {
            XMLStreamWriter x = XMLOutputFactory.newFactory().createXMLStreamWriter(out, "UTF-8");
            x.writeStartDocument("UTF-8", "1.0");
            x.writeCharacters("\n");
            x.writeStartElement("testsuite");
            x.writeAttribute("name", SUITE);
            x.writeAttribute("tests", Integer.toString(report.runs().size()));
            x.writeAttribute("failures", Long.toString(count(report, ScenarioRun.Verdict.FAILED)));
            x.writeAttribute("errors", Long.toString(count(report, ScenarioRun.Verdict.ERROR)));
            x.writeAttribute("skipped", "0");
            x.writeAttribute("time", seconds(report.wall().toMillis()));
            x.writeAttribute("timestamp", when.truncatedTo(ChronoUnit.SECONDS).toString().replace("Z", ""));
            x.writeAttribute("hostname", clean(report.engine()));
            x.writeCharacters("\n");
            x.writeStartElement("properties");
            property(x, "engine", report.engine());
            property(x, "image", report.image());
            property(x, "parallel", Integer.toString(report.parallel()));
            x.writeEndElement();
            x.writeCharacters("\n");
            for (ScenarioRun r : report.runs()) {
                testcase(x, r);
            }
            x.writeEndElement();
            x.writeCharacters("\n");
            x.writeEndDocument();
            x.close();
        } catch (XMLStreamException e) {
            throw new IOException("writing " + file + ": " + e.getMessage(), e);
        }
        Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }

    private static void testcase(XMLStreamWriter x, ScenarioRun r) throws XMLStreamException {
        x.writeStartElement("testcase");
        x.writeAttribute("classname", SUITE);
        x.writeAttribute("name", clean(r.scenario()));
        x.writeAttribute("time", seconds(r.time().toMillis()));
        if (!r.passed()) {
            x.writeStartElement(r.verdict() == ScenarioRun.Verdict.FAILED ? "failure" : "error");
            x.writeAttribute("message", clean(r.headline()));
            x.writeAttribute("type", r.verdict() == ScenarioRun.Verdict.FAILED ? "scenario failed" : "could not run");
            x.writeCharacters(clean(r.failure() + "\nrun folder: " + r.folder()));
            x.writeEndElement();
        }
        x.writeStartElement("system-out");
        x.writeCharacters(clean(r.report()));
        x.writeEndElement();
        x.writeEndElement();
        x.writeCharacters("\n");
    }

    private static void property(XMLStreamWriter x, String name, String value) throws XMLStreamException {
        x.writeEmptyElement("property");
        x.writeAttribute("name", name);
        x.writeAttribute("value", clean(value));
    }

    private static long count(FleetReport report, ScenarioRun.Verdict v) {
        return report.runs().stream().filter(r -> r.verdict() == v).count();
    }

    private static String seconds(long millis) {
        return String.format(Locale.ROOT, "%.3f", millis / 1e3);
    }

    /** {@code s} with every character XML 1.0 cannot carry (controls but tab, LF, CR; lone surrogates; FFFE/FFFF) as '?'. */
    static String clean(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean pair = Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1));
            if (pair) {
                b.append(c).append(s.charAt(++i));
            } else if (c == '\t' || c == '\n' || c == '\r' || (c >= 0x20 && c < 0xD800) || (c >= 0xE000 && c < 0xFFFE)) {
                b.append(c);
            } else {
                b.append('?');
            }
        }
        return b.toString();
    }
}
