# ucmatose-server: connect/disconnect loops with the guest as server (issue 6, test 5). The guest's ucmatose
# (stock siw) waits for 100 connections on 192.0.2.2 and exchanges no messages (-C 0); the hosted node connects
# and disconnects them. The node connects once it knows the guest's MAC, so the guest speaks first (one ping).
# iproute2's ip by its path: busybox's ash runs its own ip applet first (Debian builds it standalone)
IP=/sbin/ip
NODE4=192.0.2.1
CONNECTIONS=100

step eth0
run $IP addr add 192.0.2.2/24 dev eth0
run $IP link set eth0 up

step siw-link
run rdma link add siw0 type siw netdev eth0

step announce
ping -c 1 -W 5 -w 30 "$NODE4" >/dev/null 2>&1 || fail "no reply from the node at $NODE4"

step ucmatose
timeout 240 ucmatose -b 192.0.2.2 -c "$CONNECTIONS" -C 0 >/tmp/ucmatose.log 2>&1
code=$?
cat /tmp/ucmatose.log
field ucmatose_exit "$code"
field ucmatose_connections "$CONNECTIONS"
grep -q 'test complete' /tmp/ucmatose.log && field ucmatose_complete yes
[ "$code" = 0 ] || fail "ucmatose server: exit $code"
