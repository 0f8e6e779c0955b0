# ucmatose-server: connect/disconnect loops with the guest as server (issue 6, test 5), on stock siw: 100
# connections from the node's ucmatose clients with cmatose's default exchange (-C 10 -S 100: ten Sends of 100
# bytes each way on each connection), as 4 ucmatose servers of 25 connections on ports 7471-7474: one process
# cannot hold more than 36 connections on siw (the 37th's first CQ would get mmap key 0x90000, which libsiw takes
# for SIW_INVAL_UOBJ_KEY; see ucmatose-client). All 4 listen before the guest announces itself (its ping: the node
# learns its MAC and connects). The node's clients Send first, 200 ms after each connection is up: siw_accept
# (siw_cm.c) sends its MPA reply before it hooks the callback that reads the initiator's RTR, so an RTR that
# arrives in between (under TCG on a busy host, 1 to 9 connections in a hundred) stays unread until more data
# comes; without it the connection never comes up and the server waits for ever (and closing it then trips a BUG
# in iw_cm's close handler).
# iproute2's ip by its path: busybox's ash runs its own ip applet first (Debian builds it standalone)
IP=/sbin/ip
NODE4=192.0.2.1
GUEST4=192.0.2.2
PROCESSES=4
EACH=25

. /scenarios/nic.sh
nic_up "$GUEST4/24"
rdma_up

ms() { awk '{printf "%d", $1 * 1000}' /proc/uptime; }
# a round's servers normally finish in a few seconds under TCG
ROUND_LIMIT_MS=60000

# diagnose: what the connections look like (rdma_cm's ids; the TCP sockets with unread bytes in their receive
# queues, the fifth column's second half in /proc/net/tcp)
diagnose() {
    rdma resource show cm_id 2>&1
    awk 'NR == 1 || $5 !~ /:00000000$/' /proc/net/tcp
    field unread_sockets "$(awk 'NR > 1 && $5 !~ /:00000000$/' /proc/net/tcp | wc -l)"
}

step listen
# serve NAME FIRST-PORT ARGS...: $PROCESSES servers on ports FIRST-PORT up; their pids in NAME_pids
serve() {
    name="$1"
    port="$2"
    shift 2
    i=1
    pids=""
    while [ "$i" -le "$PROCESSES" ]; do
        timeout 120 ucmatose -b "$GUEST4" -p "$port" -c "$EACH" "$@" >"/tmp/ucmatose-$name-$i.log" 2>&1 &
        pids="$pids $!"
        port=$((port + 1))
        i=$((i + 1))
    done
    eval "${name}_pids=\"$pids\""
}
serve exchange 7471 -C 10 -S 100
# wait until all listen (rdma_listen done): the node must not find a port closed
tries=0
until [ "$(rdma resource show cm_id 2>/dev/null | grep -c 'state LISTEN')" -ge "$PROCESSES" ]; do
    tries=$((tries + 1))
    [ "$tries" -lt 300 ] || { rdma resource show cm_id; fail "the ucmatose servers do not all listen"; }
    sleep 0.1
done

step announce
started=$(ms)
ping -c 1 -W 5 -w 30 "$NODE4" >/dev/null 2>&1 || fail "no reply from the node at $NODE4"

# finish NAME: wait for the round's servers; reports NAME_ms (from the previous mark), NAME_rate, NAME_complete
finish_round() {
    name="$1"
    step "ucmatose-$name"
    eval "pids=\"\$${name}_pids\""
    # a server whose connections never all come up would wait for ever: give up on it in time, say why, and
    # leave it be (killing a server with a half-open connection can trip a BUG in iw_cm's close handler)
    deadline=$(($(ms) + ROUND_LIMIT_MS))
    for pid in $pids; do
        while kill -0 "$pid" 2>/dev/null && [ "$(ms)" -lt "$deadline" ]; do
            sleep 0.2
        done
        if kill -0 "$pid" 2>/dev/null; then
            diagnose
            fail "ucmatose $name round: a server did not finish within $((ROUND_LIMIT_MS / 1000)) s"
        fi
    done
    failed=0
    for pid in $pids; do
        wait "$pid" || failed=$((failed + 1))
    done
    now=$(ms)
    took=$((now - started))
    started=$now
    ucmatose_round "$name" "$took"
    [ "$failed" = 0 ] && [ "$complete" = "$PROCESSES" ] \
        || fail "ucmatose $name round: $failed of $PROCESSES servers failed"
}

field ucmatose_connections "$((PROCESSES * EACH))"
finish_round exchange
