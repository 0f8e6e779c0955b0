package dev.irdmaemu.fw.cqp;

/**
 * The fields of a Create / Modify / Destroy CQ WQE (ctrl.c irdma_sc_cq_create / _modify / _destroy and
 * irdma_sc_ccq_destroy, from struct irdma_sc_cq and irdma_modify_cq_info). Mutable and reusable.
 */
public final class CqOpFields {
    public long cqSize;
    public int cqId;
    public int ceqId;
    public boolean ceqIdValid;
    public int shadowReadThreshold;
    /** The ring's address; Create CQ writes 0 when {@link #virtualMap}. */
    public long cqAddress;
    public long shadowAreaAddress;
    /** Create / Destroy CQ write 0 unless {@link #virtualMap}. */
    public int firstPmPblIndex;
    public int tphValue;
    public int vsiIndex;
    public int pblChunkSize;
    public boolean checkOverflow;
    public boolean virtualMap;
    public boolean ceqeMask;
    public boolean tphEnable;
    public boolean avoidMemConflict;
    public boolean resize;

    public CqOpFields clear() {
        cqSize = cqAddress = shadowAreaAddress = 0;
        cqId = ceqId = shadowReadThreshold = firstPmPblIndex = tphValue = vsiIndex = pblChunkSize = 0;
        ceqIdValid = checkOverflow = virtualMap = ceqeMask = tphEnable = avoidMemConflict = resize = false;
        return this;
    }

    public CqOpFields readFrom(CqpWqe w) {
        cqSize = w.cqSize();
        cqId = w.cqId();
        ceqId = w.cqCeqId();
        ceqIdValid = w.cqCeqIdValid();
        shadowReadThreshold = w.cqShadowReadThreshold();
        cqAddress = w.cqAddress();
        shadowAreaAddress = w.cqShadowAreaAddress();
        firstPmPblIndex = w.cqFirstPmPblIndex();
        tphValue = w.cqTphValue();
        vsiIndex = w.cqVsiIndex();
        pblChunkSize = w.pblChunkSize();
        checkOverflow = w.cqCheckOverflow();
        virtualMap = w.cqVirtualMap();
        ceqeMask = w.cqCeqeMask();
        tphEnable = w.tphEnable();
        avoidMemConflict = w.cqAvoidMemConflict();
        resize = w.cqResize();
        return this;
    }
}
