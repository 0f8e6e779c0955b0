#!/usr/bin/env bash
# Builds the local container image the container end-to-end tests boot guests in, from a provisioned guest kit.
#   build-image.sh [KIT_DIR]     (default: $IRDMA_EMU_KIT, as the tests' GuestKit takes it, else .cache/kit/current
#                                 of this repository)
# Prints the image's name (repository:tag) on stdout, progress on stderr. No registry is involved: the root file
# system is busybox-static (the shell Testcontainers' helper containers need) and the kit itself, under /kit,
# made into an image with `docker import`. QEMU runs through the kit's own loader and libraries, so the image
# needs no C library of its own. The tag is derived from the kit's kit.properties (recipe, QEMU and kernel
# versions) and from this script; an image with that tag already there is reused, not rebuilt.
# Needs: a reachable Docker engine (DOCKER_HOST or /var/run/docker.sock) and the docker CLI, busybox-static.
set -euo pipefail

ROOT="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../../../.." && pwd)"
KIT="${1:-${IRDMA_EMU_KIT:-$ROOT/.cache/kit/current}}"
REPOSITORY="irdma-emu-guest"
# where the image holds the kit: QemuGuestContainer.KIT_IN_IMAGE
KIT_IN_IMAGE="/kit"
BUSYBOX="${BUSYBOX:-/bin/busybox}"

say() { printf 'build-image: %s\n' "$*" >&2; }

manifest="$KIT/kit.properties"
if [[ ! -f "$manifest" ]] || ! grep -qx 'complete=true' "$manifest"; then
    say "no complete guest kit in $KIT: provision one with ./irdma-emu kit"
    exit 2
fi
prop() { sed -n "s/^$1=//p" "$manifest" | head -n 1; }
# Docker tags are [A-Za-z0-9_.-], at most 128 characters, not starting with . or -
tagword() { printf '%s' "$1" | tr -c 'A-Za-z0-9_.-' '_'; }
recipe="$(prop recipe)"
qemu_version="$(prop qemu.version)"
kernel_release="$(prop kernel.release)"
[[ -n "$recipe" && -n "$qemu_version" && -n "$kernel_release" ]] || {
    say "$manifest lacks recipe, qemu.version or kernel.release"
    exit 2
}
self_digest="$(sha256sum "${BASH_SOURCE[0]}" | cut -c1-8)"
tag="r$(tagword "$recipe")_qemu-$(tagword "${qemu_version#*:}")_linux-$(tagword "$kernel_release")_i$self_digest"
image="$REPOSITORY:${tag:0:128}"

command -v docker >/dev/null 2>&1 || { say "no docker CLI (apt-get install docker.io)"; exit 2; }
if docker image inspect "$image" >/dev/null 2>&1; then
    say "reusing $image"
    printf '%s\n' "$image"
    exit 0
fi
# the image has no C library: its busybox must be static (busybox-static's; Debian's busybox is dynamic)
if [[ ! -x "$BUSYBOX" ]] || LC_ALL=C ldd "$BUSYBOX" 2>&1 | grep -q '=>'; then
    say "no static busybox at $BUSYBOX (apt-get install busybox-static)"
    exit 2
fi

started=$SECONDS
work="$(mktemp -d "${TMPDIR:-/tmp}/irdma-emu-image.XXXXXX")"
trap 'rm -rf "$work"' EXIT
rootfs="$work/rootfs"
mkdir -p "$rootfs"/{bin,dev,proc,sys,tmp,run,etc} "$rootfs$KIT_IN_IMAGE"
chmod 1777 "$rootfs/tmp"
cp "$BUSYBOX" "$rootfs/bin/busybox"
for applet in $("$BUSYBOX" --list); do
    [[ "$applet" == busybox ]] || ln -s busybox "$rootfs/bin/$applet"
done
printf 'root:x:0:0:root:/:/bin/sh\n' >"$rootfs/etc/passwd"
printf 'root:x:0:\n' >"$rootfs/etc/group"
# the kit's files as they are (its real folder, not the .cache/kit/current symlink)
cp -a "$(readlink -f "$KIT")/." "$rootfs$KIT_IN_IMAGE/"
say "importing $image (kit $(readlink -f "$KIT"))..."
tar -C "$rootfs" --numeric-owner -cf - . | docker import \
    --change 'CMD ["/bin/sh"]' \
    --change 'ENV PATH=/bin' \
    --change "LABEL dev.irdmaemu.kit.recipe=$recipe" \
    --change "LABEL dev.irdmaemu.kit.qemu=$qemu_version" \
    --change "LABEL dev.irdmaemu.kit.kernel=$kernel_release" \
    --message "irdma-emu guest kit $recipe" - "$image" >/dev/null
say "built $image in $((SECONDS - started)) s ($(docker image inspect --format '{{.Size}}' "$image") bytes)"
printf '%s\n' "$image"
