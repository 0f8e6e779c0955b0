package dev.irdmaemu.fw.cqp;

/**
 * The fields of a Manage Quad-Hash Table Entry WQE (ctrl.c irdma_sc_manage_qhash_table_entry, from struct
 * irdma_qhash_table_info). Addresses are the u32 words of dest_ip[] / src_ip[] in host order (an IPv4 address is
 * word 0). "dest" is the local end, "src" the remote end; the remote end is written only for TCP_ESTABLISHED.
 * {@link #qsHandle} is the vsi->qos[user_pri].qs_handle the driver looks up.
 */
public final class QhashFields {
    public long mac;
    public int qpNumber;
    public int destPort;
    public int srcPort;
    public int qsHandle;
    public boolean vlanValid;
    public int vlanId;
    public boolean ipv4;
    public final int[] destIp = new int[4];
    public final int[] srcIp = new int[4];
    public int manage;
    public int entryType;

    public QhashFields clear() {
        mac = 0;
        qpNumber = destPort = srcPort = qsHandle = vlanId = manage = entryType = 0;
        vlanValid = ipv4 = false;
        for (int i = 0; i < 4; i++) {
            destIp[i] = srcIp[i] = 0;
        }
        return this;
    }

    public QhashFields readFrom(CqpWqe w) {
        mac = w.qhashMac();
        qpNumber = w.qhashQpNumber();
        destPort = w.qhashDestPort();
        srcPort = w.qhashSrcPort();
        qsHandle = w.qhashQsHandle();
        vlanValid = w.qhashVlanValid();
        vlanId = w.qhashVlanId();
        ipv4 = w.qhashIpv4();
        for (int i = 0; i < 4; i++) {
            destIp[i] = w.qhashDestIp(i);
            srcIp[i] = w.qhashSrcIp(i);
        }
        manage = w.qhashManage();
        entryType = w.qhashEntryType();
        return this;
    }
}
