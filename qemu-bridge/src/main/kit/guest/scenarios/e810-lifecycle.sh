# e810-lifecycle: the emulated E810's drivers through their lifecycle on one guest, on the kit's e810 flavour
# (Linux 7.3, stock ice.ko and irdma.ko). Boot 1: ice with its netdev up (LAN rings open, carrier) and irdma in
# iWARP mode as e810-probe brings them up, rping's server listening and gone again, then rmmod/modprobe irdma,
# enable_iwarp false/true through devlink (irdma's auxiliary device unplugged and plugged again), rmmod irdma and
# ice and both loaded again (ice probes the function a second time), `devlink dev reload` (driver_reinit, with
# irdma unloaded across it), a function reset through sysfs (ice's reset_prepare/reset_done around the PCI FLR:
# irdma unplugged, a PF reset, irdma plugged again), a PF reset that irdma asks for after a CQP op timed out (the
# host withholds one completion), a MAC change with `ip link set DEV address` and back, then `reboot -f`. Boot 2 (the same machine reset by QEMU, the
# same model): ice and irdma once more. Each step must leave irdma0 registered (transport iWARP, on ice's netdev) and
# the step's kernel messages free of ice failures and irdma errors.
#
# A dialogue with the host: at each checkpoint the scenario prints "IRDMA-EMU-CHECKPOINT NAME" and reads the
# host's answer "IRDMA-EMU-ACK NAME WORDS..." from the console (the host samples what the model holds meanwhile,
# so nothing moves while it looks); the answer goes to the field cp_NAME. The checkpoint "boot" answers the boot's
# number. Boot 1 ends with "IRDMA-EMU-BOOT scenario=e810-lifecycle status=ok boot=1 FIELDS" before it reboots;
# boot 2's fields are the result line's. Each step's kernel messages are framed "IRDMA-EMU-BEGIN dmesg-STEP".
begin() { echo "IRDMA-EMU-BEGIN $1"; }
end() { echo "IRDMA-EMU-END $1"; }
uptime_ms() { awk '{printf "%d", $1 * 1000}' /proc/uptime; }
# ice_devids.h: the E810 physical functions
is_e810() { # VENDOR DEVICE (sysfs form, 0x....)
    [ "$1" = 0x8086 ] || return 1
    case "$2" in 0x1591 | 0x1592 | 0x1593 | 0x1599 | 0x159a | 0x159b) return 0 ;; esac
    return 1
}

checkpoint() { # NAME: the marker, then the host's answer (ACK holds its words)
    echo "IRDMA-EMU-CHECKPOINT $1"
    while read -r -t 120 word name rest; do
        if [ "$word" = IRDMA-EMU-ACK ] && [ "$name" = "$1" ]; then
            ACK="$rest"
            field "cp_$1" "$ACK"
            return 0
        fi
    done
    fail "no answer from the host at checkpoint $1"
}

# What every probe of ice on the model says, none of it a failure of the step: ice_main.c ice_request_fw looks for
# the per-NIC package (ice-DSN.pkg) first; ice_init_tx_topology tells at info level that the NVM offers no Tx
# topology switching (ice_ddp.c ice_cfg_tx_topo: no TX_SCHED_TOPO_COMP_MODE capability); the model's function
# capabilities list flow director without serving it and leave out DCB (e810-probe-facts.md), so ice_init_fdir
# (whose default rules' profiles need update_pkg: ice_ethtool_fdir.c ice_fdir_set_hw_fltr_rule says "Failed to add
# filter" when the profile cannot be added) and ice_init_pf_dcb say they could not; and with DCB off ice never adds the Rx LLDP rule it then tries to
# remove when it releases the PF VSI (ice_lib.c ice_vsi_release: the FW LLDP agent flag is clear).
PROBE_NOTES='firmware: failed to load intel/ice/ddp/ice-[0-9a-f]*\.pkg|Failed to apply Tx scheduling configuration, err -EOPNOTSUPP|could not initialize flow director|Failed to add filter\. Flow director filters on each port must have the same input set|Error initializing DCB -95|DCB init failed|Failed to remove Rx LLDP rule on VSI 0 error: -2'

