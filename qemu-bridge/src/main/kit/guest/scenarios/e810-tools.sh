# e810-tools: the everyday tools a developer points at an E810, through the stock ice.ko of the kit's e810 flavour
# (Linux 7.3) on one emulated E810 whose cable ends at the hosted node (192.0.2.1: ARP and echo). ice comes up with
# its netdev at 192.0.2.2/24 and pings the node; then, each a step whose kernel messages must be free of ice
# failures and each followed by a ping to show the LAN path still works:
#   ethtool -i   driver, firmware-version (NVM, EETRACK, OROM) as ice formats them
#   ethtool -p   the identify LED for one second (set_port_id_led 0x06E9 blink, then original)
#   ethtool -m   the module's EEPROM (sff_eeprom 0x06EE): a QSFP28 identifier, SFF-8636 fields
#   ethtool -t   online (link) and offline (register, EEPROM: nvm_checksum 0x0706; interrupt: SWINT on the OICR
#                vector; loopback: set_mac_lb 0x0620 and 32 frames back on a loopback VSI; link), each result 0
#   ethtool -k/-K, -g/-G, -l/-L, -S   offloads (VLAN stripping off and on: update_vsi), ring sizes (512, then back:
#                the queues rebuilt), channels (2 combined and back when the guest has two CPUs: the VSI rebuilt with its RSS LUT) and the
#                statistics (the rings' packet counts moved with the pings; the hardware counters are not modelled)
# Debian 12's ethtool 6.1 shows "TCP data split" with -g but cannot set it, so header split is not driven here.
# Fields: fw (ethtool -i's firmware-version), module (identifier), selftest_online/offline (PASS or FAIL) and each
# offline result (st_register, st_eeprom, st_interrupt, st_loopback, st_link).
begin() { echo "IRDMA-EMU-BEGIN $1"; }
end() { echo "IRDMA-EMU-END $1"; }
is_e810() { # VENDOR DEVICE (sysfs form): ice_devids.h's E810 physical functions
    [ "$1" = 0x8086 ] || return 1
    case "$2" in 0x1591 | 0x1592 | 0x1593 | 0x1599 | 0x159a | 0x159b) return 0 ;; esac
    return 1
}
# what every probe of ice on the model says, none of it a failure of a step (as e810-lifecycle lists them)
PROBE_NOTES='firmware: failed to load intel/ice/ddp/ice-[0-9a-f]*\.pkg|Failed to apply Tx scheduling configuration, err -EOPNOTSUPP|could not initialize flow director|Failed to add filter\. Flow director filters on each port must have the same input set|Error initializing DCB -95|DCB init failed|Failed to remove Rx LLDP rule on VSI 0 error: -2'

step_messages() { # STEP: the step's kernel messages (the ring is cleared after), failing on ice errors
    msgs="$(dmesg -c)"
    begin "dmesg-$1"
    echo "$msgs"
    end "dmesg-$1"
    bad="$(echo "$msgs" | grep -E '(^|\] )ice[ :]' | grep -iE 'fail|error' | grep -vE "$PROBE_NOTES")"
    [ -z "$bad" ] || fail "$1: $(echo "$bad" | head -n 1)"
}

carrier() { # within 10 s
    tries=0
    until [ "$(cat "/sys/class/net/$DEV/carrier" 2>/dev/null)" = 1 ]; do
        tries=$((tries + 1))
        [ "$tries" -le 20 ] || fail "$DEV has no carrier 10 s after $1"
        sleep 0.5
    done
}

node_answers() { # WHEN: the hosted node answers three pings
    out="$(ping -c 3 -W 5 192.0.2.1 2>&1)" || fail "no answer from 192.0.2.1 $1: $(echo "$out" | tail -n 2)"
}

step flavour
dmesg -c >/dev/null
[ "${FLAVOUR:-}" = e810 ] || fail "e810-tools needs the kit's e810 flavour (Linux 7.3 initramfs); this is kernel $KVER"
BDF=""
for d in /sys/bus/pci/devices/*; do
    [ -e "$d/vendor" ] || continue
    is_e810 "$(cat "$d/vendor")" "$(cat "$d/device")" && { BDF="${d##*/}"; break; }
done
[ -n "$BDF" ] || fail "no E810 function (8086:1591..159b) on the PCI bus"
field e810 "$BDF"

step probe
run modprobe ice
DEV=""
for n in /sys/bus/pci/devices/"$BDF"/net/*; do [ -e "$n" ] && DEV="${n##*/}"; done
[ -n "$DEV" ] || fail "ice made no netdev for $BDF"
field dev "$DEV"
run ip link set "$DEV" up
carrier "ip link set up"
run ip addr add 192.0.2.2/24 dev "$DEV"
node_answers "after the probe"
step_messages probe

step info
out="$(ethtool -i "$DEV" 2>&1)" || fail "ethtool -i exited $?: $out"
begin ethtool-i
echo "$out"
end ethtool-i
echo "$out" | grep -q '^driver: ice$' || fail "ethtool -i names no ice driver"
field fw "$(echo "$out" | sed -n 's/^firmware-version: //p')"
step_messages info

