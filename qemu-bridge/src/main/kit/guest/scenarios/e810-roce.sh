# e810-roce: the stock irdma.ko of Linux 7.3 in ice's default mode, RoCEv2 (no devlink switch: ice_idc.c names the
# auxiliary device ice.roce.N and irdma probes it with protocol_used ROCE_PROTOCOL_ONLY), on an emulated E810 of two
# physical functions, A (0000:01:00.0) and B (0000:01:00.1), on one embedded switch. Loads ice, gives A 192.0.2.2/24
# and B 192.0.2.3/24, sets both up, loads irdma, then checks what a RoCEv2 device shows: `rdma link`, ibv_devinfo's
# transport (InfiniBand) and link layer (Ethernet), the RoCEv2 GIDs of each netdev's IPv4 address (::ffff:a.b.c.d)
# and IPv6 link-local address (fe80::, the GID table of core/roce_gid_mgmt.c), and no irdma error in the kernel log.
# Then, when the kit has it, ibv_ud_pingpong between the two functions over their RoCEv2 IPv4 GIDs (UD QPs, address
# handles, the device's UD send and receive): A's address routed to B's through A's netdev as in
# vng-one-adapter.sh (Linux would take its own address through lo).
#
# Fields: functions, a_ib, b_ib, rdma_links, port_state, transport, link_layer, gid_ipv4_a / gid_ipv4_b (the GID
# index of the netdev's IPv4 address, RoCE v2 type), gid_ll_a / gid_ll_b (yes when a fe80:: RoCE v2 GID is there),
# irdma_errors (irdma lines at error level or above), udpp (ok, fail or absent), udpp_iters, udpp_rc,
# cm_client_established / cm_server_established (RDMA_CM_EVENT_ESTABLISHED lines of rping -d: the IB CM's REQ, REP
# and RTU crossed QP1), cm_client_rc, rping_rc (client/server exit codes of rping -C 10 -V), rping_client_pings /
# rping_server_pings (verified pings each side), ucmatose (complete or failed: UCMATOSE_CONNECTIONS (100) connections,
# ten Sends each way on each), ucmatose_rc, irdma_errors_after (irdma lines at error level after the RC runs).
A_BDF=0000:01:00.0
B_BDF=0000:01:00.1
A_IP=192.0.2.2
B_IP=192.0.2.3
ITERS=100
RPING_COUNT=10
UCMATOSE_CONNECTIONS=100

netdev_of() { for d in /sys/bus/pci/devices/"$1"/net/*; do [ -e "$d" ] && echo "${d##*/}" && return 0; done; return 1; }
ibdev_of() { for d in /sys/bus/pci/devices/"$1"/infiniband/*; do [ -e "$d" ] && echo "${d##*/}" && return 0; done; return 1; }
wait_for() { # TRIES(0.1 s each) COMMAND...
    n="$1"
    shift
    while ! "$@" >/dev/null 2>&1; do
        n=$((n - 1))
        [ "$n" -gt 0 ] || return 1
        sleep 0.1
    done
}
carrier() { [ "$(cat "/sys/class/net/$1/carrier" 2>/dev/null)" = 1 ]; }
# gid_index IBDEV GID: the index of a RoCE v2 GID equal to GID (as sysfs prints it), or nothing
gid_index() {
    for g in /sys/class/infiniband/"$1"/ports/1/gids/*; do
        i="${g##*/}"
        [ "$(cat "$g" 2>/dev/null)" = "$2" ] || continue
        [ "$(cat "/sys/class/infiniband/$1/ports/1/gid_attrs/types/$i" 2>/dev/null)" = "RoCE v2" ] && echo "$i" && return 0
    done
    return 1
}
has_link_local_gid() {
    for g in /sys/class/infiniband/"$1"/ports/1/gids/*; do
        i="${g##*/}"
        case "$(cat "$g" 2>/dev/null)" in fe80:*) ;; *) continue ;; esac
        [ "$(cat "/sys/class/infiniband/$1/ports/1/gid_attrs/types/$i" 2>/dev/null)" = "RoCE v2" ] && return 0
    done
    return 1
}

step flavour
[ "${FLAVOUR:-}" = e810 ] || fail "e810-roce needs the kit's e810 flavour (Linux 7.3 initramfs); this is kernel $KVER"

step ice
run modprobe ice
wait_for 600 netdev_of "$A_BDF" || fail "ice made no netdev for $A_BDF"
wait_for 600 netdev_of "$B_BDF" || fail "ice made no netdev for $B_BDF"
field functions 2
A_DEV="$(netdev_of "$A_BDF")"
B_DEV="$(netdev_of "$B_BDF")"

