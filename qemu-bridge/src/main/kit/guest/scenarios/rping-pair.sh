# rping-pair: one of two guests, each with its own emulated E810, on one cable (no hosted node): the stock irdma.ko
# of one guest connects to the other's. Kernel command line words:
#   irdma_emu.pair=server|client   this guest's part
#   irdma_emu.addr=ADDRESS/LEN     this guest's address on ice's netdev
#   irdma_emu.peer=ADDRESS         the other guest's address
#   irdma_emu.count=N              pings (default 10)
# The server runs `rping -s -C N -V` on its address; the client waits for the server to answer a ping (the other
# guest boots at the same time and may be slower), then runs `rping -c -C N -V`, trying again while the server is
# not listening yet. Fields: pair, rping_exit, rping_pings (client) or rping_verified (server).
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
tries=0
until ping -c 1 -W 1 "$PEER" >/dev/null 2>&1; do
    tries=$((tries + 1))
    [ "$tries" -le 90 ] || fail "no reply from the other guest at $PEER"
done
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
