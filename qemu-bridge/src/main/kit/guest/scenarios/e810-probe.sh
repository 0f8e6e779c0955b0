# e810-probe: the guest side of the emulated E810, on the kit's e810 flavour (Linux 7.3, its ice.ko and irdma.ko,
# the DDP package). Lists the PCI functions, loads ice (irdma is not loaded yet: no udev here loads a module on its
# own), shows ice's kernel messages and the netdevs; with an E810 function present, shows `devlink dev info` and
# switches each function to iWARP (enable_roce false, then enable_iwarp true; E810 starts in RoCEv2) before
# loading irdma; then `rdma link` and `ibv_devinfo`. Without an E810 ice and irdma still load (their module init
# runs, with nothing to bind), so the kit's modules, firmware path and tools are proven either way.
#
# Markers for the host: each block is framed by "IRDMA-EMU-BEGIN NAME" and "IRDMA-EMU-END NAME" lines (pci,
# dmesg-ice, ip-link, devlink, devlink-info, dmesg-irdma, rdma-link, ibv_devinfo, dmesg-warn), and one line gives
# the verdict:
# "IRDMA-EMU-E810 none" or "IRDMA-EMU-E810 present BDF...". Kernel command line words:
#   irdma_emu.e810=required   no E810 function is a failure (default: reported as e810=none)
#   irdma_emu.rdma=iwarp|roce|none   iwarp (default): devlink switch to iWARP, then irdma; roce: irdma as ice
#                             left it; none: ice only
#   irdma_emu.link=up         set each E810 netdev up (ice opens its LAN rings) and wait up to 10 s for carrier;
#                             the verdict goes to the field link (up, or no-carrier) with an ip-link-up block
begin() { echo "IRDMA-EMU-BEGIN $1"; }
end() { echo "IRDMA-EMU-END $1"; }
uptime_ms() { awk '{printf "%d", $1 * 1000}' /proc/uptime; }
# ice_devids.h: the E810 physical functions (E810-C backplane/QSFP/SFP, E810-XXV backplane/QSFP/SFP)
is_e810() { # VENDOR DEVICE (sysfs form, 0x....)
    [ "$1" = 0x8086 ] || return 1
    case "$2" in 0x1591 | 0x1592 | 0x1593 | 0x1599 | 0x159a | 0x159b) return 0 ;; esac
    return 1
}
RDMA_MODE="$(param irdma_emu.rdma || echo iwarp)"
case "$RDMA_MODE" in iwarp | roce | none) ;; *) fail "irdma_emu.rdma must be iwarp, roce or none: $RDMA_MODE" ;; esac

step flavour
[ "${FLAVOUR:-}" = e810 ] || fail "e810-probe needs the kit's e810 flavour (Linux 7.3 initramfs); this is kernel $KVER"
[ -f "/lib/modules/$KVER/modules.dep" ] || fail "no /lib/modules/$KVER/modules.dep"
field flavour e810

step pci
# lspci -nn's facts from sysfs: address, [class], [vendor:device], the bound driver
E810=""
begin pci
for d in /sys/bus/pci/devices/*; do
    [ -e "$d/vendor" ] || continue
    bdf="${d##*/}"
    vendor="$(cat "$d/vendor")"
    device="$(cat "$d/device")"
    class="$(cat "$d/class")"
    class="${class#0x}"
    echo "$bdf [${class%??}]: [${vendor#0x}:${device#0x}] (prog-if ${class#????}, rev $(sed 's/^0x//' "$d/revision" 2>/dev/null))"
    is_e810 "$vendor" "$device" && E810="$E810 $bdf"
done
end pci
E810="${E810# }"

step ice
[ -d /sys/module/irdma ] && fail "irdma was loaded before ice"
started=$(uptime_ms)
run modprobe ice
[ -d /sys/module/ice ] || fail "modprobe ice left no /sys/module/ice"
[ "$(cat /sys/module/ice/initstate 2>/dev/null)" = live ] || fail "ice is not live"
# nothing loads irdma on its own (no udev to answer ice's auxiliary device uevents): devlink can switch first
[ -d /sys/module/irdma ] && fail "irdma was loaded with ice, before devlink could switch the protocol"
field ice loaded
field ice_ms "$(($(uptime_ms) - started))"
begin dmesg-ice
dmesg | grep -E '(^|\] )ice( |:)'
end dmesg-ice

