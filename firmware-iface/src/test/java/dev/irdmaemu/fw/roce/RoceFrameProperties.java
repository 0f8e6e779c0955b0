package dev.irdmaemu.fw.roce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Build then parse is the identity on every field the opcode carries, over IPv4 and IPv6, tagged or not; and no
 * input (random bytes, a valid frame with random bytes changed, cut short, or wrapped with a lying length) makes
 * the parser throw: it answers a typed {@link RoceCheck}, and a frame that still validates fully has an ICRC that
 * matches.
 */
class RoceFrameProperties {
    private static final BthOpcode[] OPCODES = BthOpcode.values();
    private final RoceFrame frame = new RoceFrame();
    private final RoceFrameBuilder builder = new RoceFrameBuilder();

    @Property(tries = 400)
    void buildThenParseIsTheIdentity(@ForAll @IntRange(min = 0, max = 40) int opcodeIndex,
                                     @ForAll boolean v6, @ForAll boolean tagged, @ForAll int destQp, @ForAll int psn,
                                     @ForAll boolean se, @ForAll boolean ackReq, @ForAll long va, @ForAll int key,
                                     @ForAll int dmaLength, @ForAll int aethWord, @ForAll int immediate,
                                     @ForAll long atomicData, @ForAll @IntRange(min = 0, max = 700) int payload,
                                     @ForAll int sport, @ForAll boolean udpChecksum) {
        BthOpcode op = OPCODES[opcodeIndex % OPCODES.length];
        int payloadLength = op == BthOpcode.RC_ATOMIC_WRITE ? 8 : op.carriesPayload() ? payload : 0;
        builder.reset().ethernet(RoceSamples.MAC_A, RoceSamples.MAC_B).udp(sport, udpChecksum)
                .bth(op, destQp, psn).flags(se, false, ackReq).reth(va, key, dmaLength)
                .aeth(aethWord >>> 24, aethWord).deth(key, destQp ^ 0x5a5a).immediate(immediate).invalidate(~key)
                .atomicAck(~atomicData);
        if (op.carries(ExtensionHeader.ATOMIC_ETH)) {
            builder.atomic(va, key, atomicData, ~atomicData);
        }
        if (v6) {
            builder.ipv6(RoceSamples.V6_HI, 7, RoceSamples.V6_HI, 8).flowLabel(psn);
        } else {
            builder.ipv4(RoceSamples.IP_A, RoceSamples.IP_B);
        }
        if (tagged) {
            builder.vlan(5, false, 99);
        }
        if (op == BthOpcode.CNP) {
            builder.cnp(destQp);
        }
        BytesStore<?, ?> p = BytesStore.nativeStoreWithFixedCapacity(1024);
        for (int i = 0; i < payloadLength; i++) {
            p.writeByte(i, (byte) (i ^ psn));
        }
        BytesStore<?, ?> out = BytesStore.nativeStoreWithFixedCapacity(2048);
        int n = builder.build(out, 16, p, 0, payloadLength);
        assertEquals(builder.frameLength(payloadLength), n);

        assertEquals(RoceCheck.ACCEPTED, frame.wrap(out, 16, n).validateStructure());
        assertTrue(frame.icrcVerifies());
        assertTrue(frame.udpChecksumVerifies());
        assertTrue(frame.ipv4ChecksumVerifies());
        assertEquals(op, frame.opcode().orElseThrow());
        assertEquals(v6, frame.isIpv6());
        assertEquals(sport & 0xffff, frame.udp().sourcePort());
        assertEquals(udpChecksum, !frame.udp().checksumAbsent());
        Bth bth = frame.bth();
        assertEquals(destQp & Bth.QPN_MASK, bth.destinationQp());
        assertEquals(op == BthOpcode.CNP ? 0 : psn & Bth.PSN_MASK, bth.psn());
        assertEquals(op != BthOpcode.CNP && se, bth.solicitedEvent());
        assertEquals(op != BthOpcode.CNP && ackReq, bth.ackRequest());
        assertEquals(-payloadLength & 3, bth.padCount());
        assertEquals(payloadLength, frame.payloadLength());
        ExtensionHeaders h = frame.headers();
        if (op.carries(ExtensionHeader.RETH)) {
            assertEquals(va, h.reth().virtualAddress());
            assertEquals(key, h.reth().remoteKey());
            assertEquals(dmaLength & 0xffff_ffffL, h.reth().dmaLength());
        }
        if (op.carries(ExtensionHeader.AETH)) {
            assertEquals(aethWord >>> 24, h.aeth().syndrome());
            assertEquals(aethWord & Aeth.MSN_MASK, h.aeth().msn());
        }
        if (op.carries(ExtensionHeader.DETH)) {
            assertEquals(key, h.deth().queueKey());
            assertEquals((destQp ^ 0x5a5a) & Bth.QPN_MASK, h.deth().sourceQp());
        }
        if (op.carries(ExtensionHeader.IMM_DT)) {
            assertEquals(immediate, h.immDt().immediate());
        }
        if (op.carries(ExtensionHeader.IETH)) {
            assertEquals(~key, h.ieth().remoteKey());
        }
        if (op.carries(ExtensionHeader.ATOMIC_ETH)) {
            assertEquals(atomicData, h.atomicEth().swapOrAdd());
            assertEquals(~atomicData, h.atomicEth().compare());
            assertEquals(va, h.atomicEth().virtualAddress());
        }
        if (op.carries(ExtensionHeader.ATOMIC_ACK_ETH)) {
            assertEquals(~atomicData, h.atomicAckEth().originalData());
        }
        for (int i = 0; i < payloadLength; i++) {
            assertEquals((byte) (i ^ psn), out.readByte(16 + frame.payloadOffset() + i));
        }
    }

