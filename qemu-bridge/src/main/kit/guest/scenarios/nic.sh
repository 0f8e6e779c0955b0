# nic.sh: the guest's NIC and its iWARP device for the scenarios that talk to the hosted node, on either NIC the
# host attaches (sourced by those scenarios; not a scenario of its own). Kernel command line word:
#   irdma_emu.nic=virtio  (default) eth0 is the virtio-net NIC the node serves over vhost-user; siw on it
#   irdma_emu.nic=e810    the emulated E810 physical function over vfio-user (the kit's e810 flavour): ice's
#                         netdev, and the stock irdma.ko in iWARP mode on it; the node is on the E810's wire
# nic_up ADDRESS4/LEN [ADDRESS6/LEN]  brings the NIC up with the addresses; sets NIC (the netdev's name)
# rdma_up                             the iWARP device on NIC; sets RDMA_DEV (siw0 or the irdma device)
# local_siw ADDRESS4/LEN              a second siw device, siw1, on a dummy netdev inside the guest (virtio-net's
#                                     kernel only: the in-guest figures that the model's are compared with)
# await_carrier TRIES WHEN            NIC has carrier within TRIES tenths of a second (fails naming WHEN)
# reach ADDRESS TRIES FAILURE         ADDRESS answers a ping within TRIES tries of a second; sets tries
# vlan_up DEV ID PCP ADDRESS4/LEN     an 802.1Q netdev DEV over NIC, every egress priority mapped to PCP
# kernel_lines, errors_since MARK     the kernel log's length now; ice's and irdma's error lines after line MARK
# ucmatose_verdict NAME CODE WHAT     the variant's ucmatose log and field NAME_ucmatose; fails unless it completed
# no_errors_since NAME MARK           field NAME_errors; fails when ice or irdma logged errors after line MARK
# ucmatose_round NAME MS              the logs of a round of PROCESSES ucmatose runs of EACH connections: fields
#                                     NAME_ms, NAME_rate, NAME_complete; sets complete
# Fields: nic (virtio or e810), nic_name, nic_up_ms (guest uptime when the NIC had carrier), and for e810 e810_bdf,
# ice_ms, irdma_ms, rdma_dev, transport.
IP=/sbin/ip
NIC_KIND="$(param irdma_emu.nic || echo virtio)"
case "$NIC_KIND" in virtio | e810) ;; *) fail "irdma_emu.nic must be virtio or e810: $NIC_KIND" ;; esac
field nic "$NIC_KIND"
NIC=""
RDMA_DEV=""
E810_BDF=""

nic_ms() { awk '{printf "%d", $1 * 1000}' /proc/uptime; }

# e810_probe: ice binds the E810 function (ice_devids.h: 8086:1591..159b) and makes its netdev; sets NIC
e810_probe() {
    step ice
    [ "${FLAVOUR:-}" = e810 ] || fail "irdma_emu.nic=e810 needs the kit's e810 flavour (Linux 7.3); this is $KVER"
    for d in /sys/bus/pci/devices/*; do
        [ "$(cat "$d/vendor" 2>/dev/null)" = 0x8086 ] || continue
        case "$(cat "$d/device")" in 0x1591 | 0x1592 | 0x1593 | 0x1599 | 0x159a | 0x159b) E810_BDF="${d##*/}"; break ;; esac
    done
    [ -n "$E810_BDF" ] || fail "no E810 function (8086:1591..159b) on the PCI bus"
    field e810_bdf "$E810_BDF"
    started=$(nic_ms)
    run modprobe ice
    tries=0
    until [ -n "$NIC" ]; do
        for n in /sys/bus/pci/devices/"$E810_BDF"/net/*; do [ -e "$n" ] && NIC="${n##*/}"; done
        [ -n "$NIC" ] && break
        tries=$((tries + 1))
        [ "$tries" -le 40 ] || fail "ice made no netdev for $E810_BDF in 20 s"
        sleep 0.5
    done
    field ice_ms "$(($(nic_ms) - started))"
    dmesg | grep -E '(^|\] )ice( |:)'
}

await_carrier() { # TRIES WHEN: NIC's carrier within TRIES tenths of a second
    tries=0
    until [ "$(cat "/sys/class/net/$NIC/carrier" 2>/dev/null)" = 1 ]; do
        tries=$((tries + 1))
        [ "$tries" -le "$1" ] || fail "$NIC has no carrier 10 s after $2"
        sleep 0.1
    done
}

mtu_change() { # MTU: set NIC's MTU and wait until irdma has taken it, so that a connection made next gets its MSS.
    # ice hands irdma the new MTU from its service task (ice_main.c: ice_change_mtu only sets ICE_FLAG_MTU_CHANGED;
    # the next ice_service_task run, about a second later, sends IIDC_RDMA_EVENT_AFTER_MTU_CHANGE), and
    # icrdma_if.c's event handler logs "new MTU = N" at debug level just before it applies it. Dynamic debug shows
    # that line; without it (a kernel built without CONFIG_DYNAMIC_DEBUG) the wait is three service periods.
    watched=no
    for ctl in /proc/dynamic_debug/control /sys/kernel/debug/dynamic_debug/control; do
        if [ -w "$ctl" ] && echo 'module irdma file icrdma_if.c +p' >"$ctl" 2>/dev/null; then
            watched=yes
            break
        fi
    done
    run $IP link set "$NIC" mtu "$1"
    await_carrier 100 "its MTU became $1"
    if [ "$watched" = no ]; then
        field irdma_mtu_wait timed
        sleep 3
        return
    fi
    tries=0
    until dmesg | grep -q "new MTU = $1\$"; do
        tries=$((tries + 1))
        [ "$tries" -le 300 ] || fail "irdma did not take MTU $1 within 30 s of ice's change"
        sleep 0.1
    done
    field irdma_mtu_wait "$((tries * 100))ms"
}

