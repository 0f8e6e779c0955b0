# rping-server: the model as rping client, stock siw as server (issue 6, test 2). The guest serves rping on
# 192.0.2.2 over siw on eth0; the hosted node's rping client connects with MPA v2 (the model, as initiator,
# sends the RTR) and runs 10 verified iterations. The node connects once it has learned the guest's MAC, so
# the guest speaks first (one ping).
# iproute2's ip by its path: busybox's ash runs its own ip applet first (Debian builds it standalone)
IP=/sbin/ip
NODE4=192.0.2.1
COUNT=10

. /scenarios/nic.sh
nic_up 192.0.2.2/24
rdma_up

step announce
ping -c 1 -W 5 -w 30 "$NODE4" >/dev/null 2>&1 || fail "no reply from the node at $NODE4"

step rping
timeout 120 rping -s -a 192.0.2.2 -C "$COUNT" -V -v >/tmp/rping.log 2>&1
code=$?
cat /tmp/rping.log
verified="$(grep -c '^server ping data: rdma-ping-' /tmp/rping.log)"
field rping_exit "$code"
field rping_verified "$verified"
[ "$code" = 0 ] && [ "$verified" = "$COUNT" ] || fail "rping server: exit $code, $verified of $COUNT iterations"