    @Property(tries = 1000)
    void mutatedFramesNeverThrow(@ForAll @IntRange(min = 0, max = 30) int sample,
                                 @ForAll @Size(min = 1, max = 6) int[] positions, @ForAll byte value,
                                 @ForAll @IntRange(min = -8, max = 8) int lengthDelta) {
        java.util.List<RoceSamples.Sample> all = RoceSamples.all();
        byte[] b = all.get(sample % all.size()).bytes().clone();
        for (int p : positions) {
            b[Math.floorMod(p, b.length)] ^= value == 0 ? 1 : value;
        }
        BytesStore<?, byte[]> s = BytesStore.wrap(b);
        long length = Math.max(0, b.length + lengthDelta);
        exercise(s, 0, length);
        exercise(s, Math.floorMod(positions[0], b.length), length);
    }

    @Property(tries = 500)
    void randomBytesNeverThrow(@ForAll @Size(max = 200) byte[] bytes,
                               @ForAll @IntRange(min = -4, max = 300) int length) {
        BytesStore<?, byte[]> s = BytesStore.wrap(bytes);
        exercise(s, 0, length);
        // a RoCEv2-looking prefix makes the walk reach the transport
        if (bytes.length > 60) {
            bytes[12] = 0x08;
            bytes[13] = 0x00;
            bytes[14] = 0x45;
            bytes[23] = 17;
            bytes[36] = 0x12;
            bytes[37] = (byte) 0xb7;
            exercise(s, 0, length);
        }
    }

    private void exercise(BytesStore<?, ?> s, long offset, long length) {
        RoceCheck c = frame.wrap(s, offset, length).validateStructure();
        assertNotNull(c);
        frame.icrcVerifies();
        frame.udpChecksumVerifies();
        frame.ipv4ChecksumVerifies();
        assertNotNull(frame.mtuCheck(PathMtu.MTU_256));
        frame.bth().psn();
        frame.bth().opcode();
        ExtensionHeaders h = frame.headers();
        h.reth().dmaLength();
        h.aeth().kind();
        h.aeth().nakCode();
        h.deth().sourceQp();
        h.immDt().immediate();
        h.ieth().remoteKey();
        h.atomicEth().compare();
        h.atomicAckEth().originalData();
        h.cnp().reservedBytesZero();
        RoceCheck full = frame.wrap(s, offset, length).validate(PathMtu.MTU_1024);
        assertNotNull(full);
        if (full.accepted()) {
            assertTrue(frame.icrcVerifies());
        }
    }
}