step identify
run ethtool -p "$DEV" 1
node_answers "after ethtool -p"
step_messages identify

step module
out="$(ethtool -m "$DEV" 2>&1)" || fail "ethtool -m exited $?: $out"
begin ethtool-m
echo "$out"
end ethtool-m
echo "$out" | grep -qE 'Identifier[[:space:]]*:[[:space:]]*0x11 \(QSFP28\)' || fail "ethtool -m shows no QSFP28 identifier"
field module QSFP28
field module_vendor "$(echo "$out" | sed -n 's/^[[:space:]]*Vendor name[[:space:]]*: //p' | head -n 1)"
step_messages module

selftest() { # MODE: ethtool -t DEV MODE, its output in a block; the verdict to selftest_MODE
    out="$(ethtool -t "$DEV" "$1" 2>&1)"
    rc=$?
    begin "ethtool-t-$1"
    echo "$out"
    end "ethtool-t-$1"
    verdict="$(echo "$out" | sed -n 's/^The test result is //p')"
    field "selftest_$1" "${verdict:-none}"
    [ "$rc" = 0 ] && [ "$verdict" = PASS ] || fail "ethtool -t $1 exited $rc: $(echo "$out" | tr '\n' ' ')"
}

result_of() { # NAME PATTERN: the offline result whose line starts with PATTERN, as field st_NAME
    v="$(echo "$out" | grep -E "^$2" | awk '{print $NF}')"
    field "st_$1" "${v:-none}"
    [ "$v" = 0 ] || fail "ethtool -t offline: $1 test result ${v:-none}"
}

step selftest-online
selftest online
step_messages selftest-online

step selftest-offline
selftest offline
result_of register 'Register test'
result_of eeprom 'EEPROM test'
result_of interrupt 'Interrupt test'
result_of loopback 'Loopback test'
result_of link 'Link test'
# ice_self_test opens the netdev again (ice_open): carrier, then the node answers as before
carrier "ethtool -t offline"
node_answers "after ethtool -t offline"
step_messages selftest-offline

step offloads
run ethtool -k "$DEV"
run ethtool -K "$DEV" rxvlan off
node_answers "after ethtool -K rxvlan off"
run ethtool -K "$DEV" rxvlan on
node_answers "after ethtool -K rxvlan on"
step_messages offloads

step rings
out="$(ethtool -g "$DEV" 2>&1)" || fail "ethtool -g exited $?: $out"
begin ethtool-g
echo "$out"
end ethtool-g
rx="$(echo "$out" | sed -n '/^Current hardware settings:/,$ s/^RX:[[:space:]]*//p' | head -n 1)"
tx="$(echo "$out" | sed -n '/^Current hardware settings:/,$ s/^TX:[[:space:]]*//p' | head -n 1)"
field rings "${rx:-none}/${tx:-none}"
run ethtool -G "$DEV" rx 512 tx 512
carrier "ethtool -G rx 512 tx 512"
node_answers "after ethtool -G rx 512 tx 512"
run ethtool -G "$DEV" rx "$rx" tx "$tx"
carrier "ethtool -G back"
node_answers "after ethtool -G back"
step_messages rings

step channels
out="$(ethtool -l "$DEV" 2>&1)" || fail "ethtool -l exited $?: $out"
begin ethtool-l
echo "$out"
end ethtool-l
combined="$(echo "$out" | sed -n '/^Current hardware settings:/,$ s/^Combined:[[:space:]]*//p' | head -n 1)"
most="$(echo "$out" | sed -n '/^Pre-set maximums:/,/^Current/ s/^Combined:[[:space:]]*//p' | head -n 1)"
field channels "${combined:-none}/${most:-none}"
# ice offers one queue pair per online CPU (ice_get_max_rxq): with one vCPU there is nothing to change
if [ "${most:-1}" -ge 2 ]; then
    run ethtool -L "$DEV" combined 2
    carrier "ethtool -L combined 2"
    node_answers "after ethtool -L combined 2"
    run ethtool -L "$DEV" combined "$combined"
    carrier "ethtool -L back"
    node_answers "after ethtool -L back"
fi
step_messages channels

step statistics
out="$(ethtool -S "$DEV" 2>&1)" || fail "ethtool -S exited $?: $out"
begin ethtool-S
echo "$out"
end ethtool-S
# the rings' counts (ice keeps them); the hardware's VSI and port counters (rx_unicast, *.nic: GLV_*, GLPRT_*)
# are not modelled yet and read 0, where a real E810 counts the pings too
rxp="$(echo "$out" | sed -n 's/^[[:space:]]*rx_queue_0_packets: //p' | head -n 1)"
field rx_queue_packets "${rxp:-none}"
field rx_unicast_nic "$(echo "$out" | sed -n 's/^[[:space:]]*rx_unicast.nic: //p' | head -n 1)"
[ -n "$rxp" ] && [ "$rxp" -gt 0 ] || fail "ethtool -S counts no packets on Rx queue 0 after the pings"
step_messages statistics
