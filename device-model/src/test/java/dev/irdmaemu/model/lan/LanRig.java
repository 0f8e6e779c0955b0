package dev.irdmaemu.model.lan;

import dev.irdmaemu.fw.bus.HostMemory;
import dev.irdmaemu.fw.bus.HostRam;
import dev.irdmaemu.fw.frame.ArpPacket;
import dev.irdmaemu.fw.frame.EthernetFrame;
import dev.irdmaemu.fw.frame.IcmpMessage;
import dev.irdmaemu.fw.frame.InternetChecksum;
import dev.irdmaemu.fw.frame.IpAddress;
import dev.irdmaemu.fw.frame.Ipv4Header;
import dev.irdmaemu.fw.frame.TcpHeader;
import dev.irdmaemu.fw.frame.TcpPacketBuilder;
import dev.irdmaemu.fw.sim.SimScheduler;
import dev.irdmaemu.model.trace.Trace;
import java.util.ArrayList;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;

/** One PF's LAN queues on in-process host RAM, with the frames they send and the vectors they raise recorded. */
final class LanRig {
    static final long RAM_BASE = 0x1_0000_0000L;
    static final long MAC_A = 0x02_00_00_00_00_01L;
    static final long MAC_B = 0x02_00_00_00_00_02L;
    static final int IP_A = IpAddress.ipv4(10, 0, 0, 1);
    static final int IP_B = IpAddress.ipv4(10, 0, 0, 2);

    final HostMemory memory = new HostMemory();
    final HostRam ram;
    final LanQueues lan;
    final IceLanDriver driver;
    final List<byte[]> wire = new ArrayList<>();
    final int[] vectors = new int[64];
    int mddHooks;

    LanRig() {
        this(4L << 20);
    }

    LanRig(long ramBytes) {
        ram = new HostRam(memory, RAM_BASE, ramBytes);
        lan = new LanQueues(0, memory, new Trace(new SimScheduler(1)));
        driver = new IceLanDriver(ram, lan);
        lan.txContexts(driver.txContexts());
        lan.interrupts(v -> vectors[v]++);
        lan.msixVectors(vectors.length);
        lan.onMdd(() -> mddHooks++);
        lan.wire((s, off, len) -> wire.add(bytes(s, off, len)));
    }

    static byte[] bytes(BytesStore<?, ?> s, long off, int len) {
        byte[] b = new byte[len];
        for (int i = 0; i < len; i++) {
            b[i] = s.readByte(off + i);
        }
        return b;
    }

    static BytesStore<?, ?> store(byte[] b) {
        BytesStore<?, ?> s = BytesStore.nativeStoreWithFixedCapacity(Math.max(1, b.length));
        for (int i = 0; i < b.length; i++) {
            s.writeByte(i, b[i]);
        }
        return s;
    }

    void deliver(byte[] frame) {
        lan.frame(store(frame), 0, frame.length);
    }

    static byte[] arpRequest() {
        BytesStore<?, ?> s = BytesStore.nativeStoreWithFixedCapacity(64);
        int n = EthernetFrame.write(s, 0, 0xFFFF_FFFF_FFFFL, MAC_A, EthernetFrame.ETHERTYPE_ARP);
        n += ArpPacket.write(s, n, ArpPacket.REQUEST, MAC_A, IP_A, 0, IP_B);
        return bytes(s, 0, n);
    }

    static byte[] icmpEcho(int payload) {
        int len = 14 + 20 + 8 + payload;
        BytesStore<?, ?> s = BytesStore.nativeStoreWithFixedCapacity(len);
        s.zeroOut(0, len);
        int n = EthernetFrame.write(s, 0, MAC_B, MAC_A, EthernetFrame.ETHERTYPE_IPV4);
        n += Ipv4Header.write(s, n, 0, 20 + 8 + payload, 7, true, 64, IcmpMessage.PROTOCOL_ICMP, IP_A, IP_B);
        IcmpMessage.writeEchoHeader(s, n, IcmpMessage.ECHO_REQUEST, 1, 1);
        for (int i = 0; i < payload; i++) {
            s.writeByte(n + 8 + i, (byte) i);
        }
        IcmpMessage.writeChecksum(s, n, 8 + payload, 0);
        return bytes(s, 0, len);
    }

    static TcpPacketBuilder tcpBuilder(boolean ipv6, int flags, long seq) {
        TcpPacketBuilder b = new TcpPacketBuilder().ethernet(MAC_B, MAC_A);
        if (ipv6) {
            b.ipv6(0xfe80_0000_0000_0000L, 1, 0xfe80_0000_0000_0000L, 2);
        } else {
            b.ipv4(IP_A, IP_B).identification(0x1000);
        }
        b.tcp().ports(40000, 5201).sequenceNumber(seq).acknowledgmentNumber(99).flags(flags).window(512);
        return b;
    }

    static byte[] tcp(boolean ipv6, int flags, long seq, int payload) {
        TcpPacketBuilder b = tcpBuilder(ipv6, flags, seq);
        BytesStore<?, ?> p = BytesStore.nativeStoreWithFixedCapacity(Math.max(1, payload));
        for (int i = 0; i < payload; i++) {
            p.writeByte(i, (byte) (i * 7 + 3));
        }
        BytesStore<?, ?> out = BytesStore.nativeStoreWithFixedCapacity(b.headersLength() + payload);
        int n = b.build(out, 0, p, 0, payload);
        return bytes(out, 0, n);
    }

    static int tcpFlags() {
        return TcpHeader.ACK | TcpHeader.PSH;
    }

    static long sum(byte[] b) {
        return InternetChecksum.sum(store(b), 0, b.length);
    }
}