step netdevs
run ip addr add "$A_IP/24" dev "$A_DEV"
run ip addr add "$B_IP/24" dev "$B_DEV"
run ip link set "$A_DEV" up
run ip link set "$B_DEV" up
wait_for 300 carrier "$A_DEV" || fail "no carrier on $A_DEV"
wait_for 300 carrier "$B_DEV" || fail "no carrier on $B_DEV"
for k in all "$A_DEV" "$B_DEV"; do
    sysctl -qw "net.ipv4.conf.$k.accept_local=1" "net.ipv4.conf.$k.rp_filter=0" 2>/dev/null ||
        { echo 1 >"/proc/sys/net/ipv4/conf/$k/accept_local"; echo 0 >"/proc/sys/net/ipv4/conf/$k/rp_filter"; }
done
run ip rule add pref 10 from "$A_IP" to "$B_IP" iif lo lookup 100
run ip route add "$B_IP" dev "$A_DEV" table 100
run ip rule add pref 11 from "$B_IP" to "$A_IP" iif lo lookup 101
run ip route add "$A_IP" dev "$B_DEV" table 101
run ip rule add pref 20 lookup local
run ip rule del pref 0 lookup local

step irdma
# no devlink: ice left both functions in RoCEv2
run modprobe irdma
[ -e /dev/infiniband/uverbs0 ] || mdev -s 2>/dev/null
wait_for 300 ibdev_of "$A_BDF" || fail "irdma registered no ib device for $A_BDF"
wait_for 300 ibdev_of "$B_BDF" || fail "irdma registered no ib device for $B_BDF"
mdev -s 2>/dev/null
A_IB="$(ibdev_of "$A_BDF")"
B_IB="$(ibdev_of "$B_BDF")"
field a_ib "$A_IB"
field b_ib "$B_IB"
active() { grep -q ACTIVE "/sys/class/infiniband/$1/ports/1/state"; }
wait_for 300 active "$A_IB" || fail "port 1 of $A_IB is not ACTIVE"
wait_for 300 active "$B_IB" || fail "port 1 of $B_IB is not ACTIVE"
field port_state ACTIVE

step rdma
echo "IRDMA-EMU-BEGIN rdma-link"
rdma link show
echo "IRDMA-EMU-END rdma-link"
field rdma_links "$(rdma link show 2>/dev/null | grep -c '^link ')"
echo "IRDMA-EMU-BEGIN ibv_devinfo"
info="$(ibv_devinfo -d "$A_IB" 2>&1)"
echo "$info"
echo "IRDMA-EMU-END ibv_devinfo"
field transport "$(echo "$info" | sed -n 's/^[[:space:]]*transport:[[:space:]]*\([A-Za-z]*\).*/\1/p' | head -n 1)"
field link_layer "$(echo "$info" | sed -n 's/^[[:space:]]*link_layer:[[:space:]]*\([A-Za-z]*\).*/\1/p' | head -n 1)"

step gids
# the core adds GIDs from netdev events (roce_gid_mgmt.c): give them a moment
A_GID4=""
B_GID4=""
wait_for 100 gid_index "$A_IB" 0000:0000:0000:0000:0000:ffff:c000:0202 && A_GID4="$(gid_index "$A_IB" 0000:0000:0000:0000:0000:ffff:c000:0202)"
wait_for 100 gid_index "$B_IB" 0000:0000:0000:0000:0000:ffff:c000:0203 && B_GID4="$(gid_index "$B_IB" 0000:0000:0000:0000:0000:ffff:c000:0203)"
echo "IRDMA-EMU-BEGIN gids"
for ib in "$A_IB" "$B_IB"; do
    for g in /sys/class/infiniband/"$ib"/ports/1/gids/*; do
        i="${g##*/}"
        v="$(cat "$g" 2>/dev/null)"
        [ "$v" = 0000:0000:0000:0000:0000:0000:0000:0000 ] && continue
        echo "$ib $i $v $(cat "/sys/class/infiniband/$ib/ports/1/gid_attrs/types/$i" 2>/dev/null)"
    done
done
echo "IRDMA-EMU-END gids"
field gid_ipv4_a "${A_GID4:-none}"
field gid_ipv4_b "${B_GID4:-none}"
wait_for 50 has_link_local_gid "$A_IB" && field gid_ll_a yes || field gid_ll_a no
wait_for 50 has_link_local_gid "$B_IB" && field gid_ll_b yes || field gid_ll_b no