step_messages() { # STEP: the step's kernel messages (the ring is cleared after), failing on ice or irdma errors
    msgs="$(dmesg -c)"
    begin "dmesg-$1"
    echo "$msgs"
    end "dmesg-$1"
    bad="$(echo "$msgs" | grep -E '(^|\] )(ice|irdma)[ :]' | grep -iE 'fail|error' | grep -vE "$PROBE_NOTES")"
    [ -z "$bad" ] || fail "$1: $(echo "$bad" | head -n 1)"
}

netdev_of() { # BDF: ice's netdev for the function
    for n in /sys/bus/pci/devices/"$1"/net/*; do
        [ -e "$n" ] && { echo "${n##*/}"; return 0; }
    done
    return 1
}

ice_bound() { # BDF
    driver=""
    [ -e "/sys/bus/pci/devices/$1/driver" ] && driver="$(basename "$(readlink "/sys/bus/pci/devices/$1/driver")")"
    [ "$driver" = ice ] || fail "ice did not bind $1 (driver: ${driver:-none})"
    netdev_of "$1" >/dev/null || fail "ice made no netdev for $1"
}

link_up() { # BDF: ice's netdev up (ice opens its LAN rings: add_txqs, QRX_CTRL) with carrier within 10 s
    dev="$(netdev_of "$1")" || fail "no netdev for $1"
    run ip link set "$dev" up
    tries=0
    until [ "$(cat "/sys/class/net/$dev/carrier" 2>/dev/null)" = 1 ]; do
        tries=$((tries + 1))
        [ "$tries" -le 20 ] || fail "$dev has no carrier 10 s after ip link set up"
        sleep 0.5
    done
}

rdma_links() { rdma link show 2>/dev/null | grep -c '^link '; }

await_listening() { # WHEN LATE: rping -s ($RPING, its output in /tmp/rping.log) listening within 20 s; WHEN and
    # LATE finish the failure's words for a server that ended ("rping -s endedWHEN: ...") or does not listen yet
    tries=0
    until rdma resource show cm_id 2>/dev/null | grep -q LISTEN; do
        tries=$((tries + 1))
        kill -0 "$RPING" 2>/dev/null || fail "rping -s ended$1: $(cat /tmp/rping.log)"
        [ "$tries" -le 40 ] || fail "rping -s is not listening $2"
        sleep 0.5
    done
}

# ib_device's index: ib_core allocates it cyclically (device.c assign_name), so a device registered again gets a
# new one even when its name (irdma0) is the same
rdma_index() { rdma dev show 2>/dev/null | sed -n 's/^\([0-9][0-9]*\): irdma.*/\1/p' | head -n 1; }

iwarp_on() { # BDF: E810 starts in RoCEv2; ice_devlink_enable_iw_validate refuses iWARP while RoCE is on
    run devlink dev param set "pci/$1" name enable_roce value false cmode runtime
    run devlink dev param set "pci/$1" name enable_iwarp value true cmode runtime
}

rdma_up() { # WHAT [TRANSPORT]: irdma0 registered (iWARP unless told) on ice's netdev within 20 s
    want="${2:-iWARP}"
    tries=0
    until [ "$(rdma_links)" -ge 1 ]; do
        tries=$((tries + 1))
        [ "$tries" -le 40 ] || fail "$1: no rdma link 20 s after it"
        sleep 0.5
    done
    mdev -s 2>/dev/null
    links="$(rdma link show 2>&1)"
    echo "$links"
    dev="$(netdev_of "$BDF")" || fail "$1: no netdev"
    echo "$links" | grep -q "netdev $dev" || fail "$1: irdma's link is not on $dev"
    info="$(ibv_devinfo 2>&1)" || fail "$1: ibv_devinfo exited $?: $info"
    transport="$(echo "$info" | sed -n 's/^[[:space:]]*transport:[[:space:]]*\([A-Za-z]*\).*/\1/p' | head -n 1)"
    [ "$transport" = "$want" ] || fail "$1: ibv_devinfo says transport ${transport:-none}, not $want"
}

