#!/usr/bin/env bash
# One-off capture recipe for siw-rping-lo-partial-csum.pcap, the test capture of PartialChecksumCaptureTest: a
# real capture taken with tcpdump on the sending host, where checksum offload leaves partial TCP checksums in the
# file. It is not part of the test run; it was run once and its output committed.
#
#   capture-siw-rping-lo.sh [OUT.pcap]     (default: siw-rping-lo-partial-csum.pcap next to this script)
#
# What it does:
#   1. downloads Debian 12's tcpdump and the libraries it needs that the guest kit's initramfs lacks
#      (apt-get download with the machine's own apt sources, into a temporary folder; nothing is installed);
#   2. writes an extra newc archive holding tcpdump, those libraries and a scenario, /scenarios/capture-lo.sh,
#      and appends it to the kit's initramfs (the kernel unpacks concatenated archives one after the other);
#   3. boots the kit's kernel under the kit's QEMU (TCG, no NIC) with irdma_emu.scenario=capture-lo. The
#      scenario gives siw a device on a dummy netdev with 198.51.100.1 (as the smoke scenario does), starts
#      `tcpdump -i lo -s 0` on rping's port, runs a verified loopback rping (-C 3 -V: Send, RDMA Read, RDMA
#      Write), stops tcpdump and prints the file in base64 between two marker lines on the console;
#   4. cuts the file out of the console log and checks with tshark that its TCP checksums do not verify.
#
# Why lo: both rping ends are on the local address, so the kernel's TCP segments go through the loopback
# device, which offloads the checksum (the packet stays CHECKSUM_PARTIAL); AF_PACKET captures it before any
# checksum is filled in, as tcpdump on a sending host with a checksum-offloading NIC does.
#
# Needs: the guest kit (.cache/kit/current, or IRDMA_EMU_KIT), apt-get, dpkg-deb, busybox (for cpio), gzip,
# base64, tshark.
set -euo pipefail

HERE="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)"
ROOT="$(cd "$HERE/../../../../../../../.." && pwd)"
KIT="$(readlink -f "${IRDMA_EMU_KIT:-$ROOT/.cache/kit/current}")"
OUT="${1:-$HERE/siw-rping-lo-partial-csum.pcap}"
PINGS=3
[[ -f $KIT/kit.properties ]] || { echo "capture: no guest kit at $KIT" >&2; exit 1; }
prop() { sed -n "s/^$1=//p" "$KIT/kit.properties"; }

TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
say() { echo "capture: $*" >&2; }

# ---- 1. tcpdump and the libraries it links (Debian 12) -------------------------------------------------------
say "downloading tcpdump and its libraries"
mkdir -p "$TMP/debs" "$TMP/user" "$TMP/kitroot" "$TMP/overlay/sbin" "$TMP/overlay/usr/lib/x86_64-linux-gnu" \
    "$TMP/overlay/scenarios"
(cd "$TMP/debs" && apt-get -q download tcpdump libpcap0.8 libssl3 libdbus-1-3 libsystemd0 libcap2 libgcrypt20 \
    libgpg-error0 liblz4-1 liblzma5 libzstd1 >&2)
