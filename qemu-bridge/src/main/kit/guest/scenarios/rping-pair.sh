# rping-pair: one of two guests, each with its own emulated E810, on one cable (no hosted node): the stock irdma.ko
# of one guest connects to the other's. Kernel command line words:
#   irdma_emu.pair=server|client   this guest's part
#   irdma_emu.addr=ADDRESS/LEN     this guest's address on ice's netdev
#   irdma_emu.peer=ADDRESS         the other guest's address
#   irdma_emu.count=N              pings (default 10)
# The server runs `rping -s -C N -V` on its address; the client waits for the server to answer a ping (the other
# guest boots at the same time and may be slower), then runs `rping -c -C N -V`, trying again while the server is
# not listening yet. Fields: pair, rping_exit, rping_pings (client) or rping_verified (server).
#
# Then the RDMA paths the rest skip (issue 29 item 4), one variant after the other, each an rping -V of COUNT pings
# and a ucmatose run of 5 connections (-C 10) between the two guests: over IPv6 (2001:db8::10 and ::20), over a
# VLAN netdev (VLAN 100, every egress priority mapped to PCP 5; 203.0.113.10 and .20), and untagged at MTU 9000
# (198.51.100.10 and .20, a second subnet on ice's netdev; rping -S 20000, ucmatose -S 8000). The server side of a
# variant starts its ucmatose server, waits until it listens, then serves rping: the client's rping, tried until
# it connects, is the signal that both are there. Fields per variant NAME (v6, vlan, jumbo): NAME_rping (the
# client's pings, the server's verified pings), NAME_ucmatose (complete), NAME_errors (ice/irdma lines of error
# level or worse printed while it ran).
PART="$(param irdma_emu.pair || echo none)"
ADDR="$(param irdma_emu.addr || echo none)"
PEER="$(param irdma_emu.peer || echo none)"
COUNT="$(param irdma_emu.count || echo 10)"
case "$PART" in server | client) ;; *) fail "irdma_emu.pair must be server or client: $PART" ;; esac
[ "$ADDR" != none ] && [ "$PEER" != none ] || fail "rping-pair needs irdma_emu.addr and irdma_emu.peer"
field pair "$PART"

. /scenarios/nic.sh
[ "$NIC_KIND" = e810 ] || fail "rping-pair runs on the emulated E810 (irdma_emu.nic=e810)"
nic_up "$ADDR"
rdma_up

step reach
reach "$PEER" 90 "no reply from the other guest at $PEER"
field reach_tries "$tries"

step rping
if [ "$PART" = server ]; then
    timeout 120 rping -s -a "${ADDR%/*}" -C "$COUNT" -V -v >/tmp/rping.log 2>&1
    code=$?
    cat /tmp/rping.log
    verified="$(grep -c '^server ping data: rdma-ping-' /tmp/rping.log)"
    field rping_exit "$code"
    field rping_verified "$verified"
    [ "$code" = 0 ] && [ "$verified" = "$COUNT" ] || fail "rping server: exit $code, $verified of $COUNT"
else
    attempt=0
    while :; do
        attempt=$((attempt + 1))
        started=$(nic_ms)
        timeout 120 rping -c -a "$PEER" -C "$COUNT" -V -v >/tmp/rping.log 2>&1
        code=$?
        # refused at once: the server is not listening yet
        [ "$code" != 0 ] && [ $(($(nic_ms) - started)) -lt 2000 ] && [ "$attempt" -lt 60 ] && { sleep 0.5; continue; }
        break
    done
    cat /tmp/rping.log
    pings="$(grep -c '^ping data: rdma-ping-' /tmp/rping.log)"
    field rping_attempts "$attempt"
    field rping_exit "$code"
    field rping_pings "$pings"
    [ "$code" = 0 ] && [ "$pings" = "$COUNT" ] || fail "rping client: exit $code, $pings of $COUNT"
fi

