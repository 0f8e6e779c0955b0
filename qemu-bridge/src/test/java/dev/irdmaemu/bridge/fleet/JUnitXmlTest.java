package dev.irdmaemu.bridge.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/** {@link JUnitXml}: the XML parses, counts and verdicts are JUnit's, and hostile report text stays well-formed. */
class JUnitXmlTest {
    @TempDir
    Path tmp;

    @Test
    void oneTestCasePerScenarioWithFailuresErrorsAndReports() throws Exception {
        Path out = tmp.resolve("out");
        FleetReport report = new FleetReport("tcp://127.0.0.1:2375", "irdma-emu:x", 2, List.of(
                new ScenarioRun("ping", ScenarioRun.Verdict.PASSED, Duration.ofMillis(41_200), "", out.resolve("ping"),
                        "status    ok\n"),
                new ScenarioRun("rping-server", ScenarioRun.Verdict.FAILED, Duration.ofSeconds(50),
                        "status FAILED: odd \u0001\u0002 <&> \"q\" \uD800\n| detail", out.resolve("rping-server"),
                        "scenario \u001b[1m\nstatus    FAILED\n"),
                new ScenarioRun("smoke", ScenarioRun.Verdict.ERROR, Duration.ofSeconds(1), "the engine did not create it",
                        out.resolve("smoke"), "")), Duration.ofMillis(91_500), out);
        Path file = tmp.resolve("junit.xml");
        JUnitXml.write(report, file, Instant.parse("2026-12-08T01:02:03.456Z"));

        Document d = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(file.toFile());
        Element suite = d.getDocumentElement();
        assertEquals("testsuite", suite.getTagName());
        assertEquals("3", suite.getAttribute("tests"));
        assertEquals("1", suite.getAttribute("failures"));
        assertEquals("1", suite.getAttribute("errors"));
        assertEquals("91.500", suite.getAttribute("time"));
        assertEquals("2026-12-08T01:02:03", suite.getAttribute("timestamp"));
        NodeList cases = suite.getElementsByTagName("testcase");
        assertEquals(3, cases.getLength());
        Element ping = (Element) cases.item(0);
        assertEquals("ping", ping.getAttribute("name"));
        assertEquals(JUnitXml.SUITE, ping.getAttribute("classname"));
        assertEquals("41.200", ping.getAttribute("time"));
        assertEquals(0, ping.getElementsByTagName("failure").getLength());
        assertEquals("status    ok\n", ping.getElementsByTagName("system-out").item(0).getTextContent());
        Element failure = (Element) ((Element) cases.item(1)).getElementsByTagName("failure").item(0);
        assertEquals("status FAILED: odd ?? <&> \"q\" ?", failure.getAttribute("message"));
        assertTrue(failure.getTextContent().contains("| detail") && failure.getTextContent().contains("run folder: "),
                failure.getTextContent());
        Element error = (Element) ((Element) cases.item(2)).getElementsByTagName("error").item(0);
        assertEquals("the engine did not create it", error.getAttribute("message"));
        NodeList props = suite.getElementsByTagName("property");
        assertEquals("parallel", ((Element) props.item(2)).getAttribute("name"));
        assertEquals("2", ((Element) props.item(2)).getAttribute("value"));
    }

    @Test
    void cleanKeepsWhatXmlCarriesAndReplacesTheRest() {
        assertEquals("a\tb\nc\r\u00e9\uD83D\uDE00", JUnitXml.clean("a\tb\nc\r\u00e9\uD83D\uDE00"));
        assertEquals("??x??", JUnitXml.clean("\u0000\u001fx\uFFFE\uDC00"));
    }
}
