#!/usr/bin/env bash
# Provisions the guest kit the end-to-end tests boot: QEMU from Debian trixie-backports (unpacked, never
# installed), Debian 12's kernel and a subset of its modules, siw.ko built from Debian 12's linux-source, and an
# initramfs of Debian 12 userspace (busybox-static, rdma-core's tools with the siw and irdma providers, iproute2's
# rdma and devlink).
# The same kit holds the "e810" flavour (folder e810/, keys e810.* in kit.properties): Linux 7.3 from
# trixie-backports (its own vmlinuz and the closure of the modules ice.ko, irdma.ko, the RDMA core and virtio need,
# unpacked from the .debs), the E810 DDP package from trixie's firmware-intel-misc (non-free-firmware) at
# /lib/firmware/intel/ice/ddp/, and a second initramfs: the same userspace, init and scenarios, with those modules.
#
#   provision-kit.sh [--cache DIR] [--refresh]
#
#   --cache DIR   the project cache folder (default: the repository's .cache); the kit goes to DIR/kit/NAME/
#                 and DIR/kit/current points at it
#   --refresh     ask the archive for newer versions even when a complete kit is there
#   --prune       remove the other kit folders in DIR/kit (kept otherwise: other worktrees may boot them)
#
# Idempotent: a complete kit (kit.properties with complete=true and this recipe's digest) is reused without
# touching the network; a half-made kit is removed and rebuilt. Downloaded .debs stay in DIR/kit/debs, so a
# rebuild downloads only what changed. Prints progress lines on stderr and the kit folder on stdout.
#
# Needs: apt-get, dpkg-deb, tar, xz, gzip, make and gcc-12 (the compiler Debian 12's kernel was built with).
# Root is needed only when apt has no package lists at all (then it runs apt-get update once). The machine's apt
# sources are read (the archive it already uses), never changed: private apt configurations list the suites.
set -euo pipefail

HERE="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
CACHE="$ROOT/.cache"
REFRESH=0
PRUNE=0
while (($# > 0)); do
    case "$1" in
        --cache) CACHE="$2"; shift 2 ;;
        --refresh) REFRESH=1; shift ;;
        --prune) PRUNE=1; shift ;;
        -h | --help) sed -n '2,/^set -e/{/^#/p}' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "provision-kit: unknown argument: $1" >&2; exit 64 ;;
    esac
done

KITS="$CACHE/kit"
WORK="$KITS/work"
DEBS="$KITS/debs"
STARTED=$SECONDS
say() { printf 'kit: [%3ds] %s\n' "$((SECONDS - STARTED))" "$*" >&2; }
die() { printf 'kit: error: %s\n' "$*" >&2; exit 1; }

# The recipe: this script, the guest's init and its scenarios. A change to any of them makes a new kit.
RECIPE="$(cat "$HERE/provision-kit.sh" "$HERE/guest/init" "$HERE"/guest/scenarios/*.sh | sha256sum | cut -c1-12)"

# Debian 12 userspace for the initramfs, and the programs (with their shared libraries) taken from it.
USER_PACKAGES=(busybox-static rdmacm-utils ibverbs-providers ibverbs-utils libibverbs1 librdmacm1 iproute2 ethtool)
USER_PROGRAMS=(usr/bin/rping usr/bin/ucmatose usr/bin/ibv_devices usr/bin/ibv_devinfo usr/bin/rdma_server
    usr/bin/rdma_client usr/bin/rdma bin/ip sbin/devlink sbin/ethtool usr/bin/ibv_ud_pingpong)
# The e810 flavour: Linux 7.3 from trixie-backports (the newest linux-image-7.3.*-amd64 there). Init loads
# E810_BOOT_MODULES (virtio and the RDMA core); the e810 scenarios load ice and irdma with modprobe, from the
# modules.dep written here. Every module comes with the closure of its "depends=" entries. 8021q (with garp, mrp,
# stp and llc) is for the scenarios that run RDMA over a VLAN netdev on ice's (ip link add ... type vlan).
E810_KERNEL_SERIES=7.3
E810_BOOT_MODULES=(virtio_pci virtio_net ib_core ib_uverbs iw_cm ib_cm rdma_cm rdma_ucm)
E810_MODPROBE_MODULES=(ice irdma 8021q)
# ice's DDP package (ice_main.c ICE_DDP_PKG_FILE: request_firmware of "intel/ice/ddp/ice.pkg", after an
# "ice-<DSN>.pkg" of the same folder) and the package holding it
E810_DDP_DIR=intel/ice/ddp
E810_FIRMWARE_PACKAGE=firmware-intel-misc
# The kernel modules the guest loads, with what they need (from modules.dep); siw.ko comes on top.
GUEST_MODULES=(virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci failover net_failover
    virtio_net crc32c_generic libcrc32c ib_core ib_uverbs iw_cm ib_cm rdma_cm rdma_ucm dummy)

# ---- reuse ------------------------------------------------------------------------------------------------

complete_kit() { # DIR: true when DIR holds a complete kit of this recipe
    local p="$1/kit.properties"
    [[ -f $p ]] && grep -qx 'complete=true' "$p" && grep -qx "recipe=$RECIPE" "$p"
}

if ((REFRESH == 0)) && complete_kit "$KITS/current"; then
    say "reusing the kit in $(readlink -f "$KITS/current") (--refresh asks the archive for newer versions)"
    readlink -f "$KITS/current"
    exit 0
fi

