#!/usr/bin/env bash
# Provisions virtme-ng (vng) for the README's virtme-ng example of `irdma-emu serve` (VirtmeNgServeBootTest runs it):
# Debian trixie's virtme-ng package, unpacked (never installed), and the guest kit's Linux 7.3 as a root vng can boot
# a distro kernel from: its image, every module of linux-modules-<release> with the modules.dep depmod writes, and
# ice's DDP package from firmware-intel-misc, all from the .debs the kit already downloads.
#
#   provision-vng.sh [--cache DIR]
#
#   --cache DIR   the project cache folder (default: the repository's .cache); needs the complete guest kit in
#                 DIR/kit/current (provision-kit.sh); this goes to DIR/kit/vng/NAME/ and DIR/kit/vng/current
#                 points at it
#
# Why the whole module package: vng boots a kernel without an initramfs of its own making unless it finds the
# kernel's modules; given them (a folder with lib/modules/<release>/modules.dep above the image) it resolves 9p and
# virtio with the host's modprobe, puts them in a small initramfs with the host's busybox, and links the folder
# into the guest as /lib/modules/<release>, where the guest's modprobe finds ice and irdma.
#
# What runs the result (the host's Debian 12 packages, installed by ./irdma-emu test): python3 with
# python3-argcomplete and python3-requests (virtme-ng's Depends; its modules run on bookworm's Python 3.11), kmod
# (depmod here; modprobe for vng and in the guest), udev (the package's virtme-init needs udevd for the
# /dev/virtio-ports links of --exec; the Rust virtme-ng-init is not in Debian's package), file (vng reads the
# kernel's release with it), busybox-static (vng's initramfs), iproute2 (ip and devlink in the guest).
#
# Idempotent: a complete folder (vng.properties with complete=true, this script's digest and the kit's kernel
# release) is reused without touching the network. Prints progress on stderr and the folder on stdout.
set -euo pipefail

HERE="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)"
ROOT="$(cd "$HERE/../../../.." && pwd)"
CACHE="$ROOT/.cache"
while (($# > 0)); do
    case "$1" in
        --cache) CACHE="$2"; shift 2 ;;
        -h | --help) sed -n '2,/^set -e/{/^#/p}' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "provision-vng: unknown argument: $1" >&2; exit 64 ;;
    esac
done

KITS="$CACHE/kit"
VNG="$KITS/vng"
DEBS="$KITS/debs"
STARTED=$SECONDS
say() { printf 'vng: [%3ds] %s\n' "$((SECONDS - STARTED))" "$*" >&2; }
die() { printf 'vng: error: %s\n' "$*" >&2; exit 1; }

KIT_PROPERTIES="$KITS/current/kit.properties"
[[ -f $KIT_PROPERTIES ]] && grep -qx 'complete=true' "$KIT_PROPERTIES" ||
    die "no complete guest kit in $KITS/current (./irdma-emu kit provisions it)"
