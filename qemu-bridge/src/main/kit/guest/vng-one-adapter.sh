#!/bin/sh
# One adapter, many endpoints (vng --exec, on the host's own userspace as virtme-ng shares it: rdma-core, perftest
# and python3-pyverbs as the host has them). `irdma-emu serve --functions 2` attached one emulated E810 with two
# physical functions, A (0000:01:00.0) and B (0000:01:00.1), on one embedded switch and one cable. The script:
#   - loads the stock ice.ko, gives A 192.0.2.2/24 and B 192.0.2.3/24, switches both to iWARP with devlink, loads
#     the stock irdma.ko; finds each ib device through its PCI function (rdma-core's udev rule renames irdma0 to
#     iwp1s0f0 and the like as soon as it registers: a name read once goes stale);
#   - within one function (A to A's own address: irdma's loopback connections, cm.c do_lpb) and across the two
#     functions (A's address to B's, turned around by the adapter's switch): rping -V, ucmatose with 100
#     connections, and perftest's six rdma_cm tools (ib_write_bw, ib_read_bw, ib_send_bw and the _lat ones, -R);
#   - rdma-core's own Python tests (run_tests.py, from the rdma-core package's documentation) on A's device, with
#     the default GID choice and with --gid 0;
#   - the kernel log: hung tasks, BUG, Oops, UBSAN and irdma's errors.
# Across two functions of one host Linux routes an address of its own through lo, so the script routes each
# function's address to the other's through its own netdev (a rule for locally generated traffic, the local table
# moved after it) and lets each netdev accept frames from the other's address (accept_local), as one does with
# two cabled ports of one machine.
#
# Each step prints "one-adapter: EVENT key=value ... uptime=SECONDS"; perftest results "one-adapter: perftest
# path=loop|cross tool=T rc=N value=V unit=U"; rdma-core's unittest output between "one-adapter: begin rdma-core
# GIDMODE" and "one-adapter: end rdma-core GIDMODE rc=N". The last line is "one-adapter: ok" or "one-adapter: fail
# REASON" (exit status 1).

A_BDF=0000:01:00.0
B_BDF=0000:01:00.1
A_IP=192.0.2.2
B_IP=192.0.2.3
CONNECTIONS="${ONE_ADAPTER_CONNECTIONS:-100}"
ITERS="${ONE_ADAPTER_ITERS:-200}"

uptime_s() { cut -d' ' -f1 /proc/uptime; }
say() { echo "one-adapter: $* uptime=$(uptime_s)"; }
fail() {
    echo "one-adapter: fail $*"
    dmesg | grep -E ' (ice|irdma|infiniband)[ :]|BUG:|Oops|Call Trace|blocked for more than|UBSAN' | tail -n 40
    exit 1
}

# The netdev and the ib device of a PCI function, read anew each time (udev renames both).
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

# listening PORT PID: process PID has an rdma_cm id listening on PORT (rping 7174, ucmatose 7471, perftest's -R
# 18515); by its pid, so that an earlier server's id that the kernel has not destroyed yet does not count
listening() {
    rdma resource show cm_id 2>/dev/null | awk -v port="$1" -v pid="$2" '/state LISTEN/ { p = 0; a = 0
        for (i = 1; i <= NF; i++) { if ($i == "pid" && $(i + 1) == pid) p = 1; if ($i ~ ":" port "$") a = 1 }
        if (p && a) found = 1 } END { exit !found }'
}