mkdir -p "$KITS"
exec 8>"$KITS/.lock"
flock 8 # two provisioners at once: the second waits, then reuses what the first made
if ((REFRESH == 0)) && complete_kit "$KITS/current"; then
    say "reusing the kit in $(readlink -f "$KITS/current")"
    readlink -f "$KITS/current"
    exit 0
fi

for tool in apt-get apt-cache dpkg-deb tar xz gzip make x86_64-linux-gnu-gcc-12 sha256sum; do
    command -v "$tool" >/dev/null 2>&1 || die "$tool is missing (./irdma-emu kit installs it as root)"
done

# ---- the archive the machine already uses -----------------------------------------------------------------

# From apt-cache policy's package files: "500 URI SUITE/main amd64 Packages".
archive_for() { # SUITE-REGEX
    apt-cache policy 2>/dev/null | awk -v re="^($1)/main\$" '$3 ~ re {print $2; exit}'
}
MIRROR="$(archive_for 'bookworm|trixie|bookworm-updates')"
if [[ -z $MIRROR ]]; then
    [[ $(id -u) -eq 0 ]] || die "apt has no package lists; as root run: apt-get update"
    say "apt has no package lists: apt-get update (once)"
    apt-get update -q >&2
    MIRROR="$(archive_for 'bookworm|trixie|bookworm-updates')"
fi
[[ -n $MIRROR ]] || die "no Debian archive found in apt's sources (apt-cache policy)"
SECURITY="$(archive_for 'bookworm-security')"
say "archive: $MIRROR${SECURITY:+ (security: $SECURITY)}"

# A private apt configuration: its own sources, lists, cache and an empty dpkg status (so apt resolves every
# dependency, as for an empty machine), nothing of the host's apt state touched.
apt_setup() { # NAME SOURCES-LINES
    local d="$WORK/apt-$1"
    mkdir -p "$d/lists/partial" "$d/cache" "$d/log" "$d/sources.list.d" "$d/preferences.d" "$DEBS/$1/partial"
    printf '%s\n' "$2" >"$d/sources.list"
    : >"$d/status"
    : >"$d/preferences"
}
apt_opts() { # NAME -> the options in array APT_O
    local d="$WORK/apt-$1"
    APT_O=(-o "Dir::Etc::sourcelist=$d/sources.list" -o "Dir::Etc::sourceparts=$d/sources.list.d"
        -o "Dir::Etc::preferences=$d/preferences" -o "Dir::Etc::preferencesparts=$d/preferences.d"
        -o "Dir::State::Lists=$d/lists" -o "Dir::State::status=$d/status"
        -o "Dir::State::extended_states=$d/extended_states" -o "Dir::Cache=$d/cache"
        -o "Dir::Cache::archives=$DEBS/$1" -o "Dir::Log=$d/log" -o APT::Architecture=amd64
        -o APT::Architectures::=amd64 -o Debug::NoLocking=1 -o APT::Install-Recommends=false
        -o Acquire::Languages=none -q)
}
apt_update() { # NAME
    apt_opts "$1"
    apt-get "${APT_O[@]}" update >"$WORK/apt-$1/update.log" 2>&1 || { cat "$WORK/apt-$1/update.log" >&2; die "apt-get update ($1) failed"; }
}
candidate() { # NAME PACKAGE [DEFAULT-RELEASE]
    apt_opts "$1"
    local extra=()
    [[ -n ${3:-} ]] && extra=(-o "APT::Default-Release=$3")
    apt-cache "${APT_O[@]}" "${extra[@]}" policy "$2" | awk '$1 == "Candidate:" {print $2}'
}
# Downloads PACKAGES with their whole dependency closure (apt-get -d install with an empty status) and
# prints the .deb files of that closure, one a line (the archive folder may hold older versions too).
download_closure() { # NAME DEFAULT-RELEASE PACKAGES...
    local name="$1" rel="$2"
    shift 2
    apt_opts "$name"
    local extra=()
    [[ -n $rel ]] && extra=(-t "$rel")
    local log="$WORK/apt-$name/download.log"
    apt-get "${APT_O[@]}" "${extra[@]}" -y -d install "$@" >"$log" 2>&1 || { cat "$log" >&2; die "download ($name) failed"; }
    # apt's plan, "Inst PACKAGE (VERSION SUITE [ARCH])", names the files: PACKAGE_VERSION_ARCH.deb, ':' as %3a
    apt-get "${APT_O[@]}" "${extra[@]}" -s install "$@" 2>/dev/null |
        awk -v dir="$DEBS/$name" '$1 == "Inst" {
            v = $3; sub(/^\(/, "", v); gsub(/:/, "%3a", v)
            if (!match($0, /\[[a-z0-9]+\]\)/)) next
            a = substr($0, RSTART + 1, RLENGTH - 3)
            print dir "/" $2 "_" v "_" a ".deb" }'
}
# Downloads single PACKAGES (no dependencies) and prints their .deb files.
download_only() { # NAME PACKAGES...
    local name="$1"
    shift
    apt_opts "$name"
    local log="$WORK/apt-$name/download.log"
    : >"$log"
    local p f
    for p in "$@"; do
        # "'URI' FILE SIZE HASH"
        f="$(apt-get "${APT_O[@]}" --print-uris download "$p" 2>>"$log" | awk '{print $2}')"
        [[ -n $f ]] || { cat "$log" >&2; die "no .deb for $p"; }
        if [[ ! -s $DEBS/$name/$f ]]; then
            (cd "$DEBS/$name" && apt-get "${APT_O[@]}" download "$p" >>"$log" 2>&1) || { cat "$log" >&2; die "download of $p failed"; }
        fi
        printf '%s\n' "$DEBS/$name/$f"
    done
}
unpack_all() { # DEST DEB-FILES...
    local dest="$1"
    shift
    mkdir -p "$dest"
    local f
    for f in "$@"; do
        [[ -s $f ]] || die "missing download: $f"
        dpkg-deb -x "$f" "$dest"
    done
}

