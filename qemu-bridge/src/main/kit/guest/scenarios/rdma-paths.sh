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

# kernel_lines: how many lines the kernel's log holds now (each variant looks at what came after)
kernel_lines() { dmesg -r | wc -l; }

# errors_since MARK: ice's and irdma's lines of level 0..3 (emerg..err) after line MARK of the kernel's log
errors_since() {
    dmesg -r | tail -n +"$(($1 + 1))" | grep -E '^<[0-3]>' | grep -E '(^<[0-7]>|[] ])(ice|irdma)[0-9]*[ :]' || true
}

# reach ADDRESS: the node answers a ping (ARP or Neighbor Discovery done), within 30 s
reach() {
    tries=0
    until ping -c 1 -W 1 "$1" >/dev/null 2>&1; do
        tries=$((tries + 1))
        [ "$tries" -le 30 ] || fail "no reply from the node at $1"
    done
}

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
    reach "$addr"
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
    cat /tmp/ucmatose-$name.log
    if [ "$code" = 0 ] && grep -q '^return status 0$' /tmp/ucmatose-$name.log; then
        field "${name}_ucmatose" complete
    else
        field "${name}_ucmatose" failed
        fail "$name: ucmatose -s $addr -p $port exited $code"
    fi
    errors="$(errors_since "$mark")"
    [ -n "$errors" ] && echo "$errors"
    field "${name}_errors" "$(printf '%s' "$errors" | grep -c .)"
    [ -z "$errors" ] || fail "$name: ice or irdma logged errors"
}

variant v6 "$NODE6" 7174 7481 100 64

step vlan-netdev
VLAN_DEV="$NIC.$VLAN_ID"
run modprobe 8021q
run $IP link add link "$NIC" name "$VLAN_DEV" type vlan id "$VLAN_ID" \
    egress-qos-map 0:$VLAN_PCP 1:$VLAN_PCP 2:$VLAN_PCP 3:$VLAN_PCP 4:$VLAN_PCP 5:$VLAN_PCP 6:$VLAN_PCP 7:$VLAN_PCP
run $IP addr add "$GUEST_VLAN4" dev "$VLAN_DEV"
run $IP link set "$VLAN_DEV" up
$IP -d link show "$VLAN_DEV"
field vlan_dev "$VLAN_DEV"
variant vlan "$NODE_VLAN4" 7175 7482 100 64

step jumbo-mtu
run $IP link set "$NIC" mtu "$JUMBO_MTU"
tries=0
until [ "$(cat "/sys/class/net/$NIC/carrier" 2>/dev/null)" = 1 ]; do
    tries=$((tries + 1))
    [ "$tries" -le 100 ] || fail "$NIC has no carrier 10 s after its MTU became $JUMBO_MTU"
    sleep 0.1
done
field jumbo_mtu "$(cat "/sys/class/net/$NIC/mtu")"
variant jumbo "$NODE4" 7176 7483 8000 20000
# what the error checks read: the kernel's log in raw form (a level prefix on each line), so a check that found
# nothing had something to look at
field kernel_log_lines "$(kernel_lines)"
field kernel_log_leveled "$(dmesg -r | grep -c '^<[0-7]>')"
