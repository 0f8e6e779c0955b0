# rping-throughput: rping's data rate seen by the guest (a figure, not a test). siw built with peer_to_peer true
# as rping client, the node's rping server: 100 pings of 65535 bytes (rping's largest, RPING_BUFSIZE - 1) without
# verification, timed with /proc/uptime. Each ping moves its bytes twice over the wire (the server Reads the
# client's start buffer, then Writes it back into the sink), so the rate counts 2 x count x size bytes.
# iproute2's ip by its path: busybox's ash runs its own ip applet first (Debian builds it standalone)
IP=/sbin/ip
NODE4=192.0.2.1
COUNT=100
SIZE=65535

step eth0
run $IP addr add 192.0.2.2/24 dev eth0
run $IP link set eth0 up

step siw-link
run rdma link add siw0 type siw netdev eth0

ms() { awk '{printf "%d", $1 * 1000}' /proc/uptime; }

step rping
started=$(ms)
timeout 240 rping -c -a "$NODE4" -C "$COUNT" -S "$SIZE" >/tmp/rping.log 2>&1
code=$?
took=$(($(ms) - started))
cat /tmp/rping.log
field rping_exit "$code"
field rping_ms "$took"
field rping_bytes "$((2 * COUNT * SIZE))"
field rping_mb_per_s "$(awk -v b=$((2 * COUNT * SIZE)) -v t="$took" 'BEGIN { printf "%.2f", b / 1e6 / ((t > 0 ? t : 1) / 1000) }')"
[ "$code" = 0 ] || fail "rping client: exit $code"
