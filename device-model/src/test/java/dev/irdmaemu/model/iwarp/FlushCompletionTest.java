package dev.irdmaemu.model.iwarp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.irdmaemu.driver.CqpException;
import dev.irdmaemu.driver.FlushCompletion;
import dev.irdmaemu.driver.verbs.Access;
import dev.irdmaemu.driver.verbs.CompletionQueue;
import dev.irdmaemu.driver.verbs.IbQpState;
import dev.irdmaemu.driver.verbs.QueuePair;
import dev.irdmaemu.fw.cqp.CqpFault;
import dev.irdmaemu.fw.cqp.QpFlushFields;
import dev.irdmaemu.fw.queue.Cqe;
import dev.irdmaemu.model.iwarp.DriverPair.Buffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The driver's Flush WQEs answered as a {@link FlushCompletion} (hw.c irdma_hw_flush_wqes reads the status): the
 * error completion a QP with nothing posted gets is an answer, not an exception, while the throwing form still
 * throws it; a QP with an RQ WQE posted answers that the RQ was flushed.
 */
class FlushCompletionTest {
    private final DriverPair pair = new DriverPair(32L << 20);

    @AfterEach
    void close() {
        pair.close();
    }

    private static QpFlushFields fields(QueuePair qp) {
        QpFlushFields f = new QpFlushFields();
        f.qpId = qp.id();
        f.flushSq = true;
        f.flushRq = true;
        f.userFlushCode = true;
        f.sqMajor = Cqe.MAJOR_FLUSH;
        f.sqMinor = Cqe.MINOR_FLUSH_GENERAL;
        f.rqMajor = Cqe.MAJOR_FLUSH;
        f.rqMinor = Cqe.MINOR_FLUSH_GENERAL;
        return f;
    }

    @Test
    void nothingPostedIsAnErrorCompletionAnsweredNotThrown() {
        CompletionQueue cq = pair.a.verbs.createCq(64);
        QueuePair qp = pair.a.verbs.createQp(new DriverPair.Options().init(pair.a, cq));
        qp.modify(IbQpState.ERR);
        assertEquals(FlushCompletion.ERROR, pair.a.driver().cqp().flushWqesCompletion(fields(qp)));
        CqpException e = assertThrows(CqpException.class, () -> pair.a.driver().cqp().flushWqes(fields(qp)));
        assertTrue(e.errorCompletion());
        assertTrue(CqpFault.FLUSH_NO_WQE_PENDING.is(e.major(), e.minor()));
    }

    @Test
    void aPostedReceiveIsFlushedAndNamed() {
        CompletionQueue cq = pair.a.verbs.createCq(64);
        QueuePair qp = pair.a.verbs.createQp(new DriverPair.Options().init(pair.a, cq));
        Buffer b = pair.a.buffer(64, Access.LOCAL_WRITE);
        pair.a.postRecv(qp, b.gpa(), 64, b.stag());
        qp.modify(IbQpState.ERR);
        assertEquals(FlushCompletion.RQ_WQE_FLUSHED, pair.a.driver().cqp().flushWqesCompletion(fields(qp)));
    }
}