# ---- the RDMA paths between the two guests
VLAN_ID=100
VLAN_PCP=5
case "$PART" in server) ME=10 OTHER=20 ;; *) ME=20 OTHER=10 ;; esac

# pair_rping NAME ADDRESS PEER PORT SIZE: this guest's part of the variant's rping; sets NAME_rping
pair_rping() {
    if [ "$PART" = server ]; then
        timeout 120 rping -s -a "$2" -p "$4" -C "$COUNT" -S "$5" -V -v >/tmp/rping-$1.log 2>&1
        code=$?
        got="$(grep -c '^server ping data: rdma-ping-' /tmp/rping-$1.log)"
    else
        attempt=0
        while :; do
            attempt=$((attempt + 1))
            started=$(nic_ms)
            timeout 120 rping -c -a "$3" -p "$4" -C "$COUNT" -S "$5" -V -v >/tmp/rping-$1.log 2>&1
            code=$?
            [ "$code" != 0 ] && [ $(($(nic_ms) - started)) -lt 2000 ] && [ "$attempt" -lt 240 ] \
                && { sleep 0.5; continue; }
            break
        done
        got="$(grep -c '^ping data: rdma-ping-' /tmp/rping-$1.log)"
    fi
    cut -c1-100 /tmp/rping-$1.log # the first 100 bytes of each line: -S 20000 would flood the console
    field "$1_rping" "$got"
    [ "$code" = 0 ] && [ "$got" = "$COUNT" ] || fail "$1: rping $PART: exit $code, $got of $COUNT"
}

# pair_variant NAME ADDRESS PEER RPING-PORT UCMATOSE-PORT SIZE RPING-SIZE
pair_variant() {
    name="$1"
    mark=$(kernel_lines)
    step "$name-reach"
    reach "$3" 90 "$name: no reply from the other guest at $3"
    step "$name"
    if [ "$PART" = server ]; then
        timeout 150 ucmatose -b "$2" -p "$5" -c 5 -C 10 -S "$6" >/tmp/ucmatose-$name.log 2>&1 &
        upid=$!
        tries=0
        until rdma resource show cm_id 2>/dev/null | grep 'state LISTEN' | grep -q 'comm ucmatose'; do
            tries=$((tries + 1))
            [ "$tries" -le 300 ] || fail "$name: the ucmatose server does not listen"
            sleep 0.1
        done
        pair_rping "$name" "$2" "$3" "$4" "$7"
        wait "$upid"
        code=$?
    else
        pair_rping "$name" "$2" "$3" "$4" "$7"
        timeout 120 ucmatose -s "$3" -p "$5" -c 5 -C 10 -S "$6" >/tmp/ucmatose-$name.log 2>&1
        code=$?
    fi
    ucmatose_verdict "$name" "$code" "ucmatose ($PART)"
    no_errors_since "$name" "$mark"
}

step paths-netdevs
run $IP -6 addr add "2001:db8::$ME/64" dev "$NIC" nodad
VLAN_DEV="$NIC.$VLAN_ID"
vlan_up "$VLAN_DEV" "$VLAN_ID" "$VLAN_PCP" "203.0.113.$ME/24"
pair_variant v6 "2001:db8::$ME" "2001:db8::$OTHER" 7180 7481 100 64
pair_variant vlan "203.0.113.$ME" "203.0.113.$OTHER" 7181 7482 100 64
step jumbo-mtu
mtu_change 9000
run $IP addr add "198.51.100.$ME/24" dev "$NIC"
field jumbo_mtu "$(cat "/sys/class/net/$NIC/mtu")"
pair_variant jumbo "198.51.100.$ME" "198.51.100.$OTHER" 7182 7483 8000 20000
# what the error checks read: the kernel's log in raw form (a level prefix on each line)
field kernel_log_lines "$(kernel_lines)"
field kernel_log_leveled "$(dmesg -r | grep -c '^<[0-7]>')"
