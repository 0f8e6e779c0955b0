# ucmatose-client: connect/disconnect loops with the guest as client (issue 6, test 5). siw built with
# peer_to_peer true (stock siw's requests are refused, see rping-client-refused). Two rounds of 100 connections
# against the node's ucmatose servers: "connect" (-C 0, port 7471: connections only, timed) and "exchange"
# (cmatose's default -C 10 -S 100, port 7472: ten Sends of 100 bytes each way on each connection). Each round is
# 4 ucmatose processes of 25 connections at once: one process cannot hold more than 36 connections on siw. The
# kernel gives each CQ, SQ and RQ mapping of a process the next free page offset (ib_core
# rdma_user_mmap_entry_insert), but siw's ABI reserves key 0x90000 (page 0x90) as SIW_INVAL_UOBJ_KEY and libsiw
# refuses an object whose key equals it: with 2 CQs, an SQ and an RQ per connection the 37th connection's first CQ
# gets that key and ucmatose says "unable to create CQ" (its fixed -ENOMEM), whatever the memory limits.
# Then, on virtio-net only (issue 17: connection rates to the model against siw's own), the same two rounds between
# two siw endpoints inside the guest: a second siw device over a dummy netdev (as rping-throughput sets up), 4
# ucmatose servers of 25 on it (one port each, the same 36-a-process limit) and 4 clients of 25 against them, timed
# the same way; model_over_local_ucmatose (-C 0) and model_over_local_ucmatose_exchange are the rates to the model
# over the in-guest ones. An in-guest round that does not end is a missing figure, not the scenario's result.
# iproute2's ip by its path: busybox's ash runs its own ip applet first (Debian builds it standalone)
IP=/sbin/ip
NODE4=192.0.2.1
LOCAL4=198.51.100.1
PROCESSES=4
EACH=25

. /scenarios/nic.sh
nic_up 192.0.2.2/24
rdma_up

ms() { awk '{printf "%d", $1 * 1000}' /proc/uptime; }

# round NAME SERVER PORT PORT-STEP ARGS...: $PROCESSES ucmatose clients of $EACH connections at once to SERVER, the
# i-th on PORT + (i - 1) x PORT-STEP; reports NAME_ms (the round's wall time in the guest), NAME_rate (connections
# per second over it) and NAME_complete (processes that printed "test complete" and returned 0); ROUND_MS is the
# wall time; answers 1 (ROUND_FAILED saying why) if a process failed
round() {
    name="$1"
    server="$2"
    port="$3"
    port_step="$4"
    shift 4
    step "ucmatose-$name"
    started=$(ms)
    pids=""
    i=1
    while [ "$i" -le "$PROCESSES" ]; do
        timeout 120 ucmatose -s "$server" -p "$port" -c "$EACH" "$@" >"/tmp/ucmatose-$name-$i.log" 2>&1 &
        pids="$pids $!"
        port=$((port + port_step))
        i=$((i + 1))
    done
    failed=0
    for pid in $pids; do
        wait "$pid" || failed=$((failed + 1))
    done
    ROUND_MS=$(($(ms) - started))
    ucmatose_round "$name" "$ROUND_MS"
    ROUND_FAILED="ucmatose $name round: $failed of $PROCESSES processes failed"
    [ "$failed" = 0 ] && [ "$complete" = "$PROCESSES" ]
}

field ucmatose_connections "$((PROCESSES * EACH))"
round connect "$NODE4" 7471 0 -C 0 || fail "$ROUND_FAILED"
model_connect_ms=$ROUND_MS
round exchange "$NODE4" 7472 0 -C 10 -S 100 || fail "$ROUND_FAILED"
model_exchange_ms=$ROUND_MS

# Linux 7.3 as Debian builds it (the e810 flavour) has no siw: no in-guest rounds there
if [ "$NIC_KIND" = e810 ]; then
    field local_ucmatose none
    finish ok
fi

local_siw "$LOCAL4/24"

# listening_on FIRST-PORT: how many of the ports FIRST-PORT .. FIRST-PORT + PROCESSES - 1 have a listening cm_id on
# LOCAL4 (by port, not by a count taken before: a server may listen before that count is read, or an earlier round's
# server end in between)
listening_on() {
    rdma resource show cm_id 2>/dev/null | awk -v a="$LOCAL4" -v first="$1" -v n="$PROCESSES" '
        /state LISTEN/ { for (i = 1; i <= NF; i++) if (split($i, ap, ":") == 2 && ap[1] == a \
            && ap[2] + 0 >= first && ap[2] + 0 < first + n) seen[ap[2] + 0] = 1 }
        END { c = 0; for (p in seen) c++; print c }'
}

# local_round NAME FIRST-PORT ARGS...: $PROCESSES ucmatose servers of $EACH on siw1 (ports FIRST-PORT on), once
# all listen the round NAME against them; NAME_servers_complete counts the servers that completed. Servers left
# running past 30 s are left be (killing one with a half-open connection can trip a BUG in iw_cm's close handler)
local_round() {
    name="$1"
    port="$2"
    shift 2
    spids=""
    i=1
    while [ "$i" -le "$PROCESSES" ]; do
        timeout 120 ucmatose -b "$LOCAL4" -p $((port + i - 1)) -c "$EACH" "$@" >"/tmp/ucmatose-$name-server-$i.log" 2>&1 &
        spids="$spids $!"
        i=$((i + 1))
    done
    tries=0
    until [ "$(listening_on "$port")" -ge "$PROCESSES" ]; do
        tries=$((tries + 1))
        [ "$tries" -lt 600 ] || { field "${name}_listening" no; return 1; }
        sleep 0.1
    done
    round "$name" "$LOCAL4" "$port" 1 "$@"
    code=$?
    deadline=$(($(ms) + 30000))
    ended=0
    for pid in $spids; do
        while kill -0 "$pid" 2>/dev/null && [ "$(ms)" -lt "$deadline" ]; do sleep 0.2; done
        kill -0 "$pid" 2>/dev/null || { wait "$pid" && ended=$((ended + 1)); }
    done
    field "${name}_servers_complete" "$ended/$PROCESSES"
    return "$code"
}

# ratio MODEL-MS LOCAL-MS: the rate to the model over the in-guest rate (the same connections, so the times' inverse)
ratio() { awk -v m="$1" -v l="$2" 'BEGIN { printf "%.2f", (m > 0 ? l / m : 0) }'; }

local_round local_ucmatose_connect 7481 -C 0 && field model_over_local_ucmatose "$(ratio "$model_connect_ms" "$ROUND_MS")"
local_round local_ucmatose_exchange 7491 -C 10 -S 100 \
    && field model_over_local_ucmatose_exchange "$(ratio "$model_exchange_ms" "$ROUND_MS")"
