package dev.irdmaemu.fw.cqp;

/**
 * The fields of a Create / Destroy CEQ or AEQ WQE (ctrl.c irdma_sc_ceq_create / _destroy, irdma_sc_aeq_create /
 * _destroy, from struct irdma_sc_ceq / irdma_sc_aeq). The AEQ ops carry no id, TPH, VSI or ITR fields.
 */
public final class EqOpFields {
    /** CEQ id (CEQ ops only). */
    public int ceqId;
    public int elementCount;
    /** The ring's address; the create ops write 0 when {@link #virtualMap}. */
    public long address;
    /** The create ops write 0 unless {@link #virtualMap}. */
    public int firstPmPblIndex;
    public int tphValue;
    public int vsiIndex;
    public int pasid;
    public int pblChunkSize;
    public boolean virtualMap;
    public boolean itrNoExpire;
    public boolean tphEnable;
    public boolean pasidValid;

    public EqOpFields clear() {
        ceqId = elementCount = firstPmPblIndex = tphValue = vsiIndex = pasid = pblChunkSize = 0;
        address = 0;
        virtualMap = itrNoExpire = tphEnable = pasidValid = false;
        return this;
    }

    public EqOpFields readFrom(CqpWqe w) {
        ceqId = w.eqId();
        elementCount = w.eqElementCount();
        address = w.eqAddress();
        firstPmPblIndex = w.eqFirstPmPblIndex();
        tphValue = w.eqTphValue();
        vsiIndex = w.eqVsiIndex();
        pasid = w.eqPasid();
        pblChunkSize = w.pblChunkSize();
        virtualMap = w.eqVirtualMap();
        itrNoExpire = w.eqItrNoExpire();
        tphEnable = w.tphEnable();
        pasidValid = w.eqPasidValid();
        return this;
    }
}
