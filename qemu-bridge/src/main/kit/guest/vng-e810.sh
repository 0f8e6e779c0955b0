#!/bin/sh
# The guest side of the README's virtme-ng example (vng --exec), on the host's own userspace as virtme-ng shares it:
# loads the stock ice.ko, waits for the netdev of the E810 function `irdma-emu serve` attached, gives it 192.0.2.2/24
# and pings the hosted node (192.0.2.1), switches the function to iWARP through devlink (E810 starts in RoCEv2:
# RoCE off first, as ice_devlink_enable_iw_validate demands), loads the stock irdma.ko and waits for its ib device.
# Each step prints one line "vng-e810: EVENT key=value ... uptime=SECONDS" (the guest's /proc/uptime); the last is
# "vng-e810: ok", or "vng-e810: fail REASON" with exit status 1. Then ice's and irdma's kernel messages.
#
# Boot with modprobe.blacklist=ice,irdma: udev's coldplug would load both from the function's modalias (irdma in
# RoCEv2 mode); blacklisted aliases leave the loading, and its timing, to this script (modprobe by name ignores it).

uptime_s() { cut -d' ' -f1 /proc/uptime; }
say() { echo "vng-e810: $* uptime=$(uptime_s)"; }
fail() {
    echo "vng-e810: fail $*"
    dmesg | grep -E ' (ice|irdma|infiniband)[ :]|BUG:|Oops|Call Trace' | tail -n 40
    exit 1
}

say start
modprobe ice || fail "modprobe ice"
say ice_loaded

# the netdev ice registers for the function (named by udev, enp1s0np0 or the like): up to 120 s under TCG
n=""
tries=0
while [ -z "$n" ]; do
    for d in /sys/bus/pci/drivers/ice/0000:*/net/*; do [ -e "$d" ] && n="$d" && break; done
    [ -n "$n" ] && break
    tries=$((tries + 1))
    [ "$tries" -le 600 ] || fail "ice bound no function with a netdev"
    sleep 0.2
done
# udev renames it (eth0 to enp1s0np0): the name once udev has handled the new netdev's events
udevadm settle --timeout=60 2>/dev/null
bdf="$(basename "$(dirname "$(dirname "$n")")")"
for d in "/sys/bus/pci/drivers/ice/$bdf/net/"*; do n="$d"; done
[ -e "$n/address" ] || fail "the netdev of $bdf is gone"
dev="${n##*/}"
say netdev dev="$dev" bdf="$bdf" mac="$(cat "$n/address")"
ip addr add 192.0.2.2/24 dev "$dev" || fail "ip addr add"
ip link set "$dev" up || fail "ip link set up"
tries=0
until [ "$(cat "/sys/class/net/$dev/carrier" 2>/dev/null)" = 1 ]; do
    tries=$((tries + 1))
    [ "$tries" -le 300 ] || fail "no carrier on $dev"
    sleep 0.1
done
say netdev_up dev="$dev" operstate="$(cat "/sys/class/net/$dev/operstate")"

replies="$(busybox ping -c 3 -W 5 192.0.2.1 | sed -n 's/.* \([0-9]*\) packets received.*/\1/p')"
say ping target=192.0.2.1 replies="${replies:-0}"
[ "${replies:-0}" -ge 1 ] || fail "the hosted node did not answer"

devlink dev param set "pci/$bdf" name enable_roce value false cmode runtime || fail "devlink enable_roce false"
devlink dev param set "pci/$bdf" name enable_iwarp value true cmode runtime || fail "devlink enable_iwarp true"
modprobe irdma || fail "modprobe irdma"
say irdma_loaded
# the ib device of the function, read anew each time: on a host with rdma-core, its udev rule (rdma_rename
# NAME_FALLBACK) renames irdma0 to iwp1s0 right after it registers, so a name read once goes stale
ibdev() { for d in "/sys/bus/pci/devices/$bdf/infiniband/"*; do [ -e "$d" ] && echo "${d##*/}" && return 0; done; return 1; }
tries=0
until ibdev >/dev/null; do
    tries=$((tries + 1))
    [ "$tries" -le 600 ] || fail "irdma registered no ib device for $bdf"
    sleep 0.1
done
udevadm settle --timeout=60 2>/dev/null
ib="$(ibdev)"
say irdma_registered ibdev="$ib" node_type="$(tr ' ' _ <"/sys/class/infiniband/$ib/node_type")"
tries=0
until grep -q ACTIVE "/sys/class/infiniband/$(ibdev)/ports/1/state" 2>/dev/null; do
    tries=$((tries + 1))
    [ "$tries" -le 300 ] || fail "port 1 of $(ibdev) is not ACTIVE"
    sleep 0.1
done
ib="$(ibdev)"
say irdma_active ibdev="$ib" port_state="$(tr ' ' _ <"/sys/class/infiniband/$ib/ports/1/state")" \
    link="$(rdma link show 2>/dev/null | head -n 1 | tr ' ' _)"
say ok
dmesg | grep -E ' (ice|irdma|infiniband)[ :]|BUG:|Oops|Call Trace'
exit 0
