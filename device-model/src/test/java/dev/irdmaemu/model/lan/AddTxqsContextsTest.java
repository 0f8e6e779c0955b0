package dev.irdmaemu.model.lan;

import static dev.irdmaemu.fw.lan.LanRegister.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.irdmaemu.fw.aq.AqDescriptor;
import dev.irdmaemu.fw.aq.AqError;
import dev.irdmaemu.fw.aq.AqOpcode;
import dev.irdmaemu.fw.aq.DisableTxqItem;
import dev.irdmaemu.fw.aq.SchedElement;
import dev.irdmaemu.fw.aq.SchedGroup;
import dev.irdmaemu.fw.aq.TxQueueContext;
import dev.irdmaemu.fw.aq.TxQueueGroup;
import dev.irdmaemu.model.ice.AqCommandHandler;
import dev.irdmaemu.model.ice.IceSwitchAndScheduler;
import dev.irdmaemu.model.ice.TxScheduler;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

/**
 * The Tx engine reads the contexts add_txqs stored: a queue ice added (ice_vsi_cfg_txq after the scheduler branch
 * of ice_sched_add_elems) sends on its doorbell; after dis_txqs the doorbell is refused; added again (ice's
 * ifdown/ifup, same ring memory) it starts over at descriptor 0.
 */
class AddTxqsContextsTest {
    private static final int QUEUE = 5;

    private final IceSwitchAndScheduler fw = new IceSwitchAndScheduler(0, 0);
    private final Map<Integer, AqCommandHandler> handlers = new HashMap<>();
    private final AqDescriptor desc = new AqDescriptor();
    private final BytesStore<?, ?> descBytes = BytesStore.wrap(new byte[AqDescriptor.SIZE]);

    private int send(int opcode, Consumer<AqDescriptor> params, Bytes<?> buf) {
        for (int i = 0; i < AqDescriptor.SIZE; i++) {
            descBytes.writeByte(i, (byte) 0);
        }
        desc.wrap(descBytes, 0).opcode(opcode);
        desc.flags(AqDescriptor.BUF | AqDescriptor.RD);
        desc.datalen((int) buf.writeLimit());
        params.accept(desc);
        return handlers.get(opcode).handle(desc, buf);
    }

    private long queueGroup() {
        long parent = fw.scheduler().nodes().stream().filter(n -> n.layer() == TxScheduler.ENTRY_POINT_LAYER - 1)
                .mapToLong(TxScheduler.Node::teid).min().orElseThrow();
        for (int layer = TxScheduler.ENTRY_POINT_LAYER; layer <= TxScheduler.QGROUP_LAYER; layer++) {
            Bytes<?> buf = Bytes.wrapForWrite(new byte[SchedGroup.HEADER + SchedElement.SIZE]);
            SchedGroup g = new SchedGroup().wrap(buf, 0, buf.writeLimit()).header(parent, 1);
            new SchedElement().wrap(buf, g.elementAt(0)).parentTeid(parent).elemType(SchedElement.TYPE_SE_GENERIC);
            assertEquals(AqError.OK, send(AqOpcode.ADD_SCHED_ELEMS, d -> d.paramU16(SchedGroup.PARAM_NUM_ELEM_REQ, 1),
                    buf));
            parent = new SchedElement().wrap(buf, g.elementAt(0)).nodeTeid();
        }
        return parent;
    }

    private void addTxq(long qgroup, long ring, int qlen) {
        Bytes<?> add = Bytes.wrapForWrite(new byte[TxQueueGroup.HEADER + TxQueueGroup.ENTRY_SIZE]);
        TxQueueGroup g = new TxQueueGroup().wrap(add, 0, add.writeLimit()).header(qgroup, 1).txqId(0, QUEUE);
        new TxQueueContext().wrap(add, g.contextAt(0)).ringBase(ring).pfNum(0).queueInFunction(QUEUE)
                .queueLength(qlen);
        add.writeByte(g.infoAt(0) + 1, (byte) SchedElement.VALID_GENERIC);
        assertEquals(AqError.OK, send(AqOpcode.ADD_TXQS, d -> d.paramU8(0, 1), add));
    }

    @Test
    void theTxEngineSendsOnQueuesAddTxqsCreatedAndRestartsThemAtZero() {
        fw.install(handlers::put);
        LanRig rig = new LanRig();
        rig.lan.txContexts(new AddTxqsContexts(fw.txQueues(), rig.lan.tx()));
        IceLanDriver d = rig.driver;
        d.setupTx(QUEUE, 64, 2); // the driver-side ring; the engine reads the context add_txqs stored
        long qgroup = queueGroup();
        addTxq(qgroup, d.txRing, 64);
        for (int i = 0; i < 3; i++) {
            d.queueFrame(LanRig.arpRequest(), 1, 0, 0, 0, 0, 0, 0);
        }
        d.ringTx();
        assertEquals(3, rig.wire.size());
        assertEquals(3, rig.lan.read32(QTX_COMM_HEAD + QUEUE * 4L));

        Bytes<?> dis = Bytes.wrapForWrite(new byte[8]);
        new DisableTxqItem().wrap(dis, 0, 8).write(qgroup, QUEUE);
        assertEquals(AqError.OK, send(AqOpcode.DIS_TXQS, x -> x.paramU8(DisableTxqItem.PARAM_NUM_ENTRIES, 1), dis));
        rig.lan.write32(QTX_COMM_DBELL + QUEUE * 4L, 4);
        assertEquals(1, rig.lan.counters().txBadDoorbell(), "a disabled queue's doorbell is refused");

        // ifup again: same ring, next_to_use back at 0 (ice_clean_tx_ring)
        addTxq(qgroup, d.txRing, 64);
        d.txNtu = 0;
        d.txEop.clear();
        d.queueFrame(LanRig.icmpEcho(10), 1, 0, 0, 0, 0, 0, 0);
        d.ringTx();
        assertEquals(4, rig.wire.size());
        assertArrayEquals(LanRig.icmpEcho(10), rig.wire.get(3));
        assertEquals(1, rig.lan.read32(QTX_COMM_HEAD + QUEUE * 4L));
    }
}
