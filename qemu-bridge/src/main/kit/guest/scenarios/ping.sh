# ping: the guest reaches the hosted node's port (issue 6, test 1). The NIC (nic.sh) is the virtio-net NIC the node
# serves over vhost-user, or the emulated E810 with the node on its wire; the node's LAN function answers for its addresses: ARP and ICMP echo for 192.0.2.1, Neighbor
# Discovery and ICMPv6 echo for 2001:db8::1. Reports the replies and the MACs the guest resolved.
# iproute2's ip by its path: busybox's ash runs its own ip applet first (Debian builds it standalone)
IP=/sbin/ip
NODE4=192.0.2.1
NODE6=2001:db8::1
COUNT=3

. /scenarios/nic.sh
nic_up 192.0.2.2/24 2001:db8::2/64
field eth0_mac "$(cat /sys/class/net/$NIC/address)"

replies() { # PING-OUTPUT: the "N packets received" count
    echo "$1" | sed -n 's/.* \([0-9][0-9]*\) packets received.*/\1/p'
}
rtt_avg() { # PING-OUTPUT: the average round trip in ms (busybox: "round-trip min/avg/max = a/b/c ms")
    echo "$1" | sed -n 's/^.*min\/avg\/max[^=]*= *[0-9.]*\/\([0-9.]*\)\/.*/\1/p'
}

step ping
out="$(ping -c "$COUNT" -i 0.2 -W 5 -w 30 "$NODE4" 2>&1)"
echo "$out"
got="$(replies "$out")"
field ping4_replies "${got:-0}"
field ping4_rtt_avg_ms "$(rtt_avg "$out")"
field ping4_done_ms "$(awk '{printf "%d", $1 * 1000}' /proc/uptime)"
neigh="$($IP neigh show "$NODE4" dev "$NIC" 2>&1)"
echo "$neigh"
field arp_mac "$(echo "$neigh" | sed -n 's/.*lladdr \([0-9a-f:]*\).*/\1/p')"
[ "$got" = "$COUNT" ] || fail "ping $NODE4: ${got:-0} of $COUNT replies"

step ping6
out="$(ping6 -c "$COUNT" -i 0.2 -W 5 -w 30 "$NODE6" 2>&1)"
echo "$out"
got="$(replies "$out")"
field ping6_replies "${got:-0}"
field ping6_rtt_avg_ms "$(rtt_avg "$out")"
neigh="$($IP -6 neigh show "$NODE6" dev "$NIC" 2>&1)"
echo "$neigh"
field nd_mac "$(echo "$neigh" | sed -n 's/.*lladdr \([0-9a-f:]*\).*/\1/p')"
[ "$got" = "$COUNT" ] || fail "ping6 $NODE6: ${got:-0} of $COUNT replies"


# Warm round trips (issue 17): the three echoes above include ARP / ND and the model's first run of the code that
# answers them (the JVM interprets it at first), which dominate their average; these 20 come after
rtt_min() { echo "$1" | sed -n 's/^.*min\/avg\/max[^=]*= *\([0-9.]*\)\/.*/\1/p'; }
WARM=20
step ping-warm
out="$(ping -c "$WARM" -i 0.1 -W 5 -w 30 "$NODE4" 2>&1)"
echo "$out"
field ping4_warm_rtt_avg_ms "$(rtt_avg "$out")"
field ping4_warm_rtt_min_ms "$(rtt_min "$out")"

# The baseline device (issue 17): when the host attached QEMU's user-mode network as a second virtio-net NIC (MAC
# 52:54:00:12:34:56, restrict=on), the same echoes to its gateway 10.0.2.2, which QEMU answers itself: what a
# round trip through a virtio-net device costs this guest under TCG with nothing of ours on the path
BASE=""
for n in /sys/class/net/*; do [ "$(cat "$n/address")" = 52:54:00:12:34:56 ] && BASE="${n##*/}"; done
if [ -n "$BASE" ]; then
    step ping-usernet
    run $IP addr add 10.0.2.15/24 dev "$BASE"
    run $IP link set "$BASE" up
    ping -c 2 -i 0.2 -W 5 10.0.2.2 >/dev/null 2>&1
    out="$(ping -c "$WARM" -i 0.1 -W 5 -w 30 10.0.2.2 2>&1)"
    echo "$out"
    field usernet_ping4_rtt_avg_ms "$(rtt_avg "$out")"
    field usernet_ping4_rtt_min_ms "$(rtt_min "$out")"
fi