# non-free-firmware: firmware-intel-misc (the E810 DDP package) of the e810 flavour
TRIXIE_SOURCES="deb $MIRROR trixie main non-free-firmware
deb $MIRROR trixie-backports main"
BOOKWORM_SOURCES="deb $MIRROR bookworm main
deb $MIRROR bookworm-updates main${SECURITY:+
deb $SECURITY bookworm-security main}"
apt_setup trixie "$TRIXIE_SOURCES"
apt_setup bookworm "$BOOKWORM_SOURCES"
say "reading the package lists of trixie, trixie-backports and bookworm (private apt configurations)"
apt_update trixie
apt_update bookworm

QEMU_VERSION="$(candidate trixie qemu-system-x86 trixie-backports)"
[[ -n $QEMU_VERSION && $QEMU_VERSION != "(none)" ]] || die "no qemu-system-x86 in trixie-backports"
apt_opts bookworm
KERNEL_PACKAGE="$(apt-cache "${APT_O[@]}" depends linux-image-amd64 | awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9]/ {print $2; exit}')"
KVER="${KERNEL_PACKAGE#linux-image-}"        # e.g. 6.1.0-41-amd64
KABI="${KVER%-amd64}"                         # e.g. 6.1.0-41
[[ $KVER =~ ^6\.1\.[0-9]+-[0-9]+-amd64$ ]] || die "unexpected Debian 12 kernel package: '$KERNEL_PACKAGE'"
KERNEL_VERSION="$(candidate bookworm "$KERNEL_PACKAGE")"
# the e810 flavour's kernel: the newest linux-image-7.3.N[+debX]-amd64 of trixie-backports (not -dbg, -rt, -cloud)
apt_opts trixie
E810_KERNEL_PACKAGE="$(apt-cache "${APT_O[@]}" pkgnames "linux-image-$E810_KERNEL_SERIES." |
    grep -E "^linux-image-${E810_KERNEL_SERIES//./\\.}\.[0-9]+(\+deb[0-9]+)?-amd64\$" | sort -V | tail -n 1 || true)"
[[ -n $E810_KERNEL_PACKAGE ]] || die "no linux-image-$E810_KERNEL_SERIES.*-amd64 in trixie-backports (the e810 flavour's kernel)"
E810_KVER="${E810_KERNEL_PACKAGE#linux-image-}" # e.g. 7.3.4+deb13-amd64
E810_KERNEL_VERSION="$(candidate trixie "$E810_KERNEL_PACKAGE" trixie-backports)"
# Debian's 7.x linux-image-* is a metapackage: the image, its modules and its config come in linux-binary-,
# linux-modules- and linux-base- packages of the same release (an older monolithic package has none of them)
mapfile -t E810_KERNEL_PARTS < <(apt-cache "${APT_O[@]}" depends "$E810_KERNEL_PACKAGE" |
    awk -v k="$E810_KVER" '$1 == "Depends:" && ($2 == "linux-binary-" k || $2 == "linux-modules-" k || $2 == "linux-base-" k) {print $2}' | sort -u)
E810_FIRMWARE_VERSION="$(candidate trixie "$E810_FIRMWARE_PACKAGE" trixie)"
[[ -n $E810_FIRMWARE_VERSION && $E810_FIRMWARE_VERSION != "(none)" ]] || die "no $E810_FIRMWARE_PACKAGE in trixie non-free-firmware"
say "versions: qemu-system-x86 $QEMU_VERSION (trixie-backports), $KERNEL_PACKAGE $KERNEL_VERSION (bookworm);" \
    "e810: $E810_KERNEL_PACKAGE $E810_KERNEL_VERSION (${E810_KERNEL_PARTS[*]:-monolithic}), $E810_FIRMWARE_PACKAGE $E810_FIRMWARE_VERSION"

NAME="qemu-${QEMU_VERSION#*:}_linux-${KVER}_e810-${E810_KVER}_r${RECIPE}"
KIT="$KITS/$NAME"
if complete_kit "$KIT"; then
    ln -sfn "$NAME" "$KITS/current"
    say "reusing the kit in $KIT"
    printf '%s\n' "$KIT"
    exit 0
fi
PART="$KIT.partial"
rm -rf "$PART" "$KIT" # a half-made kit is rebuilt from scratch
mkdir -p "$PART"
STAGE="$WORK/stage-$$"
rm -rf "$WORK"/stage-*
mkdir -p "$STAGE"
[[ -n ${KIT_KEEP_STAGE:-} ]] || trap 'rm -rf "$STAGE"' EXIT

# ---- QEMU -------------------------------------------------------------------------------------------------