step ddp
# ice_main.c: request_firmware("intel/ice/ddp/ice.pkg") (E810_DDP, written by provision-kit.sh), after an
# "ice-<DSN>.pkg" next to it
[ -n "${E810_DDP:-}" ] || fail "/etc/irdma-emu-kit names no E810_DDP"
[ -f "/lib/firmware/$E810_DDP" ] || fail "no DDP package at /lib/firmware/$E810_DDP"
field ddp "$E810_DDP"
field ddp_target "$(readlink "/lib/firmware/$E810_DDP" || echo "${E810_DDP##*/}")"
field ddp_size "$(wc -c <"/lib/firmware/$E810_DDP" | tr -d ' ')"

step netdevs
begin ip-link
run ip link show
end ip-link

step e810
if [ -z "$E810" ]; then
    echo "IRDMA-EMU-E810 none"
    field e810 none
    [ "$(param irdma_emu.e810 || echo optional)" = required ] && fail "no E810 function (8086:1591..159b) on the PCI bus"
else
    echo "IRDMA-EMU-E810 present $E810"
    field e810 "$(echo "$E810" | tr ' ' ',')"
    for bdf in $E810; do
        driver=""
        [ -e "/sys/bus/pci/devices/$bdf/driver" ] && driver="$(basename "$(readlink "/sys/bus/pci/devices/$bdf/driver")")"
        [ "$driver" = ice ] || fail "ice did not bind $bdf (driver: ${driver:-none})"
    done
fi

if [ -n "$E810" ] && [ "$(param irdma_emu.link || echo down)" = up ]; then
    step link
    state=up
    for bdf in $E810; do
        for n in /sys/bus/pci/devices/"$bdf"/net/*; do
            [ -e "$n" ] || fail "ice made no netdev for $bdf"
            dev="${n##*/}"
            run ip link set "$dev" up
            tries=0
            until [ "$(cat "$n/carrier" 2>/dev/null)" = 1 ]; do
                tries=$((tries + 1))
                [ "$tries" -le 20 ] || { state=no-carrier; break; }
                sleep 0.5
            done
        done
    done
    begin ip-link-up
    run ip link show
    end ip-link-up
    field link "$state"
fi

step devlink
begin devlink
run devlink dev show
end devlink
field devlink ok
for bdf in $E810; do
    begin devlink-info
    run devlink dev info "pci/$bdf"
    end devlink-info
done

step irdma
if [ "$RDMA_MODE" != none ]; then
    if [ "$RDMA_MODE" = iwarp ]; then
        for bdf in $E810; do
            # ice_devlink_enable_iw_validate refuses iWARP while RoCE is on: RoCE off first
            run devlink dev param set "pci/$bdf" name enable_roce value false cmode runtime
            run devlink dev param set "pci/$bdf" name enable_iwarp value true cmode runtime
        done
    fi
    started=$(uptime_ms)
    run modprobe irdma
    [ "$(cat /sys/module/irdma/initstate 2>/dev/null)" = live ] || fail "irdma is not live after modprobe"
    field irdma loaded
    field irdma_ms "$(($(uptime_ms) - started))"
    begin dmesg-irdma
    dmesg | grep -E '(^|\] )irdma( |:)'
    end dmesg-irdma
fi
field rdma_mode "$RDMA_MODE"
field modules_loaded_ms "$(uptime_ms)"

step rdma
[ -e /dev/infiniband/rdma_cm ] || mdev -s 2>/dev/null
if [ -n "$E810" ] && [ "$RDMA_MODE" != none ]; then
    # irdma's ib device registers from its auxiliary probe: give it up to 20 s
    tries=0
    until [ "$(rdma link show 2>/dev/null | grep -c '^link ')" -ge 1 ]; do
        tries=$((tries + 1))
        [ "$tries" -le 40 ] || fail "no rdma link 20 s after modprobe irdma"
        sleep 0.5
    done
    mdev -s 2>/dev/null
fi
begin rdma-link
run rdma link show
end rdma-link
field rdma_links "$(rdma link show 2>/dev/null | grep -c '^link ')"
field rdma ok
begin ibv_devinfo
# with no device ibv_devinfo says "No IB devices found" and exits non-zero: a failure only with an E810
info="$(ibv_devinfo 2>&1)"
code=$?
echo "$info"
end ibv_devinfo
if [ -n "$E810" ] && [ "$RDMA_MODE" != none ]; then
    [ "$code" = 0 ] || fail "ibv_devinfo exited $code with an E810 present"
    field transport "$(echo "$info" | sed -n 's/^[[:space:]]*transport:[[:space:]]*\([A-Za-z]*\).*/\1/p' | head -n 1)"
fi
field ibv_devices "$(echo "$info" | grep -c '^hca_id:')"
# the PTP hardware clocks ice registered (ice_ptp_create_clock): their names, e.g. ice-0000:01:00.0-clk
field ptp_clocks "$(cat /sys/class/ptp/ptp*/clock_name 2>/dev/null | tr '\n' ',' | sed 's/,$//')"
# every ice and irdma kernel message of warning level or above (raw dmesg keeps the <level> prefix: 0 emerg .. 4
# warning), for the host's check against the lines a real E810 prints too (docs/e810.md)
begin dmesg-warn
dmesg -r | grep -E '^<[0-4]>(\[[^]]*\] ?)?(ice|irdma)( |:)'
end dmesg-warn
# how many raw lines carried a level prefix: proves the filter above read the format it expects
field dmesg_levels "$(dmesg -r | grep -c '^<[0-7]>')"