kit_property() { sed -n "s/^$1=//p" "$KIT_PROPERTIES" | head -n 1; }
KVER="$(kit_property e810.kernel.release)"
read -r -a KERNEL_PARTS <<<"$(kit_property e810.kernel.parts)"
FIRMWARE_PACKAGE="$(kit_property e810.firmware.package)"
MIRROR="$(kit_property archive)"
[[ -n $KVER && ${#KERNEL_PARTS[@]} -gt 0 && -n $FIRMWARE_PACKAGE && -n $MIRROR ]] ||
    die "the kit's kit.properties names no e810 kernel release, kernel packages, firmware package or archive"

RECIPE="$(sha256sum <"$HERE/provision-vng.sh" | cut -c1-12)"
NAME="linux-${KVER}_r${RECIPE}"
DEST="$VNG/$NAME"

complete_vng() { # DIR: true when DIR holds a complete folder of this recipe
    local p="$1/vng.properties"
    [[ -f $p ]] && grep -qx 'complete=true' "$p" && grep -qx "recipe=$RECIPE" "$p"
}
reuse() {
    if complete_vng "$DEST"; then
        ln -sfn "$NAME" "$VNG/current"
        say "reusing virtme-ng in $DEST"
        printf '%s\n' "$DEST"
        exit 0
    fi
}
reuse
mkdir -p "$VNG"
exec 9>"$VNG/.lock"
flock 9 # two provisioners at once: the second waits, then reuses what the first made
reuse

for tool in apt-get dpkg-deb tar depmod modprobe file /usr/bin/python3 sha256sum; do
    command -v "$tool" >/dev/null 2>&1 || die "$tool is missing (./irdma-emu test installs it as root)"
done
/usr/bin/python3 -c 'import argcomplete, requests' 2>/dev/null ||
    die "python3-argcomplete and python3-requests are missing (./irdma-emu test installs them as root)"

# ---- Debian trixie's virtme-ng and the kit's kernel packages, through a private apt configuration ------------

APT="$VNG/work/apt"
mkdir -p "$APT/lists/partial" "$APT/cache" "$APT/log" "$APT/sources.list.d" "$APT/preferences.d" "$VNG/debs/partial"
printf '%s\n' "deb $MIRROR trixie main non-free-firmware" "deb $MIRROR trixie-backports main" >"$APT/sources.list"
: >"$APT/status"
: >"$APT/preferences"
APT_O=(-o "Dir::Etc::sourcelist=$APT/sources.list" -o "Dir::Etc::sourceparts=$APT/sources.list.d"
    -o "Dir::Etc::preferences=$APT/preferences" -o "Dir::Etc::preferencesparts=$APT/preferences.d"
    -o "Dir::State::Lists=$APT/lists" -o "Dir::State::status=$APT/status"
    -o "Dir::State::extended_states=$APT/extended_states" -o "Dir::Cache=$APT/cache"
    -o "Dir::Cache::archives=$VNG/debs" -o "Dir::Log=$APT/log" -o APT::Architecture=amd64
    -o APT::Architectures::=amd64 -o Debug::NoLocking=1 -o Acquire::Languages=none -q)
say "reading the package lists of trixie and trixie-backports (a private apt configuration)"
apt-get "${APT_O[@]}" update >"$APT/update.log" 2>&1 || { cat "$APT/update.log" >&2; die "apt-get update failed"; }
VNG_VERSION="$(apt-cache "${APT_O[@]}" policy virtme-ng | awk '$1 == "Candidate:" {print $2}')"
[[ -n $VNG_VERSION && $VNG_VERSION != "(none)" ]] || die "no virtme-ng package in trixie or trixie-backports"
say "virtme-ng $VNG_VERSION; the kernel: ${KERNEL_PARTS[*]}; $FIRMWARE_PACKAGE"

# Prints the .deb of PACKAGE, downloaded unless the kit's own downloads (debs/trixie) or an earlier run have it.
deb_of() { # PACKAGE
    local f
    f="$(apt-get "${APT_O[@]}" --print-uris download "$1" 2>>"$APT/download.log" | awk '{print $2}')"
    [[ -n $f ]] || { cat "$APT/download.log" >&2; die "no .deb for $1"; }
    if [[ -s $DEBS/trixie/$f ]]; then
        printf '%s\n' "$DEBS/trixie/$f"
        return 0
    fi
    if [[ ! -s $VNG/debs/$f ]]; then
        (cd "$VNG/debs" && apt-get "${APT_O[@]}" download "$1" >>"$APT/download.log" 2>&1) ||
            { cat "$APT/download.log" >&2; die "download of $1 failed"; }
    fi
    printf '%s\n' "$VNG/debs/$f"
}
: >"$APT/download.log"
VNG_DEB="$(deb_of virtme-ng)"
KERNEL_DEBS=()
for p in "${KERNEL_PARTS[@]}"; do KERNEL_DEBS+=("$(deb_of "$p")"); done
FIRMWARE_DEB="$(deb_of "$FIRMWARE_PACKAGE")"

PART="$DEST.partial"
rm -rf "$PART" "$DEST" # a half-made folder is rebuilt from scratch
mkdir -p "$PART/bin"

# ---- virtme-ng ---------------------------------------------------------------------------------------------

dpkg-deb -x "$VNG_DEB" "$PART/virtme-ng"
PYLIB="$PART/virtme-ng/usr/lib/python3/dist-packages"
[[ -f $PART/virtme-ng/usr/bin/vng && -f $PART/virtme-ng/usr/bin/virtme-run && -d $PYLIB/virtme_ng ]] ||
    die "the virtme-ng package has no vng, virtme-run or virtme_ng module"
# every module vng and virtme-run import, on the host's Python (bookworm's 3.11)
PYTHONPATH="$PYLIB" /usr/bin/python3 -c 'import virtme_ng.run, virtme.commands.run, virtme.mkinitramfs' ||
    die "virtme-ng $VNG_VERSION does not import on $(/usr/bin/python3 --version)"

# vng runs virtme-run from PATH, and both find their modules (and their entry points, in the egg-info) on
# PYTHONPATH: one launcher sets both
cat >"$PART/bin/vng" <<'EOF'
#!/bin/sh
# vng from Debian's virtme-ng package, unpacked beside this folder (written by provision-vng.sh)
D="$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)"
PYTHONPATH="$D/virtme-ng/usr/lib/python3/dist-packages${PYTHONPATH:+:$PYTHONPATH}"
PATH="$D/virtme-ng/usr/bin:$PATH"
export PYTHONPATH PATH
exec /usr/bin/python3 "$D/virtme-ng/usr/bin/vng" "$@"
EOF
# the kit's QEMU runs through trixie's own loader (its glibc is newer than the host's): vng's --qemu names this
cat >"$PART/bin/qemu-system-x86_64" <<'EOF'
#!/bin/sh
# the guest kit's QEMU (.cache/kit/current), through the kit's own loader (written by provision-vng.sh)
K="$(cd "$(dirname "$(readlink -f "$0")")/../../../current" && pwd)"
L="$K/qemu/usr/lib/x86_64-linux-gnu"
exec "$L/ld-linux-x86-64.so.2" --library-path "$L" "$K/qemu/usr/bin/qemu-system-x86_64" "$@"
EOF
chmod 755 "$PART/bin/vng" "$PART/bin/qemu-system-x86_64"
VNG_REPORTED="$("$PART/bin/vng" --version 2>&1 | head -n 1)"
QEMU_REPORTED="$("$PART/bin/qemu-system-x86_64" --version | head -n 1)"
say "runs: $VNG_REPORTED; $QEMU_REPORTED"

# ---- the kernel as a root vng boots: the image, all its modules, modules.dep, ice's DDP package -------------

say "unpacking ${KERNEL_PARTS[*]}"
for f in "${KERNEL_DEBS[@]}"; do dpkg-deb -x "$f" "$PART/root"; done
MODDIR="$PART/root/usr/lib/modules/$KVER"
[[ -f $MODDIR/vmlinuz && -d $MODDIR/kernel ]] || die "no usr/lib/modules/$KVER/vmlinuz or modules in ${KERNEL_PARTS[*]}"
# vng looks for lib/modules/<release> above the image (the packages are usr-merged)
[[ -e $PART/root/lib ]] || ln -s usr/lib "$PART/root/lib"
# the image at a fixed name (a hard link: vng reads the release from the file itself, `file` does not follow
# a symbolic link)
ln "$MODDIR/vmlinuz" "$PART/root/vmlinuz" 2>/dev/null || cp "$MODDIR/vmlinuz" "$PART/root/vmlinuz"
rm -rf "$PART/root/usr/share"
depmod -a -b "$PART/root" "$KVER" 2>"$VNG/work/depmod.log" || { cat "$VNG/work/depmod.log" >&2; die "depmod failed"; }
for m in fs-9p ice irdma; do
    modprobe --show-depends -C /var/empty -d "$PART/root" -S "$KVER" -- "$m" >/dev/null 2>&1 ||
        die "modprobe does not resolve $m in $KVER's modules"
done
# ice's DDP package (the guest's firmware loader searches firmware_class.path first): only intel/ice/
dpkg-deb --fsys-tarfile "$FIRMWARE_DEB" | tar -x -C "$PART/root" --wildcards './usr/lib/firmware/intel/ice/*' ||
    die "no intel/ice in $FIRMWARE_PACKAGE"
[[ -e $PART/root/usr/lib/firmware/intel/ice/ddp/ice.pkg ]] || die "no intel/ice/ddp/ice.pkg in $FIRMWARE_PACKAGE"

size_of() { du -sk "$1" | awk '{print $1 * 1024}'; }
{
    printf '# virtme-ng for the README example, written by qemu-bridge/src/main/kit/provision-vng.sh\n'
    printf 'recipe=%s\n' "$RECIPE"
    printf 'virtme-ng.package=virtme-ng\n'
    printf 'virtme-ng.version=%s\n' "$VNG_VERSION"
    printf 'virtme-ng.reported=%s\n' "$VNG_REPORTED"
    printf 'vng=bin/vng\n'
    printf 'qemu=bin/qemu-system-x86_64\n'
    printf 'qemu.reported=%s\n' "$QEMU_REPORTED"
    printf 'kernel.release=%s\n' "$KVER"
    printf 'kernel.packages=%s\n' "${KERNEL_PARTS[*]}"
    printf 'kernel.image=root/vmlinuz\n'
    printf 'kernel.modules=root/lib/modules/%s\n' "$KVER"
    printf 'firmware=root/lib/firmware\n'
    printf 'firmware.package=%s\n' "$FIRMWARE_PACKAGE"
    printf 'size=%s\n' "$(size_of "$PART")"
    printf 'provisioned.seconds=%s\n' "$((SECONDS - STARTED))"
    printf 'complete=true\n' # last: a folder without this line is half-made
} >"$PART/vng.properties.tmp"
mv "$PART/vng.properties.tmp" "$PART/vng.properties"
mv "$PART" "$DEST"
ln -sfn "$NAME" "$VNG/current"
for old in "$VNG"/linux-*; do
    [[ $old == "$DEST" || ! -d $old ]] && continue
    if [[ $old == *.partial ]]; then
        rm -rf "$old" # a provisioner that died half-way left it (a live one would hold the lock)
    else
        say "an older folder stays (another worktree may boot it): $old"
    fi
done
say "virtme-ng ready in $DEST ($(du -sh "$DEST" | cut -f1))"
printf '%s\n' "$DEST"