# reap_and_show NAME [LINES]: the server started in the background as $spid gets 10 s to end after its client, then is
# stopped; sets src to its exit code and prints both sides' logs (/tmp/NAME-client.log, /tmp/NAME-server.log, at most
# LINES lines each) between the console markers the boot test reads
reap_and_show() {
    n=0
    while kill -0 "$spid" 2>/dev/null && [ "$n" -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
    kill "$spid" 2>/dev/null
    wait "$spid"
    src=$?
    echo "IRDMA-EMU-BEGIN $1"
    sed 's/^/client: /' "/tmp/$1-client.log" | head -n "${2:-100000}"
    sed 's/^/server: /' "/tmp/$1-server.log" | head -n "${2:-100000}"
    echo "IRDMA-EMU-END $1"
}

step udpp
if command -v ibv_ud_pingpong >/dev/null 2>&1 && [ -n "$A_GID4" ] && [ -n "$B_GID4" ]; then
    ibv_ud_pingpong -d "$B_IB" -i 1 -g "$B_GID4" -s 512 -n "$ITERS" >/tmp/udpp-server.log 2>&1 &
    spid=$!
    sleep 1
    timeout 120 ibv_ud_pingpong -d "$A_IB" -i 1 -g "$A_GID4" -s 512 -n "$ITERS" "$B_IP" >/tmp/udpp-client.log 2>&1
    crc=$?
    reap_and_show udpp
    field udpp_rc "$crc/$src"
    field udpp_iters "$(sed -n 's/^\([0-9]*\) iters in .*/\1/p' /tmp/udpp-client.log | head -n 1)"
    if [ "$crc" = 0 ] && [ "$src" = 0 ]; then field udpp ok; else field udpp fail; fi
else
    field udpp absent
fi

step dmesg
echo "IRDMA-EMU-BEGIN dmesg-irdma"
dmesg | grep -E '(^|\] )(ice [0-9a-f:.]+ )?irdma|infiniband irdma'
echo "IRDMA-EMU-END dmesg-irdma"
# irdma's messages at error level or above (raw dmesg keeps the <level> prefix; ibdev_err prints "<3>... irdma0:")
field irdma_errors "$(dmesg -r | grep -E '^<[0-3]>' | grep -c 'irdma')"

step cm
# rping over RoCEv2 between the two functions: rdma_cm's connection through the IB CM's MADs over QP1 both ways
# (REQ from A, REP from B, RTU from A: core/cm.c over the MAD layer, UD on hardware QP 1 with the GSI Q_Key), then
# RC traffic through the model's RC transport: ten rounds of rping -V (each a SEND of the buffer's address, an RDMA
# READ of the client's buffer, a SEND, an RDMA WRITE back, a SEND; the data verified on both sides).
rping -s -a "$B_IP" -C "$RPING_COUNT" -V -v -d >/tmp/cm-server.log 2>&1 &
spid=$!
sleep 1
timeout 120 rping -c -a "$B_IP" -I "$A_IP" -C "$RPING_COUNT" -V -v -d >/tmp/cm-client.log 2>&1
crc=$?
reap_and_show cm 80
field cm_client_established "$(grep -c 'RDMA_CM_EVENT_ESTABLISHED' /tmp/cm-client.log)"
field cm_server_established "$(grep -c 'RDMA_CM_EVENT_ESTABLISHED' /tmp/cm-server.log)"
field cm_client_rc "$crc"
field rping_rc "$crc/$src"
field rping_client_pings "$(grep -c 'ping data: rdma-ping-' /tmp/cm-client.log)"
field rping_server_pings "$(grep -c 'ping data: rdma-ping-' /tmp/cm-server.log)"

step ucmatose
# ucmatose between the two functions: UCMATOSE_CONNECTIONS RC connections, ten Sends of 100 bytes each way on each
ucmatose -b "$B_IP" -c "$UCMATOSE_CONNECTIONS" -C 10 >/tmp/ucmatose-server.log 2>&1 &
spid=$!
sleep 1
timeout 120 ucmatose -s "$B_IP" -b "$A_IP" -c "$UCMATOSE_CONNECTIONS" -C 10 >/tmp/ucmatose-client.log 2>&1
crc=$?
reap_and_show ucmatose
field ucmatose_rc "$crc/$src"
if [ "$crc" = 0 ] && [ "$src" = 0 ] && grep -q '^return status 0$' /tmp/ucmatose-client.log \
    && grep -q '^return status 0$' /tmp/ucmatose-server.log; then
    field ucmatose complete
else
    field ucmatose failed
fi
field irdma_errors_after "$(dmesg -r | grep -E '^<[0-3]>' | grep -c 'irdma')"
echo "IRDMA-EMU-BEGIN dmesg-irdma-after"
dmesg | grep -E '(^|\] )(ice [0-9a-f:.]+ )?irdma|infiniband irdma' | tail -n 40
echo "IRDMA-EMU-END dmesg-irdma-after"
