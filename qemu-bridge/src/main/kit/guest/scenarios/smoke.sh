# smoke: the kernel's iWARP stack works in the guest. siw (loaded by init after crc32c_generic, libcrc32c and
# ib_core) gets a device on a dummy netdev holding a documentation address; the rdma tool (netlink), libibverbs
# (the siw provider) and a loopback rping over that device (rdma_cm, iw_cm, siw, kernel TCP) all see it work.
ADDR=198.51.100.1

step netdev
# the dummy module makes dummy0 itself (its numdummies parameter defaults to 1)
ip link show dummy0 >/dev/null 2>&1 || run ip link add dummy0 type dummy
run ip link set dummy0 address 02:00:00:00:00:01
run ip addr add "$ADDR/24" dev dummy0
run ip link set dummy0 up

step siw-link
run rdma link add siw0 type siw netdev dummy0
links="$(rdma link show 2>&1)"
echo "$links"
echo "$links" | grep -q '^link siw0/1 .*netdev dummy0' || fail "rdma link show lacks siw0 on dummy0"
field siw siw0
field link_state "$(echo "$links" | sed -n 's/^link siw0\/1 state \([A-Z_]*\).*/\1/p')"

step ibv_devices
devices="$(ibv_devices 2>&1)"
echo "$devices"
echo "$devices" | grep -q '^ *siw0 ' || fail "ibv_devices lacks siw0"
field ibv_devices siw0
info="$(ibv_devinfo -d siw0 2>&1)"
echo "$info"
field transport "$(echo "$info" | sed -n 's/^[[:space:]]*transport:[[:space:]]*\([A-Za-z]*\).*/\1/p')"
field port_state "$(echo "$info" | sed -n 's/^[[:space:]]*state:[[:space:]]*\([A-Z_]*\).*/\1/p' | head -n 1)"

step rping
# a verified loopback exchange: a server and a client on the siw device's own address
PINGS=3
timeout 60 rping -s -a "$ADDR" -C "$PINGS" -V >/tmp/rping-server.log 2>&1 &
server=$!
tries=0
until timeout 20 rping -c -a "$ADDR" -C "$PINGS" -V -v >/tmp/rping-client.log 2>&1; do
    tries=$((tries + 1))
    # the server may not be listening yet: try again a few times
    [ "$tries" -lt 10 ] || { cat /tmp/rping-client.log; fail "rping client"; }
    sleep 0.2
done
cat /tmp/rping-client.log
wait "$server" || { cat /tmp/rping-server.log; fail "rping server"; }
pings="$(grep -c '^ping data: rdma-ping-' /tmp/rping-client.log)"
[ "$pings" = "$PINGS" ] || fail "rping client verified $pings of $PINGS pings"
field rping ok
field rping_pings "$pings"
