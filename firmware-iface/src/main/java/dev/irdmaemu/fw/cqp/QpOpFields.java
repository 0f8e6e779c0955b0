package dev.irdmaemu.fw.cqp;

/**
 * The fields of a Create / Modify / Destroy QP WQE (ctrl.c irdma_sc_qp_create / _modify / _destroy, from struct
 * irdma_create_qp_info / irdma_modify_qp_info and the QP). Mutable and reusable: one instance per caller, no
 * allocation per WQE. Each writer uses only the fields its ctrl.c function writes.
 */
public final class QpOpFields {
    public int qpId;
    public int qpType;
    public long hostContextAddress;
    public long shadowAreaAddress;
    public boolean ordValid;
    public boolean tcpContextValid;
    public boolean cachedVarValid;
    public boolean virtualMap;
    public boolean forceLoopback;
    public boolean cqNumValid;
    public boolean macValid;
    public boolean arpIndexValid;
    public int nextIwarpState;
    public int newMss;
    public boolean mssChange;
    public boolean removeHashEntry;
    /** The encoded IRDMAQP_TERM_* value (irdma_sc_qp_modify derives it from dont_send_fin / dont_send_term). */
    public int termActions;
    public int termLength;
    public boolean resetConnection;
    public boolean ignoreMwBound;

    public QpOpFields clear() {
        qpId = qpType = nextIwarpState = newMss = termActions = termLength = 0;
        hostContextAddress = shadowAreaAddress = 0;
        ordValid = tcpContextValid = cachedVarValid = virtualMap = forceLoopback = cqNumValid = macValid = false;
        arpIndexValid = mssChange = removeHashEntry = resetConnection = ignoreMwBound = false;
        return this;
    }

    /** Reads every QP field of {@code w} (fields the op does not carry read as 0 / false). */
    public QpOpFields readFrom(CqpWqe w) {
        qpId = w.qpId();
        qpType = w.qpType();
        hostContextAddress = w.qpHostContextAddress();
        shadowAreaAddress = w.qpShadowAreaAddress();
        ordValid = w.qpOrdValid();
        tcpContextValid = w.qpTcpContextValid();
        cachedVarValid = w.qpCachedVarValid();
        virtualMap = w.qpVirtualMap();
        forceLoopback = w.qpForceLoopback();
        cqNumValid = w.qpCqNumValid();
        macValid = w.qpMacValid();
        arpIndexValid = w.qpArpIndexValid();
        nextIwarpState = w.qpNextIwarpState();
        newMss = w.qpNewMss();
        mssChange = w.qpMssChange();
        removeHashEntry = w.qpRemoveHashEntry();
        termActions = w.qpTermActions();
        termLength = w.qpTermLength();
        resetConnection = w.qpResetConnection();
        ignoreMwBound = w.qpIgnoreMwBound();
        return this;
    }
}
