# rping-client: siw built with peer_to_peer true as rping client, the model as server (issue 6, test 4). The
# peer-to-peer bit is a source-level setting (siw_main.c defines peer_to_peer as a constant; the kit builds
# siw-p2p.ko with it true, and init loads it for irdma_emu.siw=p2p): with it siw's MPA v2 request carries the
# bit irdma requires, and rping runs 10 verified iterations against the node's rping server.
# iproute2's ip by its path: busybox's ash runs its own ip applet first (Debian builds it standalone)
IP=/sbin/ip
NODE4=192.0.2.1
COUNT=10

. /scenarios/nic.sh
nic_up 192.0.2.2/24
rdma_up

step rping
timeout 120 rping -c -a "$NODE4" -C "$COUNT" -V -v >/tmp/rping.log 2>&1
code=$?
cat /tmp/rping.log
pings="$(grep -c '^ping data: rdma-ping-' /tmp/rping.log)"
field rping_exit "$code"
field rping_pings "$pings"
[ "$code" = 0 ] && [ "$pings" = "$COUNT" ] || fail "rping client: exit $code, $pings of $COUNT pings"
