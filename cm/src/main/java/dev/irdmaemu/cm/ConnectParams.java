package dev.irdmaemu.cm;

/**
 * What {@code iw_cm_conn_param} carries into a connect: private data (up to 512 bytes), the IRD/ORD the ULP asks
 * for, the MPA revision the node starts with (2 by default; irdma cm.h IRDMA_CM_DEFAULT_MPA_VER), the TOS, and the
 * consumer's QP the connection goes to ({@code qpn}; negative: the hardware port supplies one).
 */
public record ConnectParams(byte[] privateData, int ird, int ord, int mpaRevision, int tos, int qpn) {
    /** irdma cm.h IETF_MAX_PRIV_DATA_LEN. */
    public static final int MAX_PRIVATE_DATA = 512;

    public ConnectParams {
        privateData = privateData == null ? new byte[0] : privateData.clone();
        if (privateData.length > MAX_PRIVATE_DATA) {
            throw new IllegalArgumentException("private data of " + privateData.length + " bytes exceeds 512");
        }
        if (mpaRevision != 1 && mpaRevision != 2) {
            throw new IllegalArgumentException("MPA revision " + mpaRevision);
        }
        if (ird < 0 || ord < 0 || tos < 0 || tos > 0xff) {
            throw new IllegalArgumentException("ird/ord/tos out of range");
        }
    }

    public ConnectParams(byte[] privateData, int ird, int ord, int mpaRevision, int tos) {
        this(privateData, ird, ord, mpaRevision, tos, -1);
    }

    /** The same parameters for the consumer's QP {@code qpNumber} (iw_cm_conn_param.qpn). */
    public ConnectParams withQp(int qpNumber) {
        return new ConnectParams(privateData, ird, ord, mpaRevision, tos, qpNumber);
    }

    public static ConnectParams of(byte[] privateData, int ird, int ord) {
        return new ConnectParams(privateData, ird, ord, 2, 0);
    }

    public ConnectParams withRevision(int revision) {
        return new ConnectParams(privateData, ird, ord, revision, tos, qpn);
    }

    @Override
    public byte[] privateData() {
        return privateData.clone();
    }
}
