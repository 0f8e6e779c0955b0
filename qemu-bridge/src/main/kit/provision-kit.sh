#!/usr/bin/env bash
# Provisions the guest kit the end-to-end tests boot: QEMU from Debian trixie-backports (unpacked, never
# installed), Debian 12's kernel and a subset of its modules, siw.ko built from Debian 12's linux-source, and an
# initramfs of Debian 12 userspace (busybox-static, rdma-core's tools and the siw provider, iproute2's rdma).
#
#   provision-kit.sh [--cache DIR] [--refresh]
#
#   --cache DIR   the project cache folder (default: the repository's .cache); the kit goes to DIR/kit/NAME/
#                 and DIR/kit/current points at it
#   --refresh     ask the archive for newer versions even when a complete kit is there
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
while (($# > 0)); do
    case "$1" in
        --cache) CACHE="$2"; shift 2 ;;
        --refresh) REFRESH=1; shift ;;
        -h | --help) sed -n '2,20p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
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
USER_PACKAGES=(busybox-static rdmacm-utils ibverbs-providers ibverbs-utils libibverbs1 librdmacm1 iproute2)
USER_PROGRAMS=(usr/bin/rping usr/bin/ucmatose usr/bin/ibv_devices usr/bin/ibv_devinfo usr/bin/rdma_server
    usr/bin/rdma_client usr/bin/rdma bin/ip)
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

TRIXIE_SOURCES="deb $MIRROR trixie main
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
say "versions: qemu-system-x86 $QEMU_VERSION (trixie-backports), $KERNEL_PACKAGE $KERNEL_VERSION (bookworm)"

NAME="qemu-${QEMU_VERSION#*:}_linux-${KVER}_r${RECIPE}"
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
for b in rping ucmatose ibv_devices rdma; do
    [[ -e $IRD/sbin/$b ]] || die "$b is not in the guest userspace packages"
done
# the siw provider, dlopened by libibverbs: its driver file and its library
mkdir -p "$IRD/etc/libibverbs.d" "$IRD/usr/lib/x86_64-linux-gnu/libibverbs"
cp "$U/etc/libibverbs.d/siw.driver" "$IRD/etc/libibverbs.d/"
PROVIDER="$(ls "$U"/usr/lib/x86_64-linux-gnu/libibverbs/libsiw-rdmav*.so | head -n 1)"
[[ -n $PROVIDER ]] || die "no siw provider in ibverbs-providers"
copy_with_libs "$PROVIDER" "$IRD/usr/lib/x86_64-linux-gnu/libibverbs/$(basename "$PROVIDER")"
cp -L "$LOADER" "$IRD/lib64/ld-linux-x86-64.so.2"
# glibc dlopens libgcc_s for pthread_exit and cancellation (rping's threads end so): no ELF entry names it
copy_lib "$(ls "$U"/lib/x86_64-linux-gnu/libgcc_s.so.1 "$U"/usr/lib/x86_64-linux-gnu/libgcc_s.so.1 2>/dev/null | head -n 1)"
printf 'root:x:0:0:root:/root:/bin/sh\n' >"$IRD/etc/passwd"
printf 'root:x:0:\n' >"$IRD/etc/group"

# The module subset, in load order: each module after everything it depends on (the "depends=" entry of its
# .modinfo section; the package ships no modules.dep, depmod writes that at install time).
MODSRC="$STAGE/kernel/lib/modules/$KVER"
[[ -d $MODSRC/kernel ]] || die "no modules in $KERNEL_PACKAGE"
declare -A PATHOF DONE
while IFS= read -r path; do
    name="$(basename "$path")"
    name="${name%%.ko*}"
    PATHOF[${name//-/_}]="$path"
done < <(find "$MODSRC/kernel" -name '*.ko' -o -name '*.ko.xz')
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
    [[ -n ${PATHOF[$m]:-} ]] || die "module $m is not in $KERNEL_PACKAGE"
    local d
    for d in $(module_depends "$m"); do visit "${d//-/_}"; done
    ORDER+=("$m")
}
BUILTIN=()
for m in "${GUEST_MODULES[@]}"; do
    if [[ -n ${PATHOF[$m]:-} ]]; then
        visit "$m"
    elif grep -q "/${m//_/[_-]}\.ko\$" "$MODSRC/modules.builtin" 2>/dev/null; then
        BUILTIN+=("$m")
    else
        die "module $m is neither a module nor built into $KVER"
    fi
done
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
(cd "$IRD" && find . -mindepth 1 | LC_ALL=C sort | "$IRD/bin/busybox" cpio -o -H newc 2>/dev/null) | gzip -6 >"$PART/initramfs.cpio.gz"
[[ -s $PART/initramfs.cpio.gz ]] || die "the initramfs is empty"

# ---- manifest ---------------------------------------------------------------------------------------------

size_of() { du -sk "$1" | awk '{print $1 * 1024}'; }
DOWNLOADED="$(du -sck "${QEMU_DEBS[@]}" "${KDEBS[@]}" "${UDEBS[@]}" | awk 'END {print $1 * 1024}')"
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
    printf 'modules=%s\n' "${ORDER[*]} siw"
    printf 'modules.builtin=%s\n' "${BUILTIN[*]}"
    printf 'initramfs=initramfs.cpio.gz\n'
    printf 'initramfs.programs=%s\n' "${FOUND[*]}"
    printf 'initramfs.size=%s\n' "$(stat -c %s "$PART/initramfs.cpio.gz")"
    printf 'download.size=%s\n' "$DOWNLOADED"
    printf 'kit.size=%s\n' "$(size_of "$PART")"
    printf 'archive=%s\n' "$MIRROR"
    printf 'provisioned.seconds=%s\n' "$((SECONDS - STARTED))"
    printf 'complete=true\n' # last: a kit without this line is half-made
} >"$PART/kit.properties.tmp"
mv "$PART/kit.properties.tmp" "$PART/kit.properties"
mv "$PART" "$KIT"
ln -sfn "$NAME" "$KITS/current"
# older kits of other versions or recipes are dropped (the .debs stay for reuse)
for old in "$KITS"/qemu-*; do
    [[ $old == "$KIT" ]] || rm -rf "$old"
done
say "kit ready in $KIT ($(du -sh "$KIT" | cut -f1), downloads $((DOWNLOADED / 1048576)) MB)"
printf '%s\n' "$KIT"