say start
modprobe ice || fail "modprobe ice"
wait_for 1200 netdev_of "$A_BDF" || fail "ice made no netdev for $A_BDF"
wait_for 1200 netdev_of "$B_BDF" || fail "ice made no netdev for $B_BDF"
udevadm settle --timeout=60 2>/dev/null
A_DEV="$(netdev_of "$A_BDF")"
B_DEV="$(netdev_of "$B_BDF")"
say netdevs a="$A_DEV" a_mac="$(cat "/sys/class/net/$A_DEV/address")" b="$B_DEV" b_mac="$(cat "/sys/class/net/$B_DEV/address")"
ip addr add "$A_IP/24" dev "$A_DEV" || fail "ip addr add $A_IP"
ip addr add "$B_IP/24" dev "$B_DEV" || fail "ip addr add $B_IP"
ip link set "$A_DEV" up || fail "ip link set $A_DEV up"
ip link set "$B_DEV" up || fail "ip link set $B_DEV up"
carrier() { [ "$(cat "/sys/class/net/$1/carrier" 2>/dev/null)" = 1 ]; }
wait_for 300 carrier "$A_DEV" || fail "no carrier on $A_DEV"
wait_for 300 carrier "$B_DEV" || fail "no carrier on $B_DEV"
for k in all "$A_DEV" "$B_DEV"; do
    sysctl -qw "net.ipv4.conf.$k.accept_local=1" "net.ipv4.conf.$k.rp_filter=0" || fail "sysctl $k"
done
ip rule add pref 10 from "$A_IP" to "$B_IP" iif lo lookup 100 || fail "ip rule A to B"
ip route add "$B_IP" dev "$A_DEV" table 100 || fail "ip route A to B"
ip rule add pref 11 from "$B_IP" to "$A_IP" iif lo lookup 101 || fail "ip rule B to A"
ip route add "$A_IP" dev "$B_DEV" table 101 || fail "ip route B to A"
ip rule add pref 20 lookup local && ip rule del pref 0 lookup local || fail "moving the local table"
say netdevs_up a="$A_DEV" b="$B_DEV"

for bdf in "$A_BDF" "$B_BDF"; do
    devlink dev param set "pci/$bdf" name enable_roce value false cmode runtime || fail "devlink $bdf enable_roce"
    devlink dev param set "pci/$bdf" name enable_iwarp value true cmode runtime || fail "devlink $bdf enable_iwarp"
done
modprobe irdma || fail "modprobe irdma"
wait_for 600 ibdev_of "$A_BDF" || fail "irdma registered no ib device for $A_BDF"
wait_for 600 ibdev_of "$B_BDF" || fail "irdma registered no ib device for $B_BDF"
udevadm settle --timeout=60 2>/dev/null
active() { grep -q ACTIVE "/sys/class/infiniband/$(ibdev_of "$1")/ports/1/state"; }
wait_for 300 active "$A_BDF" || fail "port 1 of $(ibdev_of "$A_BDF") is not ACTIVE"
wait_for 300 active "$B_BDF" || fail "port 1 of $(ibdev_of "$B_BDF") is not ACTIVE"
A_IB="$(ibdev_of "$A_BDF")"
B_IB="$(ibdev_of "$B_BDF")"
say irdma a="$A_IB" b="$B_IB" node_type="$(tr ' ' _ <"/sys/class/infiniband/$A_IB/node_type")" \
    links="$(rdma link show 2>/dev/null | grep -c '^link ')"

# PATH SERVER_IP CLIENT_BIND: loop (A to itself) or cross (A to B)
paths="loop:$A_IP:$A_IP cross:$B_IP:$A_IP"

for p in $paths; do
    path="${p%%:*}"; rest="${p#*:}"; server="${rest%%:*}"; bind="${rest#*:}"
    rping -s -a "$server" -C 10 -V >/tmp/rping-server.log 2>&1 &
    spid=$!
    wait_for 100 listening 7174 "$spid" || say no-listener port=7174 pid="$spid"
    timeout 120 rping -c -a "$server" -I "$bind" -C 10 -V -v >/tmp/rping-client.log 2>&1
    crc=$?
    wait "$spid"
    src=$?
    say rping path="$path" rc="$crc" server_rc="$src" \
        pings="$(grep -c '^ping data' /tmp/rping-client.log)"
done