rdma_gone() { # WHAT: no rdma link left
    [ "$(rdma_links)" = 0 ] || fail "$1: an rdma link is still there"
}

timed() { # NAME: the time since STARTED as the field NAME_ms
    field "$1_ms" "$(($(uptime_ms) - STARTED))"
}

step flavour
dmesg -c >/dev/null
[ "${FLAVOUR:-}" = e810 ] || fail "e810-lifecycle needs the kit's e810 flavour (Linux 7.3 initramfs); this is kernel $KVER"
# the host's answers come on the console: no echo of them
stty -echo 2>/dev/null
checkpoint boot
BOOT="${ACK%% *}"
case "$BOOT" in 1 | 2) ;; *) fail "boot $BOOT: the scenario boots twice" ;; esac
field boot "$BOOT"

BDF=""
for d in /sys/bus/pci/devices/*; do
    [ -e "$d/vendor" ] || continue
    is_e810 "$(cat "$d/vendor")" "$(cat "$d/device")" && { BDF="${d##*/}"; break; }
done
[ -n "$BDF" ] || fail "no E810 function (8086:1591..159b) on the PCI bus"
field e810 "$BDF"

step probe
STARTED=$(uptime_ms)
run modprobe ice
ice_bound "$BDF"
link_up "$BDF"
iwarp_on "$BDF"
run modprobe irdma
rdma_up probe
timed probe
step_messages probe
if [ "$BOOT" = 2 ]; then
    checkpoint reprobed
    field second_boot ok
    return 0
fi
checkpoint probed

step listener
# a user of the RDMA CM comes and goes: rping's server listens on an address of ice's netdev (irdma's listen node:
# a quad-hash entry and its port in the APBVT), then is killed; the address goes again too
dev="$(netdev_of "$BDF")"
run ip addr add 10.9.9.1/24 dev "$dev"
rping -s -a 10.9.9.1 -p 7174 >/tmp/rping.log 2>&1 &
RPING=$!
await_listening "" "after 20 s"
rdma resource show cm_id
checkpoint listening
kill "$RPING"
wait "$RPING" 2>/dev/null
run ip addr del 10.9.9.1/24 dev "$dev"
step_messages listener
checkpoint listener-closed

step irdma-reload
STARTED=$(uptime_ms)
run rmmod irdma
[ -d /sys/module/irdma ] && fail "irdma still loaded after rmmod"
rdma_gone "rmmod irdma"
checkpoint irdma-removed
run modprobe irdma
rdma_up "modprobe irdma"
timed irdma_reload
step_messages irdma-reload
checkpoint irdma-reloaded

step iwarp-toggle
STARTED=$(uptime_ms)
# ice_devlink_enable_iw_set: false unplugs irdma's auxiliary device (irdma tears the function down), true plugs it
run devlink dev param set "pci/$BDF" name enable_iwarp value false cmode runtime
rdma_gone "enable_iwarp false"
checkpoint iwarp-off
run devlink dev param set "pci/$BDF" name enable_iwarp value true cmode runtime
rdma_up "enable_iwarp true"
timed iwarp_toggle
step_messages iwarp-toggle
checkpoint iwarp-on

step ice-reload
STARTED=$(uptime_ms)
run rmmod irdma
run rmmod ice
[ -d /sys/module/ice ] && fail "ice still loaded after rmmod"
checkpoint ice-removed
run modprobe ice
ice_bound "$BDF"
link_up "$BDF"
iwarp_on "$BDF"
run modprobe irdma
rdma_up "ice reload"
timed ice_reload
msgs="$(dmesg | grep -E 'DDP package')"
field ddp_reload "$(echo "$msgs" | tail -n 1 | sed 's/.*ice [^:]*: //' | cut -c1-60)"
step_messages ice-reload
checkpoint ice-reloaded