for f in "$TMP"/debs/*.deb; do dpkg-deb -x "$f" "$TMP/user"; done
# what the kit's initramfs already holds
(cd "$TMP/kitroot" && gzip -dc "$KIT/$(prop initramfs)" | busybox cpio -i -d 2>/dev/null)
KLIB="$TMP/kitroot/usr/lib/x86_64-linux-gnu"
cp "$TMP/user/usr/bin/tcpdump" "$TMP/overlay/sbin/tcpdump"
LIBPATH="$KLIB:$TMP/user/lib/x86_64-linux-gnu:$TMP/user/usr/lib/x86_64-linux-gnu"
"$TMP/kitroot/lib64/ld-linux-x86-64.so.2" --library-path "$LIBPATH" --list "$TMP/user/usr/bin/tcpdump" |
    awk '$2 == "=>" && $3 ~ /^\// {print $3}' | while read -r lib; do
        base="$(basename "$lib")"
        [[ -e $KLIB/$base ]] || cp -L "$lib" "$TMP/overlay/usr/lib/x86_64-linux-gnu/$base"
    done
say "adding: tcpdump $(ls "$TMP/overlay/usr/lib/x86_64-linux-gnu" | tr '\n' ' ')"

# ---- 2. the scenario ----------------------------------------------------------------------------------------
cat >"$TMP/overlay/scenarios/capture-lo.sh" <<SCENARIO
# capture-lo: tcpdump on lo while siw (on a dummy netdev) runs a loopback rping
ADDR=198.51.100.1
step netdev
ip link show dummy0 >/dev/null 2>&1 || run ip link add dummy0 type dummy
run ip link set dummy0 address 02:00:00:00:00:01
run ip addr add "\$ADDR/24" dev dummy0
run ip link set dummy0 up
step siw-link
run rdma link add siw0 type siw netdev dummy0
step tcpdump
tcpdump -i lo -s 0 -U -Z root -w /tmp/capture.pcap 'tcp port 7174' >/tmp/tcpdump.log 2>&1 &
dump=\$!
tries=0
until grep -q 'listening on' /tmp/tcpdump.log; do
    tries=\$((tries + 1))
    [ "\$tries" -lt 100 ] || { cat /tmp/tcpdump.log; fail "tcpdump did not start"; }
    sleep 0.1
done
step rping
timeout 60 rping -s -a "\$ADDR" -C $PINGS -V >/tmp/rping-server.log 2>&1 &
server=\$!
tries=0
until timeout 20 rping -c -a "\$ADDR" -C $PINGS -V -v >/tmp/rping-client.log 2>&1; do
    tries=\$((tries + 1))
    [ "\$tries" -lt 10 ] || { cat /tmp/rping-client.log; fail "rping client"; }
    sleep 0.2
done
cat /tmp/rping-client.log
wait "\$server" || { cat /tmp/rping-server.log; fail "rping server"; }
sleep 1
kill -INT "\$dump"
wait "\$dump"
cat /tmp/tcpdump.log
step output
# quieten the kernel so no console message lands inside the base64 lines
echo 1 >/proc/sys/kernel/printk
echo "CAPTURE-BEGIN"
base64 /tmp/capture.pcap
echo "CAPTURE-END"
field capture_bytes "\$(wc -c </tmp/capture.pcap | tr -d ' ')"
SCENARIO

(cd "$TMP/overlay" && find . -mindepth 1 | LC_ALL=C sort | busybox cpio -o -H newc 2>/dev/null) | gzip -6 >"$TMP/overlay.cpio.gz"
cat "$KIT/$(prop initramfs)" "$TMP/overlay.cpio.gz" >"$TMP/initramfs.cpio.gz"

# ---- 3. boot ------------------------------------------------------------------------------------------------
say "booting the kit (TCG)"
timeout 600 "$KIT/$(prop qemu.loader)" --library-path "$KIT/$(prop qemu.library.path)" "$KIT/$(prop qemu.binary)" \
    -accel tcg -smp 1 -m 512M -kernel "$KIT/$(prop kernel.image)" -initrd "$TMP/initramfs.cpio.gz" \
    -append "console=ttyS0 loglevel=4 panic=-1 irdma_emu.scenario=capture-lo irdma_emu.siw=stock" \
    -nographic -nodefaults -serial stdio -monitor none -no-reboot </dev/null | tr -d '\r' >"$TMP/console.log"
grep -q '^IRDMA-EMU-RESULT .*status=ok' "$TMP/console.log" || { cat "$TMP/console.log" >&2; say "the guest failed"; exit 1; }

# ---- 4. the file --------------------------------------------------------------------------------------------
sed -n '/^CAPTURE-BEGIN$/,/^CAPTURE-END$/p' "$TMP/console.log" | sed '1d;$d' | base64 -d >"$OUT"
say "$OUT: $(stat -c %s "$OUT") bytes, $(tshark -r "$OUT" 2>/dev/null | wc -l) frames"
bad="$(tshark -o tcp.check_checksum:TRUE -r "$OUT" -Y 'tcp.checksum.status == 0' 2>/dev/null | wc -l)"
say "TCP checksums that do not verify (tshark): $bad"
((bad > 0)) || { say "expected partial checksums in the capture"; exit 1; }
