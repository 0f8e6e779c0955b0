# ucmatose-client: connect/disconnect loops with the guest as client (issue 6, test 5). The guest's ucmatose
# (siw built with peer_to_peer true: stock siw's requests are refused, see rping-client-refused) opens 100
# connections to the node's ucmatose server at 192.0.2.1, exchanges no messages (-C 0) and disconnects them.
# iproute2's ip by its path: busybox's ash runs its own ip applet first (Debian builds it standalone)
IP=/sbin/ip
NODE4=192.0.2.1
CONNECTIONS=100

step eth0
run $IP addr add 192.0.2.2/24 dev eth0
run $IP link set eth0 up

step siw-link
run rdma link add siw0 type siw netdev eth0

step ucmatose
timeout 240 ucmatose -s "$NODE4" -c "$CONNECTIONS" -C 0 >/tmp/ucmatose.log 2>&1
code=$?
cat /tmp/ucmatose.log
field ucmatose_exit "$code"
field ucmatose_connections "$CONNECTIONS"
grep -q 'test complete' /tmp/ucmatose.log && field ucmatose_complete yes
[ "$code" = 0 ] || fail "ucmatose client: exit $code"
