# rping-client-refused: stock siw as rping client, the model as server (issue 6, test 3). siw is built with
# peer_to_peer false (siw_main.c: a compile-time constant), so its MPA v2 request lacks the peer-to-peer bit;
# irdma refuses such a request (irdma_negotiate_mpa_v2_ird_ord) and resets the connection. That refusal is the
# expected result (fidelity, not a bug): the scenario passes when rping fails to connect, and reports what
# rping printed.
# iproute2's ip by its path: busybox's ash runs its own ip applet first (Debian builds it standalone)
IP=/sbin/ip
NODE4=192.0.2.1

. /scenarios/nic.sh
nic_up 192.0.2.2/24
rdma_up

step rping
timeout 60 rping -c -a "$NODE4" -C 1 -V -v >/tmp/rping.log 2>&1
code=$?
cat /tmp/rping.log
field rping_exit "$code"
field rping_said "$(grep -m 1 -iE 'error|reject|refused|fail' /tmp/rping.log)"
pings="$(grep -c '^ping data: rdma-ping-' /tmp/rping.log)"
field rping_pings "$pings"
[ "$code" != 0 ] || fail "rping connected, but stock siw's request lacks the peer-to-peer bit irdma requires"
[ "$pings" = 0 ] || fail "rping exchanged $pings pings over a refused connection"
[ "$code" != 124 ] || fail "rping hung instead of seeing the refusal"
field refused yes