step devlink-reload
STARTED=$(uptime_ms)
# ice_devlink_reload_down/up with driver_reinit: ice_unload, then ice_load, whose new auxiliary device starts in
# RoCEv2 (ice_idc.c ice_init_rdma). The model serves iWARP only (irdma's RoCE QP1 is a UD QP it refuses), so irdma
# is unloaded across the reload and loaded again once devlink has switched the new device to iWARP.
run rmmod irdma
run devlink dev reload "pci/$BDF" action driver_reinit
ice_bound "$BDF"
link_up "$BDF"
iwarp_on "$BDF"
run modprobe irdma
rdma_up "devlink dev reload"
timed devlink_reload
step_messages devlink-reload
checkpoint devlink-reloaded

step function-reset
STARTED=$(uptime_ms)
# pci_reset_function: ice_pci_err_reset_prepare (irdma unplugged, ice_prepare_for_reset), the FLR, then
# ice_pci_err_reset_done -> ice_do_reset(PFR) and the rebuild, irdma plugged again
[ -e "/sys/bus/pci/devices/$BDF/reset" ] || fail "no reset method for $BDF"
field reset_method "$(cat "/sys/bus/pci/devices/$BDF/reset_method" 2>/dev/null | tr ' ' ',')"
echo 1 >"/sys/bus/pci/devices/$BDF/reset" || fail "the function reset of $BDF failed"
ice_bound "$BDF"
# ice's rebuild opens the rings of a netdev that was up
tries=0
until [ "$(cat "/sys/class/net/$(netdev_of "$BDF")/carrier" 2>/dev/null)" = 1 ]; do
    tries=$((tries + 1))
    [ "$tries" -le 20 ] || fail "no carrier 10 s after the function reset"
    sleep 0.5
done
rdma_up "function reset"
timed function_reset
step_messages function-reset
checkpoint function-reset

step cqp-timeout-reset
STARTED=$(uptime_ms)
# A PF reset that irdma asks for. At the checkpoint the host arms the model to withhold the CCQ completion of the
# next Manage APBVT op; rping's server then listens on a port of its own, for which irdma adds the port (hw.c
# irdma_add_apbvt, a waiting op). utils.c irdma_wait_event sees no progress for CQP_TIMEOUT_THRESHOLD polls of
# 10 ms, sets rf->reset and asks ice for a PF reset (icrdma_request_reset -> ice_rdma_request_reset, FUNC_RESET);
# the listen fails. ice's service task runs ice_do_reset(PFR): irdma unplugged (its remove skips the destroy ops
# once rf->reset is set, so the device's PF reset is what cleans up), PFGEN_CTRL.PFSWR, the rebuild, irdma plugged
# again under a new ib_device index.
dev="$(netdev_of "$BDF")"
before="$(rdma_index)"
[ -n "$before" ] || fail "no irdma device before the CQP timeout"
run ip addr add 10.9.9.1/24 dev "$dev"
checkpoint cqp-withhold
ARMED=$(uptime_ms)
rping -s -a 10.9.9.1 -p 7175 >/tmp/rping.log 2>&1 &
RPING=$!
tries=0
while kill -0 "$RPING" 2>/dev/null; do
    tries=$((tries + 1))
    [ "$tries" -le 60 ] || fail "rping -s still running 30 s after its listen's completion was withheld"
    sleep 0.5
done
rc=0
wait "$RPING" || rc=$?
[ "$rc" != 0 ] || fail "rping -s exited 0 though its listen could not complete: $(cat /tmp/rping.log)"
field timed_out_listen_ms "$(($(uptime_ms) - ARMED))"
dmesg | grep -q 'Requesting a reset' || fail "irdma did not ask for a reset after the CQP timeout"
tries=0
until now="$(rdma_index)" && [ -n "$now" ] && [ "$now" != "$before" ]; do
    tries=$((tries + 1))
    [ "$tries" -le 60 ] || fail "irdma was not registered again 30 s after it asked for a reset (index $before)"
    sleep 0.5