say "downloading qemu-system-x86 $QEMU_VERSION and its libraries (trixie)"
mapfile -t QEMU_DEBS < <(download_closure trixie trixie-backports qemu-system-x86)
((${#QEMU_DEBS[@]} > 0)) || die "apt planned no .debs for qemu-system-x86"
say "unpacking ${#QEMU_DEBS[@]} .debs into qemu/"
unpack_all "$PART/qemu" "${QEMU_DEBS[@]}"
# QEMU finds its firmware and modules relative to the binary through this bundle path
ln -sfn ../../.. "$PART/qemu/usr/lib/x86_64-linux-gnu/qemu-bundle"
QLIB="$PART/qemu/usr/lib/x86_64-linux-gnu"
# trixie's glibc is newer than the host's: QEMU runs through trixie's own loader, never the host's
[[ -x $QLIB/ld-linux-x86-64.so.2 ]] || die "trixie's loader $QLIB/ld-linux-x86-64.so.2 is missing"
QEMU_REPORTED="$("$QLIB/ld-linux-x86-64.so.2" --library-path "$QLIB" "$PART/qemu/usr/bin/qemu-system-x86_64" --version | head -n 1)"
say "runs: $QEMU_REPORTED"
# the share tree QEMU needs (firmware, keymaps) stays; the rest of the unpacked system is documentation
rm -rf "$PART/qemu/usr/share/doc" "$PART/qemu/usr/share/man" "$PART/qemu/usr/share/locale" "$PART/qemu/usr/share/info"

# ---- kernel, headers, sources, siw.ko ----------------------------------------------------------------------

say "downloading $KERNEL_PACKAGE, its headers and linux-source-6.1 (bookworm)"
mapfile -t KDEBS < <(download_only bookworm "$KERNEL_PACKAGE" "linux-headers-$KVER" "linux-headers-$KABI-common" \
    linux-kbuild-6.1 linux-source-6.1)
unpack_all "$STAGE/kernel" "${KDEBS[0]}"
unpack_all "$STAGE/hdr" "${KDEBS[1]}" "${KDEBS[2]}" "${KDEBS[3]}"
SOURCE_VERSION="$(dpkg-deb -f "${KDEBS[4]}" Version)"
HEADERS_VERSION="$(dpkg-deb -f "${KDEBS[1]}" Version)"
cp "$STAGE/kernel/boot/vmlinuz-$KVER" "$PART/vmlinuz"

say "extracting drivers/infiniband/sw/siw from linux-source-6.1 $SOURCE_VERSION"
SIW="$STAGE/siw"
mkdir -p "$SIW"
dpkg-deb --fsys-tarfile "${KDEBS[4]}" | tar -x -C "$STAGE" ./usr/src/linux-source-6.1.tar.xz
tar -xJf "$STAGE/usr/src/linux-source-6.1.tar.xz" -C "$STAGE" 'linux-source-6.1/drivers/infiniband/sw/siw'
rm -f "$STAGE/usr/src/linux-source-6.1.tar.xz"
cp -r "$STAGE/linux-source-6.1/drivers/infiniband/sw/siw/." "$SIW/"

# The headers were unpacked privately: their Makefile and symlinks name /usr/src and /usr/lib paths.
HDR="$STAGE/hdr/usr/src/linux-headers-$KVER"
find "$STAGE/hdr" -type l | while read -r l; do
    t="$(readlink "$l")"
    case "$t" in /usr/*) ln -sfn "$STAGE/hdr$t" "$l" ;; esac
done
grep -rl --include=Makefile -e '/usr/src/linux-headers' -e '/usr/lib/linux-kbuild' "$STAGE/hdr/usr/src" 2>/dev/null |
    while read -r f; do
        sed -i -e "s#/usr/src/linux-headers#$STAGE/hdr/usr/src/linux-headers#g" \
            -e "s#/usr/lib/linux-kbuild#$STAGE/hdr/usr/lib/linux-kbuild#g" "$f"
    done
# Two builds: the stock siw, and one with peer_to_peer true. siw_main.c defines peer_to_peer as a compile-time
# constant (no module parameter), false when not initialised; irdma refuses an MPA v2 request without the
# peer-to-peer bit (irdma_negotiate_mpa_v2_ird_ord), so a siw client needs this build to reach the model.
SIW_P2P="$STAGE/siw-p2p"
cp -r "$SIW" "$SIW_P2P"
grep -q '^const bool peer_to_peer;$' "$SIW_P2P/siw_main.c" || die "siw_main.c does not define peer_to_peer as expected"
sed -i 's/^const bool peer_to_peer;$/const bool peer_to_peer = true;/' "$SIW_P2P/siw_main.c"
build_siw() { # SOURCE-DIR OUTPUT-FILE
    local log="$WORK/$(basename "$1")-build.log"
    if ! make -C "$HDR" M="$1" CONFIG_RDMA_SIW=m -j2 modules >"$log" 2>&1; then
        cat "$log" >&2
        die "building $(basename "$2") failed"
    fi
    cp "$1/siw.ko" "$2"
    # without its debug sections (5 MB to 300 kB): the guest unpacks it on every boot
    if command -v strip >/dev/null 2>&1; then strip --strip-debug "$2"; fi
}
say "building siw.ko (stock, and peer_to_peer = true) against linux-headers-$KVER $HEADERS_VERSION"
build_siw "$SIW" "$PART/siw.ko"
build_siw "$SIW_P2P" "$PART/siw-p2p.ko"
SIW_VERMAGIC="$(tr '\0' '\n' <"$PART/siw.ko" | sed -n 's/^vermagic=//p' | head -n 1 | sed 's/ *$//')"

# ---- initramfs --------------------------------------------------------------------------------------------

say "downloading the guest userspace (bookworm): ${USER_PACKAGES[*]}"
mapfile -t UDEBS < <(download_closure bookworm "" "${USER_PACKAGES[@]}")
((${#UDEBS[@]} > 0)) || die "apt planned no .debs for the guest userspace"
unpack_all "$STAGE/user" "${UDEBS[@]}"

say "assembling the initramfs"
IRD="$STAGE/initramfs"
mkdir -p "$IRD"/{bin,sbin,etc,proc,sys,dev,tmp,run,root,lib64,usr/lib/x86_64-linux-gnu,usr/lib/modules,scenarios}
ln -s usr/lib "$IRD/lib"
cp "$STAGE/user/bin/busybox" "$IRD/bin/busybox"
for applet in $("$IRD/bin/busybox" --list); do
    [[ -e $IRD/bin/$applet ]] || ln -s busybox "$IRD/bin/$applet"
done
U="$STAGE/user"
ULIB="$U/lib/x86_64-linux-gnu"
[[ -d $ULIB ]] || ULIB="$U/usr/lib/x86_64-linux-gnu"
LOADER="$U/lib64/ld-linux-x86-64.so.2"
[[ -e $LOADER ]] || LOADER="$U/usr/lib64/ld-linux-x86-64.so.2"
[[ -e $LOADER ]] || die "bookworm's loader is missing from the guest userspace"
LIBPATH="$U/lib/x86_64-linux-gnu:$U/usr/lib/x86_64-linux-gnu:$U/usr/lib/x86_64-linux-gnu/libibverbs"
copy_lib() { # a library file name (resolved in the staged userspace) into the initramfs's lib folder
    local src="$1"
    local base
    base="$(basename "$src")"
    [[ -e $IRD/usr/lib/x86_64-linux-gnu/$base ]] && return 0
    cp -L "$src" "$IRD/usr/lib/x86_64-linux-gnu/$base"
}
copy_with_libs() { # FILE DEST: FILE and every shared library it needs (from the staged loader's --list)
    local file="$1" dest="$2"
    cp -L "$file" "$dest"
    local lib
    while read -r lib; do
        [[ -n $lib ]] && copy_lib "$lib"
    done < <("$LOADER" --library-path "$LIBPATH" --list "$file" | awk '$2 == "=>" && $3 ~ /^\// {print $3}')
}
FOUND=()
for p in "${USER_PROGRAMS[@]}"; do
    [[ -f $U/$p && ! -L $U/$p ]] || continue # (a symlink in a .deb may name a host path)
    b="$(basename "$p")"
    [[ -e $IRD/sbin/$b ]] && continue
    rm -f "$IRD/bin/$b" # a real program replaces a busybox applet of the same name (ip)
    copy_with_libs "$U/$p" "$IRD/sbin/$b"
    FOUND+=("$b")
done
for b in rping ucmatose ibv_devices ibv_devinfo rdma devlink ethtool; do
    [[ -e $IRD/sbin/$b ]] || die "$b is not in the guest userspace packages"
done
# the siw and irdma providers, dlopened by libibverbs: their driver files and their libraries
mkdir -p "$IRD/etc/libibverbs.d" "$IRD/usr/lib/x86_64-linux-gnu/libibverbs"
for provider in siw irdma; do
    cp "$U/etc/libibverbs.d/$provider.driver" "$IRD/etc/libibverbs.d/" || die "no $provider.driver in ibverbs-providers"
    PROVIDER="$(ls "$U"/usr/lib/x86_64-linux-gnu/libibverbs/lib$provider-rdmav*.so 2>/dev/null | head -n 1 || true)"
    [[ -n $PROVIDER ]] || die "no $provider provider in ibverbs-providers"
    copy_with_libs "$PROVIDER" "$IRD/usr/lib/x86_64-linux-gnu/libibverbs/$(basename "$PROVIDER")"
done
cp -L "$LOADER" "$IRD/lib64/ld-linux-x86-64.so.2"
# glibc dlopens libgcc_s for pthread_exit and cancellation (rping's threads end so): no ELF entry names it
copy_lib "$(ls "$U"/lib/x86_64-linux-gnu/libgcc_s.so.1 "$U"/usr/lib/x86_64-linux-gnu/libgcc_s.so.1 2>/dev/null | head -n 1)"
printf 'root:x:0:0:root:/root:/bin/sh\n' >"$IRD/etc/passwd"
printf 'root:x:0:\n' >"$IRD/etc/group"

# The module subset, in load order: each module after everything it depends on (the "depends=" entry of its
# .modinfo section; the package ships no modules.dep, depmod writes that at install time).
declare -A PATHOF DONE DEPS
MODPKG=""
index_modules() { # MODULES-DIR PACKAGE: PATHOF maps each module name (- as _) to its file; ORDER, BUILTIN emptied
    MODSRC="$1"
    MODPKG="$2"
    [[ -d $MODSRC/kernel ]] || die "no modules in $MODPKG"
    PATHOF=()
    DONE=()
    DEPS=()
    ORDER=()
    BUILTIN=()
    local path name
    while IFS= read -r path; do
        name="${path##*/}"
        name="${name%%.ko*}"
        PATHOF[${name//-/_}]="$path"
    done < <(find "$MODSRC/kernel" -name '*.ko' -o -name '*.ko.xz')
}
module_depends() { # NAME: the modules NAME needs, from its .modinfo strings
    local src="${PATHOF[$1]}"
    case "$src" in
        *.ko) tr '\0' '\n' <"$src" ;;
        *.ko.xz) xz -dc "$src" | tr '\0' '\n' ;;
    esac | sed -n 's/^depends=//p' | head -n 1 | tr ',' ' '
}
ORDER=()
visit() {
    local m="$1"
    [[ -n ${DONE[$m]:-} ]] && return 0
    DONE[$m]=1
    [[ -n ${PATHOF[$m]:-} ]] || die "module $m is not in $MODPKG"
    local d
    DEPS[$m]="$(module_depends "$m")"
    for d in ${DEPS[$m]}; do visit "${d//-/_}"; done
    ORDER+=("$m")
}
resolve_modules() { # MODULES...: ORDER gets them and their closure in load order, BUILTIN the built-in ones
    local m
    for m in "$@"; do
        if [[ -n ${PATHOF[$m]:-} ]]; then
            visit "$m"
        elif grep -q "/${m//_/[_-]}\.ko\$" "$MODSRC/modules.builtin" 2>/dev/null; then
            BUILTIN+=("$m")
        else
            die "module $m is neither a module nor built into $MODPKG"
        fi
    done
}
index_modules "$STAGE/kernel/lib/modules/$KVER" "$KERNEL_PACKAGE"
resolve_modules "${GUEST_MODULES[@]}"
# siw after what it needs (ib_core; crc32c through the crypto API, hence crc32c_generic and libcrc32c above)
for d in $(tr '\0' '\n' <"$PART/siw.ko" | sed -n 's/^depends=//p' | tr ',' ' '); do visit "${d//-/_}"; done
mkdir -p "$PART/modules"
: >"$IRD/etc/modules.order"
for m in "${ORDER[@]}"; do
    src="${PATHOF[$m]}"
    case "$src" in
        *.ko) cp "$src" "$PART/modules/$m.ko" ;;
        *.ko.xz) xz -dc "$src" >"$PART/modules/$m.ko" ;;
        *) die "unexpected module file $src" ;;
    esac
    printf '%s\n' "$m" >>"$IRD/etc/modules.order"
