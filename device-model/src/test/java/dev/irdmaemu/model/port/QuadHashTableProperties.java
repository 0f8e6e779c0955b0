package dev.irdmaemu.model.port;


import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.irdmaemu.model.LeakCheck;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** The open-addressed quad-hash table behaves like a map over (type, tuple, VLAN) under any add/delete sequence. */
class QuadHashTableProperties {
    record Op(boolean add, int type, int local, int lport, int remote, int rport, int vlan, int qp) {
        List<Object> key() {
            return type == QuadHashTable.TYPE_SYN ? List.of(type, local, lport, vlan)
                    : List.of(type, local, lport, remote, rport, vlan);
        }
    }

    @Provide
    Arbitrary<List<Op>> ops() {
        // Small domains so that keys collide, repeat and get deleted and re-added.
        Arbitrary<Op> op = Combinators.combine(Arbitraries.of(true, true, false),
                Arbitraries.of(QuadHashTable.TYPE_ESTABLISHED, QuadHashTable.TYPE_SYN),
                Arbitraries.integers().between(1, 3), Arbitraries.integers().between(1, 4),
                Arbitraries.integers().between(1, 3), Arbitraries.integers().between(1, 4),
                Arbitraries.of(-1, 5), Arbitraries.integers().between(0, 63))
                .as(Op::new);
        return op.list().ofMaxSize(300);
    }

    @Property(tries = 300)
    void behavesLikeAMap(@ForAll("ops") List<Op> ops) {
        QuadHashTable t = new QuadHashTable(64);
        Map<List<Object>, Integer> model = new HashMap<>();
        for (Op o : ops) {
            QuadHashTable.Change c;
            if (o.add()) {
                c = t.put(o.type(), 0, o.local(), o.lport(), 0, o.remote(), o.rport(), o.vlan(), o.qp(), false);
                if (model.containsKey(o.key())) {
                    assertEquals(QuadHashTable.Change.EXISTS, c);
                } else if (model.size() + 1 > 48) {
                    assertEquals(QuadHashTable.Change.FULL, c);
                } else {
                    assertEquals(QuadHashTable.Change.OK, c);
                    model.put(o.key(), o.qp());
                }
            } else {
                c = t.remove(o.type(), 0, o.local(), o.lport(), 0, o.remote(), o.rport(), o.vlan());
                assertEquals(model.remove(o.key()) != null ? QuadHashTable.Change.OK : QuadHashTable.Change.NOT_FOUND,
                        c);
            }
            assertEquals(model.size(), t.size());
        }
        for (Op o : ops) {
            Integer want = model.get(o.key());
            OptionalInt got = lookup(t, o);
            assertEquals(want == null ? OptionalInt.empty() : OptionalInt.of(want), got);
        }
        // The driver's teardown: every entry it still holds removed; the table must be left empty.
        for (List<Object> key : List.copyOf(model.keySet())) {
            Op o = ops.stream().filter(x -> x.key().equals(key)).findFirst().orElseThrow();
            assertEquals(QuadHashTable.Change.OK,
                    t.remove(o.type(), 0, o.local(), o.lport(), 0, o.remote(), o.rport(), o.vlan()));
        }
        LeakCheck.assertNone("quad hash entries", t.size(), "removing every entry added");
        LeakCheck.assertNone("established entries", t.establishedCount(), "removing every entry added");
        LeakCheck.assertNone("listen entries", t.listenCount(), "removing every entry added");
        for (Op o : ops) {
            OptionalInt got = lookup(t, o);
            assertEquals(OptionalInt.empty(), got, o.toString());
        }
    }
    @Property(tries = 300)
    void lookupsBetweenChangesSeeEveryChange(@ForAll("ops") List<Op> ops) {
        // a lookup right after each add or delete, of that key and of the one before it: the table's memory of the
        // entry found last must never answer for an entry removed, moved or replaced since
        QuadHashTable t = new QuadHashTable(64);
        Map<List<Object>, Integer> model = new HashMap<>();
        Op previous = null;
        for (Op o : ops) {
            if (o.add()) {
                if (t.put(o.type(), 0, o.local(), o.lport(), 0, o.remote(), o.rport(), o.vlan(), o.qp(), false)
                        == QuadHashTable.Change.OK) {
                    model.put(o.key(), o.qp());
                }
            } else if (t.remove(o.type(), 0, o.local(), o.lport(), 0, o.remote(), o.rport(), o.vlan())
                    == QuadHashTable.Change.OK) {
                model.remove(o.key());
            }
            for (Op q : previous == null ? List.of(o) : List.of(o, previous, o)) {
                Integer want = model.get(q.key());
                OptionalInt got = lookup(t, q);
                assertEquals(want == null ? OptionalInt.empty() : OptionalInt.of(want), got, q.toString());
            }
            previous = o;
        }
    }

    /** The QP the table steers {@code o}'s key to, if it holds an entry for it. */
    private static OptionalInt lookup(QuadHashTable t, Op o) {
        boolean found = o.type() == QuadHashTable.TYPE_SYN ? t.findListen(0, o.local(), o.lport(), o.vlan())
                : t.findEstablished(0, o.local(), o.lport(), 0, o.remote(), o.rport(), o.vlan());
        return found ? OptionalInt.of(t.foundQpn()) : OptionalInt.empty();
    }
}