done
rdma_up "PF reset after a CQP timeout"
field rdma_index "$before-$now"
# and it works: the same listener now gets its quad-hash entry and APBVT port
rping -s -a 10.9.9.1 -p 7175 >/tmp/rping.log 2>&1 &
RPING=$!
await_listening " after the PF reset" "20 s after the PF reset"
kill "$RPING"
wait "$RPING" 2>/dev/null
run ip addr del 10.9.9.1/24 dev "$dev"
timed cqp_timeout_reset
# what this step says on purpose: irdma's report of the timed-out op (utils.c irdma_handle_cqp_op, status -110)
notes="$PROBE_NOTES"
PROBE_NOTES="$PROBE_NOTES|Manage APBV Table Entry Cmd Error.*status=-110"
step_messages cqp-timeout-reset
PROBE_NOTES="$notes"
checkpoint pf-reset

step mac-change
STARTED=$(uptime_ms)
# ip link set DEV address: ice_main.c ice_set_mac_address swaps the VSI's MAC filter and writes the address to the
# firmware (manage_mac_write with ICE_AQC_MAN_MAC_UPDATE_LAA_WOL; a refusal is logged "can't set MAC ... write to
# firmware failed", which step_messages catches). Then the permanent address back the same way; irdma stays.
dev="$(netdev_of "$BDF")"
perm="$(cat "/sys/class/net/$dev/address")"
laa=02:00:00:e8:10:2a
run ip link set "$dev" address "$laa"
now="$(cat "/sys/class/net/$dev/address")"
[ "$now" = "$laa" ] || fail "mac-change: $dev has $now, not $laa"
run ip link set "$dev" address "$perm"
now="$(cat "/sys/class/net/$dev/address")"
[ "$now" = "$perm" ] || fail "mac-change: $dev has $now, not its permanent $perm again"
rdma_up "MAC change"
field mac_change "$laa"
timed mac_change
step_messages mac-change
checkpoint mac-changed

step core-reset
STARTED=$(uptime_ms)
# ethtool --reset DEV with the shared irq, dma, filter, offload and ram flags is ice's core reset (ice_ethtool.c
# ice_ethtool_reset: ICE_ETHTOOL_CORER -> ice_schedule_reset(ICE_RESET_CORER)). ice_do_reset writes GLGEN_RTRIG's
# CORER bit; the device raises OICR GRST, ice_reset_subtask waits for GLGEN_RSTAT to read active again and
# rebuilds (the DDP package downloaded again); irdma is unplugged and plugged again under a new ib_device index.
dev="$(netdev_of "$BDF")"
before="$(rdma_index)"
[ -n "$before" ] || fail "no irdma device before the core reset"
run ethtool --reset "$dev" irq-shared dma-shared filter-shared offload-shared ram-shared
tries=0
until now="$(rdma_index)" && [ -n "$now" ] && [ "$now" != "$before" ]; do
    tries=$((tries + 1))
    [ "$tries" -le 60 ] || fail "irdma was not registered again 30 s after the core reset (index $before)"
    sleep 0.5
done
tries=0
until [ "$(cat "/sys/class/net/$(netdev_of "$BDF")/carrier" 2>/dev/null)" = 1 ]; do
    tries=$((tries + 1))
    [ "$tries" -le 20 ] || fail "no carrier 10 s after the core reset"
    sleep 0.5
done
rdma_up "core reset"
field core_reset_index "$before-$now"
timed core_reset
step_messages core-reset
checkpoint core-reset

step reboot
checkpoint before-reboot
echo 1 >/proc/sys/kernel/printk
echo
echo "IRDMA-EMU-BOOT scenario=$SCENARIO status=ok kernel=$KVER uptime_ms=$(uptime_ms)$FIELDS"
sync
reboot -f
sleep 10
fail "reboot -f returned"