done
printf '%s\n' siw >>"$IRD/etc/modules.order" # after ib_core, crc32c_generic and libcrc32c (its dependencies)
SIW_ORDER=("${ORDER[@]}" siw)
SIW_BUILTIN=("${BUILTIN[@]}")
cp "$PART"/modules/*.ko "$PART/siw.ko" "$PART/siw-p2p.ko" "$IRD/usr/lib/modules/"

# the guest's init and scenarios, and what the result line reports
cp "$HERE/guest/init" "$IRD/init"
chmod 755 "$IRD/init"
cp "$HERE"/guest/scenarios/*.sh "$IRD/scenarios/"
{
    printf 'KVER=%s\n' "$KVER"
    printf 'RECIPE=%s\n' "$RECIPE"
} >"$IRD/etc/irdma-emu-kit"

# a newc archive, written by the guest's own (static) busybox: the host needs no cpio
write_initramfs() { # TREE ARCHIVE
    (cd "$1" && find . -mindepth 1 | LC_ALL=C sort | "$IRD/bin/busybox" cpio -o -H newc 2>/dev/null) | gzip -6 >"$2"
    [[ -s $2 ]] || die "the initramfs $2 is empty"
}
# the e810 flavour starts from a copy of this tree (userspace, init, scenarios), its modules replaced
E810_IRD="$STAGE/initramfs-e810"
cp -a "$IRD" "$E810_IRD"
write_initramfs "$IRD" "$PART/initramfs.cpio.gz"

# ---- the e810 flavour: Linux 7.3, ice.ko, irdma.ko, the DDP package ----------------------------------------

E810_STARTED=$SECONDS
say "downloading $E810_KERNEL_PACKAGE ${E810_KERNEL_PARTS[*]} (trixie-backports) and $E810_FIRMWARE_PACKAGE (trixie)"
mapfile -t E810_DEBS < <(download_only trixie "$E810_KERNEL_PACKAGE" "${E810_KERNEL_PARTS[@]}" "$E810_FIRMWARE_PACKAGE")
E810_K="$STAGE/kernel-e810"
unpack_all "$E810_K" "${E810_DEBS[@]}"
# usr-merged (usr/lib/modules/R/vmlinuz, .../config) or the older layout (boot/vmlinuz-R, boot/config-R)
E810_IMAGE="" E810_CONFIG="" E810_MODSRC=""
for d in "$E810_K/usr/lib/modules/$E810_KVER" "$E810_K/lib/modules/$E810_KVER"; do
    [[ -z $E810_MODSRC && -d $d/kernel ]] && E810_MODSRC="$d"
    [[ -z $E810_IMAGE && -f $d/vmlinuz ]] && E810_IMAGE="$d/vmlinuz"
    [[ -z $E810_CONFIG && -f $d/config ]] && E810_CONFIG="$d/config"
done
[[ -n $E810_IMAGE ]] || E810_IMAGE="$E810_K/boot/vmlinuz-$E810_KVER"
[[ -n $E810_CONFIG ]] || E810_CONFIG="$E810_K/boot/config-$E810_KVER"
[[ -f $E810_IMAGE ]] || die "no kernel image in $E810_KERNEL_PACKAGE ${E810_KERNEL_PARTS[*]}"
[[ -f $E810_CONFIG ]] || die "no kernel config in $E810_KERNEL_PACKAGE ${E810_KERNEL_PARTS[*]}"
[[ -n $E810_MODSRC ]] || die "no modules in $E810_KERNEL_PACKAGE ${E810_KERNEL_PARTS[*]}"
config_on() { grep -qx "CONFIG_$1=[ym]" "$E810_CONFIG"; }
config_on ICE || die "$E810_KVER is built without ice (CONFIG_ICE)"
config_on INFINIBAND_IRDMA || die "$E810_KVER is built without irdma (CONFIG_INFINIBAND_IRDMA)"
mkdir -p "$PART/e810"
cp "$E810_IMAGE" "$PART/e810/vmlinuz"

say "resolving the e810 modules: ${E810_BOOT_MODULES[*]}, then ${E810_MODPROBE_MODULES[*]} (with what they depend on)"
index_modules "$E810_MODSRC" "$E810_KERNEL_PACKAGE ${E810_KERNEL_PARTS[*]}"
resolve_modules "${E810_BOOT_MODULES[@]}"
E810_BOOT_ORDER=("${ORDER[@]}")
resolve_modules "${E810_MODPROBE_MODULES[@]}"
E810_ORDER=("${ORDER[@]}")
E810_BUILTIN=("${BUILTIN[@]}")
# busybox modprobe reads /lib/modules/$(uname -r)/modules.dep ("NAME.ko: DEP.ko ...", the whole closure, a
# dependency after what needs it: modprobe loads the list from its end); init insmods the boot set in order
E810_MODDIR="$E810_IRD/usr/lib/modules/$E810_KVER"
rm -rf "$E810_IRD/usr/lib/modules"/*
mkdir -p "$E810_MODDIR"
for m in "${E810_ORDER[@]}"; do
    src="${PATHOF[$m]}"
    case "$src" in
        *.ko) cp "$src" "$E810_MODDIR/$m.ko" ;;
        *.ko.xz) xz -dc "$src" >"$E810_MODDIR/$m.ko" ;;
        *) die "unexpected module file $src" ;;
    esac
done
closure_of() { # NAME: NAME's dependencies (transitively), each after every module that needs it
    local -A seen=()
    local -a out=() post=()
    walk() {
        local x="$1" y
        [[ -n ${seen[$x]:-} ]] && return 0
        seen[$x]=1
        for y in ${DEPS[$x]}; do walk "${y//-/_}"; done
        post+=("$x")
    }
    walk "$1"
    # post is in load order, the module itself last: reversed, without the module, deps before their deps
    local i
    for ((i = ${#post[@]} - 2; i >= 0; i--)); do out+=("${post[$i]}.ko"); done
    printf '%s' "${out[*]}"
}
: >"$E810_MODDIR/modules.dep"
for m in "${E810_ORDER[@]}"; do
    printf '%s.ko: %s\n' "$m" "$(closure_of "$m")" | sed 's/ $//' >>"$E810_MODDIR/modules.dep"
done
: >"$E810_MODDIR/modules.alias"
: >"$E810_MODDIR/modules.symbols"
printf '%s\n' "${E810_BOOT_ORDER[@]}" >"$E810_IRD/etc/modules.order"

# ice's DDP package: ice-1.3.*.pkg and the ice.pkg link naming it. With CONFIG_FW_LOADER_COMPRESS the kernel
# tries NAME, then NAME.xz / NAME.zst (drivers/base/firmware_loader/main.c fw_get_filesystem_firmware): a plain
# file is always found; a compressed one only with the matching CONFIG_FW_LOADER_COMPRESS_* on.
FW_SRC=""
for d in "$E810_K/usr/lib/firmware" "$E810_K/lib/firmware"; do
    [[ -z $FW_SRC && -d $d ]] && FW_SRC="$d"
done
[[ -n $FW_SRC && -d $FW_SRC/$E810_DDP_DIR ]] || die "no $E810_DDP_DIR in $E810_FIRMWARE_PACKAGE"
E810_DDP_FILE="$(cd "$FW_SRC/$E810_DDP_DIR" && ls ice-1.3.*.pkg ice-1.3.*.pkg.xz ice-1.3.*.pkg.zst 2>/dev/null | sort -V | tail -n 1 || true)"
[[ -n $E810_DDP_FILE ]] || die "no $E810_DDP_DIR/ice-1.3.*.pkg in $E810_FIRMWARE_PACKAGE"
FW_DEST="$E810_IRD/usr/lib/firmware/$E810_DDP_DIR"
mkdir -p "$FW_DEST"
E810_FW_COMPRESS="none"
config_on FW_LOADER_COMPRESS_XZ && E810_FW_COMPRESS="xz"
config_on FW_LOADER_COMPRESS_ZSTD && E810_FW_COMPRESS="$E810_FW_COMPRESS,zstd"
case "$E810_DDP_FILE" in
    *.pkg) cp "$FW_SRC/$E810_DDP_DIR/$E810_DDP_FILE" "$FW_DEST/" ;;
    *.pkg.xz)
        if config_on FW_LOADER_COMPRESS_XZ; then
            cp "$FW_SRC/$E810_DDP_DIR/$E810_DDP_FILE" "$FW_DEST/"
        else
            xz -dc "$FW_SRC/$E810_DDP_DIR/$E810_DDP_FILE" >"$FW_DEST/${E810_DDP_FILE%.xz}"
            E810_DDP_FILE="${E810_DDP_FILE%.xz}"
        fi ;;
    *.pkg.zst) config_on FW_LOADER_COMPRESS_ZSTD || die "$E810_DDP_FILE is zstd-compressed and $E810_KVER cannot load that"
        cp "$FW_SRC/$E810_DDP_DIR/$E810_DDP_FILE" "$FW_DEST/" ;;
esac
E810_DDP_LINK="ice.pkg${E810_DDP_FILE#ice-1.3.*.pkg}" # ice.pkg, or ice.pkg.xz next to a compressed file
ln -sfn "$E810_DDP_FILE" "$FW_DEST/$E810_DDP_LINK"

{
    printf 'KVER=%s\n' "$E810_KVER"
    printf 'RECIPE=%s\n' "$RECIPE"
    printf 'FLAVOUR=e810\n'
    printf 'E810_DDP=%s\n' "$E810_DDP_DIR/$E810_DDP_LINK"
} >"$E810_IRD/etc/irdma-emu-kit"
say "assembling the e810 initramfs (${#E810_ORDER[@]} modules, $E810_DDP_DIR/$E810_DDP_FILE)"
write_initramfs "$E810_IRD" "$PART/e810/initramfs.cpio.gz"
E810_DOWNLOADED="$(du -sck "${E810_DEBS[@]}" | awk 'END {print $1 * 1024}')"
E810_SECONDS=$((SECONDS - E810_STARTED))

# ---- manifest ---------------------------------------------------------------------------------------------

size_of() { du -sk "$1" | awk '{print $1 * 1024}'; }
DOWNLOADED="$(du -sck "${QEMU_DEBS[@]}" "${KDEBS[@]}" "${UDEBS[@]}" "${E810_DEBS[@]}" | awk 'END {print $1 * 1024}')"
{
    printf '# irdma-emu guest kit, written by qemu-bridge/src/main/kit/provision-kit.sh\n'
    printf 'recipe=%s\n' "$RECIPE"
    printf 'qemu.package=qemu-system-x86\n'
    printf 'qemu.version=%s\n' "$QEMU_VERSION"
    printf 'qemu.reported=%s\n' "$QEMU_REPORTED"
    printf 'qemu.root=qemu\n'
    printf 'qemu.binary=qemu/usr/bin/qemu-system-x86_64\n'
    printf 'qemu.loader=qemu/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2\n'
    printf 'qemu.library.path=qemu/usr/lib/x86_64-linux-gnu\n'
    printf 'kernel.package=%s\n' "$KERNEL_PACKAGE"
    printf 'kernel.version=%s\n' "$KERNEL_VERSION"
    printf 'kernel.release=%s\n' "$KVER"
    printf 'kernel.image=vmlinuz\n'
    printf 'linux.source.version=%s\n' "$SOURCE_VERSION"
    printf 'linux.headers.version=%s\n' "$HEADERS_VERSION"
    printf 'siw.module=siw.ko\n'
    printf 'siw.p2p.module=siw-p2p.ko\n'
    printf 'siw.vermagic=%s\n' "$SIW_VERMAGIC"
    printf 'modules=%s\n' "${SIW_ORDER[*]}"
    printf 'modules.builtin=%s\n' "${SIW_BUILTIN[*]}"
    printf 'initramfs=initramfs.cpio.gz\n'
    printf 'initramfs.programs=%s\n' "${FOUND[*]}"
    printf 'initramfs.size=%s\n' "$(stat -c %s "$PART/initramfs.cpio.gz")"
    printf 'e810.kernel.package=%s\n' "$E810_KERNEL_PACKAGE"
    printf 'e810.kernel.parts=%s\n' "${E810_KERNEL_PARTS[*]}"
    printf 'e810.kernel.version=%s\n' "$E810_KERNEL_VERSION"
    printf 'e810.kernel.release=%s\n' "$E810_KVER"
    printf 'e810.kernel.image=e810/vmlinuz\n'
    printf 'e810.initramfs=e810/initramfs.cpio.gz\n'
    printf 'e810.initramfs.size=%s\n' "$(stat -c %s "$PART/e810/initramfs.cpio.gz")"
    printf 'e810.modules.boot=%s\n' "${E810_BOOT_ORDER[*]}"
    printf 'e810.modules.modprobe=%s\n' "${E810_MODPROBE_MODULES[*]}"
    printf 'e810.modules=%s\n' "${E810_ORDER[*]}"
    printf 'e810.modules.builtin=%s\n' "${E810_BUILTIN[*]}"
    printf 'e810.firmware.package=%s\n' "$E810_FIRMWARE_PACKAGE"
    printf 'e810.firmware.version=%s\n' "$E810_FIRMWARE_VERSION"
    printf 'e810.firmware.ddp=%s\n' "$E810_DDP_DIR/$E810_DDP_FILE"
    printf 'e810.firmware.ddp.link=%s\n' "$E810_DDP_DIR/$E810_DDP_LINK"
    printf 'e810.firmware.ddp.size=%s\n' "$(stat -c %s "$FW_DEST/$E810_DDP_FILE")"
    printf 'e810.firmware.loader.compress=%s\n' "$E810_FW_COMPRESS"
    printf 'e810.download.size=%s\n' "$E810_DOWNLOADED"
    printf 'e810.provisioned.seconds=%s\n' "$E810_SECONDS"
    printf 'download.size=%s\n' "$DOWNLOADED"
    printf 'kit.size=%s\n' "$(size_of "$PART")"
    printf 'archive=%s\n' "$MIRROR"
    printf 'provisioned.seconds=%s\n' "$((SECONDS - STARTED))"
    printf 'complete=true\n' # last: a kit without this line is half-made
} >"$PART/kit.properties.tmp"
mv "$PART/kit.properties.tmp" "$PART/kit.properties"
mv "$PART" "$KIT"
ln -sfn "$NAME" "$KITS/current"
# Kits of other versions or recipes stay: another worktree sharing this folder may be booting one (--prune
# removes them; the .debs stay for reuse either way)
for old in "$KITS"/qemu-*; do
    [[ $old == "$KIT" || ! -d $old ]] && continue
    if [[ $old == *.partial ]]; then
        rm -rf "$old" # a provisioner that died half-way left it (a live one would hold the lock)
    elif ((PRUNE == 1)); then
        rm -rf "$old"
    else
        say "an older kit stays: $old (--prune removes it)"
    fi
done
say "kit ready in $KIT ($(du -sh "$KIT" | cut -f1), downloads $((DOWNLOADED / 1048576)) MB)"
printf '%s\n' "$KIT"