reach() { # ADDRESS TRIES FAILURE: ADDRESS answers a ping (ARP or Neighbor Discovery done), else fail FAILURE
    tries=0
    until ping -c 1 -W 1 "$1" >/dev/null 2>&1; do
        tries=$((tries + 1))
        [ "$tries" -le "$2" ] || fail "$3"
    done
}

nic_up() { # ADDRESS4/LEN [ADDRESS6/LEN]
    if [ "$NIC_KIND" = e810 ]; then
        e810_probe
    else
        NIC=eth0
    fi
    field nic_name "$NIC"
    step "$NIC"
    run $IP addr add "$1" dev "$NIC"
    # nodad: usable at once (duplicate address detection would hold the address back for a second)
    [ -n "${2:-}" ] && run $IP -6 addr add "$2" dev "$NIC" nodad
    run $IP link set "$NIC" up
    [ "$NIC_KIND" = e810 ] && await_carrier 20 "it was set up"
    field nic_up_ms "$(nic_ms)"
}

rdma_up() {
    step rdma-link
    if [ "$NIC_KIND" = virtio ]; then
        run rdma link add siw0 type siw netdev "$NIC"
        RDMA_DEV=siw0
    else
        # E810 starts in RoCEv2; ice_devlink_enable_iw_validate refuses iWARP while RoCE is on: RoCE off first
        run devlink dev param set "pci/$E810_BDF" name enable_roce value false cmode runtime
        run devlink dev param set "pci/$E810_BDF" name enable_iwarp value true cmode runtime
        started=$(nic_ms)
        run modprobe irdma
        tries=0
        until [ "$(rdma link show 2>/dev/null | grep -c '^link ')" -ge 1 ]; do
            tries=$((tries + 1))
            [ "$tries" -le 40 ] || fail "no rdma link 20 s after modprobe irdma"
            sleep 0.5
        done
        field irdma_ms "$(($(nic_ms) - started))"
        mdev -s 2>/dev/null
        RDMA_DEV="$(rdma link show | sed -n 's/^link \([^/]*\)\/.*/\1/p' | head -n 1)"
        dmesg | grep -E '(^|\] )irdma( |:)'
        field transport "$(ibv_devinfo -d "$RDMA_DEV" 2>&1 | sed -n 's/^[[:space:]]*transport:[[:space:]]*\([A-Za-z]*\).*/\1/p' | head -n 1)"
    fi
    field rdma_dev "$RDMA_DEV"
}

local_siw() { # ADDRESS4/LEN
    step local-netdev
    # the dummy module makes dummy0 itself (its numdummies parameter defaults to 1)
    $IP link show dummy0 >/dev/null 2>&1 || run $IP link add dummy0 type dummy
    run $IP link set dummy0 address 02:00:00:00:00:01
    run $IP addr add "$1" dev dummy0
    run $IP link set dummy0 up
    run rdma link add siw1 type siw netdev dummy0
}

vlan_up() { # DEV ID PCP ADDRESS4/LEN: an 802.1Q netdev over NIC, every egress priority mapped to PCP
    run modprobe 8021q
    run $IP link add link "$NIC" name "$1" type vlan id "$2" \
        egress-qos-map 0:$3 1:$3 2:$3 3:$3 4:$3 5:$3 6:$3 7:$3
    run $IP addr add "$4" dev "$1"
    run $IP link set "$1" up
}

# kernel_lines: how many lines the kernel's log holds now (a variant looks at what came after)
kernel_lines() { dmesg -r | wc -l; }

# errors_since MARK: ice's and irdma's lines of level 0..3 (emerg..err) after line MARK of the kernel's log
errors_since() {
    dmesg -r | tail -n +"$(($1 + 1))" | grep -E '^<[0-3]>' | grep -E '(^<[0-7]>|[] ])(ice|irdma)[0-9]*[ :]' || true
}

ucmatose_verdict() { # NAME CODE WHAT: /tmp/ucmatose-NAME.log on the console, NAME_ucmatose complete or failed
    cat /tmp/ucmatose-$1.log
    if [ "$2" = 0 ] && grep -q '^return status 0$' /tmp/ucmatose-$1.log; then
        field "${1}_ucmatose" complete
    else
        field "${1}_ucmatose" failed
        fail "$1: $3 exited $2"
    fi
}

no_errors_since() { # NAME MARK: ice's and irdma's error lines since MARK on the console, their count NAME_errors
    errors="$(errors_since "$2")"
    [ -n "$errors" ] && echo "$errors"
    field "${1}_errors" "$(printf '%s' "$errors" | grep -c .)"
    [ -z "$errors" ] || fail "$1: ice or irdma logged errors"
}

ucmatose_round() { # NAME MS: /tmp/ucmatose-NAME-1..PROCESSES.log on the console; complete counts "return status 0"
    complete=0
    i=1
    while [ "$i" -le "$PROCESSES" ]; do
        cat "/tmp/ucmatose-$1-$i.log"
        grep -q '^return status 0$' "/tmp/ucmatose-$1-$i.log" && complete=$((complete + 1))
        i=$((i + 1))
    done
    field "${1}_ms" "$2"
    field "${1}_rate" "$(awk -v n=$((PROCESSES * EACH)) -v t="$2" 'BEGIN { printf "%.0f", n * 1000 / (t > 0 ? t : 1) }')"
    field "${1}_complete" "$complete/$PROCESSES"
}
