# ucmatose-client: connect/disconnect loops with the guest as client (issue 6, test 5). siw built with
# peer_to_peer true (stock siw's requests are refused, see rping-client-refused). Two rounds of 100 connections
# against the node's ucmatose servers: "connect" (-C 0, port 7471: connections only, timed) and "exchange"
# (cmatose's default -C 10 -S 100, port 7472: ten Sends of 100 bytes each way on each connection). Each round is
# 4 ucmatose processes of 25 connections at once: one process cannot hold more than 36 connections on siw. The
# kernel gives each CQ, SQ and RQ mapping of a process the next free page offset (ib_core
# rdma_user_mmap_entry_insert), but siw's ABI reserves key 0x90000 (page 0x90) as SIW_INVAL_UOBJ_KEY and libsiw
# refuses an object whose key equals it: with 2 CQs, an SQ and an RQ per connection the 37th connection's first CQ
# gets that key and ucmatose says "unable to create CQ" (its fixed -ENOMEM), whatever the memory limits.
# iproute2's ip by its path: busybox's ash runs its own ip applet first (Debian builds it standalone)
IP=/sbin/ip
NODE4=192.0.2.1
PROCESSES=4
EACH=25

. /scenarios/nic.sh
nic_up 192.0.2.2/24
rdma_up

ms() { awk '{printf "%d", $1 * 1000}' /proc/uptime; }

# round NAME PORT ARGS...: $PROCESSES ucmatose clients of $EACH connections at once; reports NAME_ms (the
# round's wall time in the guest), NAME_rate (connections per second over it) and NAME_complete (processes that
# printed "test complete" and returned 0)
round() {
    name="$1"
    port="$2"
    shift 2
    step "ucmatose-$name"
    started=$(ms)
    pids=""
    i=1
    while [ "$i" -le "$PROCESSES" ]; do
        timeout 120 ucmatose -s "$NODE4" -p "$port" -c "$EACH" "$@" >"/tmp/ucmatose-$name-$i.log" 2>&1 &
        pids="$pids $!"
        i=$((i + 1))
    done
    failed=0
    for pid in $pids; do
        wait "$pid" || failed=$((failed + 1))
    done
    took=$(($(ms) - started))
    complete=0
    i=1
    while [ "$i" -le "$PROCESSES" ]; do
        cat "/tmp/ucmatose-$name-$i.log"
        grep -q '^return status 0$' "/tmp/ucmatose-$name-$i.log" && complete=$((complete + 1))
        i=$((i + 1))
    done
    field "${name}_ms" "$took"
    field "${name}_rate" "$(awk -v n=$((PROCESSES * EACH)) -v t="$took" 'BEGIN { printf "%.0f", n * 1000 / (t > 0 ? t : 1) }')"
    field "${name}_complete" "$complete/$PROCESSES"
    [ "$failed" = 0 ] && [ "$complete" = "$PROCESSES" ] \
        || fail "ucmatose $name round: $failed of $PROCESSES processes failed"
}

field ucmatose_connections "$((PROCESSES * EACH))"
round connect 7471 -C 0
round exchange 7472 -C 10 -S 100