for p in $paths; do
    path="${p%%:*}"; rest="${p#*:}"; server="${rest%%:*}"; bind="${rest#*:}"
    ucmatose -b "$server" -c "$CONNECTIONS" >/tmp/ucmatose-server.log 2>&1 &
    spid=$!
    wait_for 100 listening 7471 "$spid" || say no-listener port=7471 pid="$spid"
    started=$(uptime_s)
    timeout 300 ucmatose -s "$server" -b "$bind" -c "$CONNECTIONS" >/tmp/ucmatose-client.log 2>&1
    crc=$?
    ended=$(uptime_s)
    wait "$spid"
    src=$?
    say ucmatose path="$path" rc="$crc" server_rc="$src" connections="$CONNECTIONS" \
        seconds="$(echo "$started $ended" | awk '{printf "%.2f", $2 - $1}')"
done

# perftest's result line: bw tools "#bytes #iterations BW peak[MB/sec] BW average[MB/sec] MsgRate[Mpps]"; lat tools
# "#bytes #iterations t_min t_max t_typical t_avg ..." (usec): the average bandwidth, the typical latency. perftest
# gives Intel devices a default inline size of 220 (write) and 236 (send) bytes for its latency tests, above irdma's
# 101 (user.h IRDMA_MAX_INLINE_DATA_SIZE, which libirdma's create QP checks): on a real E810 too those runs fail
# with EINVAL unless -I says less, so the latency tools run with -I 96.
for p in $paths; do
    path="${p%%:*}"; rest="${p#*:}"; server="${rest%%:*}"; bind="${rest#*:}"
    if [ "$path" = loop ]; then sdev="$A_IB"; else sdev="$B_IB"; fi
    for tool in ib_write_bw ib_read_bw ib_send_bw ib_write_lat ib_read_lat ib_send_lat; do
        case "$tool" in ib_write_lat | ib_send_lat) inline="-I 96" ;; *) inline="" ;; esac
        "$tool" -R -d "$sdev" -n "$ITERS" $inline >/tmp/perftest-server.log 2>&1 &
        spid=$!
        wait_for 100 listening 18515 "$spid" || say no-listener port=18515 pid="$spid"
        timeout 120 "$tool" -R -d "$A_IB" --source_ip "$bind" -n "$ITERS" $inline "$server" \
            >/tmp/perftest-client.log 2>&1
        crc=$?
        timeout 30 sh -c "wait $spid" 2>/dev/null
        kill "$spid" 2>/dev/null
        wait "$spid" 2>/dev/null
        line="$(grep -E '^ *[0-9]+ +[0-9]+ ' /tmp/perftest-client.log | tail -n 1)"
        case "$tool" in
            *_bw) value="$(echo "$line" | awk '{print $4}')"; unit=MB/s ;;
            *) value="$(echo "$line" | awk '{print $5}')"; unit=usec ;;
        esac
        say perftest path="$path" tool="$tool" rc="$crc" value="${value:-none}" unit="$unit"
        [ "$crc" = 0 ] || sed 's/^/one-adapter: perftest-client: /' /tmp/perftest-client.log | tail -n 12
    done
done

# rdma-core's tests as Debian ships them (some files gzipped in the package's documentation)
rm -rf /tmp/rdma-core-tests
cp -r /usr/share/doc/rdma-core/tests /tmp/rdma-core-tests || fail "no rdma-core tests in /usr/share/doc/rdma-core/tests"
gunzip -f /tmp/rdma-core-tests/*.gz 2>/dev/null
for mode in default gid0; do
    if [ "$mode" = gid0 ]; then extra="--gid 0"; else extra=""; fi
    echo "one-adapter: begin rdma-core $mode"
    (cd /tmp/rdma-core-tests && timeout 600 python3 run_tests.py --dev "$(ibdev_of "$A_BDF")" $extra -v 2>&1)
    rc=$?
    echo "one-adapter: end rdma-core $mode rc=$rc"
done

say after a="$(ibdev_of "$A_BDF")" b="$(ibdev_of "$B_BDF")"
echo "one-adapter: begin dmesg"
dmesg | grep -E ' (ice|irdma|infiniband)[ :]|BUG:|Oops|Call Trace|blocked for more than|UBSAN'
echo "one-adapter: end dmesg"
say ok
exit 0
