package dev.irdmaemu.cm;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/** Records the upcalls one consumer gets and optionally reacts to them. */
final class Recorder implements CmEventHandler {
    final String name;
    final List<CmEvent> events = new ArrayList<>();
    Consumer<CmEvent> reaction = e -> { };

    Recorder(String name) {
        this.name = name;
    }

    Recorder onEvent(Consumer<CmEvent> r) {
        this.reaction = r;
        return this;
    }

    @Override
    public void onEvent(CmEvent event) {
        events.add(event);
        reaction.accept(event);
    }

    List<String> types() {
        List<String> t = new ArrayList<>();
        for (CmEvent e : events) {
            t.add(e.type() + (e.status() == CmStatus.OK ? "" : ":" + e.status()));
        }
        return t;
    }

    CmEvent first(CmEventType type) {
        for (CmEvent e : events) {
            if (e.type() == type) {
                return e;
            }
        }
        throw new AssertionError(name + " got no " + type + ", only " + types());
    }
}
