# rdma-paths: the RDMA paths the other scenarios skip (issue 29 item 4), on the emulated E810 against the hosted
# node, one after the other in one boot: each variant runs `rping -c -C 10 -V` against the node's rping server and
# `ucmatose -c 5` (ten Sends of its size each way a connection) against the node's ucmatose server, then checks
# that ice and irdma logged nothing of error level while it ran.
#   v6     over IPv6: 2001:db8::2 to the node's 2001:db8::1 (irdma's IPv6 CM, qhash and ARP entries, offloaded
#          TCP over IPv6)
#   vlan   over an 802.1Q VLAN netdev on ice's, VLAN 100, every egress priority mapped to PCP 5 (egress-qos-map):
#          203.0.113.2 to the node's 203.0.113.1 on that VLAN (irdma's VLAN tag and user priority, ice's VLAN
#          filter)
#   jumbo  untagged IPv4 at MTU 9000: ice's netdev set to 9000 after irdma is up (its MTU event), rping -S 20000
#          and ucmatose -S 8000, so the FPDUs fill jumbo segments
# Fields per variant NAME: NAME_rping_pings, NAME_ucmatose (complete or failed), NAME_errors (ice/irdma lines of
# error level or worse printed while it ran).
# iproute2's ip by its path: busybox's ash runs its own ip applet first (Debian builds it standalone)
IP=/sbin/ip
NODE4=192.0.2.1
NODE6=2001:db8::1
VLAN_ID=100
VLAN_PCP=5
NODE_VLAN4=203.0.113.1
GUEST_VLAN4=203.0.113.2/24
JUMBO_MTU=9000
COUNT=10
UCMATOSE_CONNECTIONS=5

. /scenarios/nic.sh
[ "$NIC_KIND" = e810 ] || fail "rdma-paths runs on the emulated E810 (irdma_emu.nic=e810)"
nic_up 192.0.2.2/24 2001:db8::2/64
rdma_up

# variant NAME ADDRESS RPING-PORT UCMATOSE-PORT SIZE RPING-SIZE: rping and ucmatose against the node's servers at
# ADDRESS (ucmatose's Sends of SIZE bytes, rping's buffer of RPING-SIZE)
variant() {
    name="$1"
    addr="$2"
    rport="$3"
    port="$4"
    size="$5"
    rsize="$6"
    mark=$(kernel_lines)
    step "$name-reach"
    reach "$addr" 30 "no reply from the node at $addr"
    step "$name-rping"
    timeout 120 rping -c -a "$addr" -p "$rport" -C "$COUNT" -S "$rsize" -V -v >/tmp/rping-$name.log 2>&1
    code=$?
    cut -c1-100 /tmp/rping-$name.log # the first 100 bytes of each line: -S 20000 would flood the console
    pings="$(grep -c '^ping data: rdma-ping-' /tmp/rping-$name.log)"
    field "${name}_rping_exit" "$code"
    field "${name}_rping_pings" "$pings"
    [ "$code" = 0 ] && [ "$pings" = "$COUNT" ] || fail "$name: rping client: exit $code, $pings of $COUNT pings"
    step "$name-ucmatose"
    timeout 120 ucmatose -s "$addr" -p "$port" -c "$UCMATOSE_CONNECTIONS" -C 10 -S "$size" >/tmp/ucmatose-$name.log 2>&1
    code=$?
    ucmatose_verdict "$name" "$code" "ucmatose -s $addr -p $port"
    no_errors_since "$name" "$mark"
}

variant v6 "$NODE6" 7174 7481 100 64

step vlan-netdev
VLAN_DEV="$NIC.$VLAN_ID"
vlan_up "$VLAN_DEV" "$VLAN_ID" "$VLAN_PCP" "$GUEST_VLAN4"
$IP -d link show "$VLAN_DEV"
field vlan_dev "$VLAN_DEV"
variant vlan "$NODE_VLAN4" 7175 7482 100 64

step jumbo-mtu
mtu_change "$JUMBO_MTU"
field jumbo_mtu "$(cat "/sys/class/net/$NIC/mtu")"
variant jumbo "$NODE4" 7176 7483 8000 20000
# what the error checks read: the kernel's log in raw form (a level prefix on each line), so a check that found
# nothing had something to look at
field kernel_log_lines "$(kernel_lines)"
field kernel_log_leveled "$(dmesg -r | grep -c '^<[0-7]>')"
