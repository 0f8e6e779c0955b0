#!/usr/bin/env bash
# Builds the self-contained irdma-emu image: the model (a Java runtime unpacked from Debian's packages and the
# project's jars), the guest kit (QEMU, kernels, initramfs, the DDP package) and an entry point that runs
# `irdma-emu ARGS` inside the container. Imported with `docker import` from a root file system made here: nothing is
# pulled from an image registry. Prints the image's name on stdout, progress on stderr.
#
#   build-app-image.sh [--save FILE]
#       needs: a complete guest kit (./irdma-emu kit), the build (qemu-bridge/target), a docker CLI with an engine,
#       a static busybox, and apt-get (the runtime's .debs come from the machine's own apt sources, as the kit's
#       do from its private ones). --save also writes the image with `docker save` (for `docker load` elsewhere).
#
# The tag names the project's version and the kit's recipe: irdma-emu:<version>_r<recipe>_i<this script's digest>.
set -euo pipefail

ROOT="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../../../.." && pwd)"
KIT="${IRDMA_EMU_KIT:-$ROOT/.cache/kit/current}"
TARGET="$ROOT/qemu-bridge/target"
PROPS="$TARGET/classes/dev/irdmaemu/bridge/cli/build.properties"
DEBS="$ROOT/.cache/app-image/debs"
BUSYBOX="${BUSYBOX:-/bin/busybox}"
REPOSITORY="irdma-emu"
# the Java runtime, and the one library it needs that the kit's QEMU root does not carry
RUNTIME_PACKAGES=(openjdk-17-jre-headless libstdc++6)
JAVA_HOME_IN_IMAGE="/usr/lib/jvm/java-17-openjdk-amd64"

say() { printf 'build-app-image: %s\n' "$*" >&2; }

save=""
while (($# > 0)); do
    case "$1" in
        --save) save="${2:?--save FILE}"; shift 2 ;;
        *) say "unknown argument: $1 (build-app-image.sh [--save FILE])"; exit 64 ;;
    esac
done

manifest="$KIT/kit.properties"
if [[ ! -f "$manifest" ]] || ! grep -qx 'complete=true' "$manifest"; then
    say "no complete guest kit in $KIT: provision one with ./irdma-emu kit"
    exit 2
fi
prop() { sed -n "s/^$1=//p" "$2" | head -n 1; }
recipe="$(prop recipe "$manifest")"
loader="$(prop qemu.loader "$manifest")"
libdir="$(prop qemu.library.path "$manifest")"
[[ -f "$PROPS" && -f "$TARGET/qemu-bridge-$(prop version "$PROPS").jar" && -d "$TARGET/lib" ]] || {
    say "no build in $TARGET: run ./irdma-emu --version first"
    exit 2
}
version="$(prop version "$PROPS")"
flags="$(prop chronicle.jvm.args "$PROPS")"
case " $flags " in
    *" -Dchronicle.analytics.disable=true "*) ;;
    *) say "$PROPS lacks -Dchronicle.analytics.disable=true; refusing to build an image that could phone home"; exit 70 ;;
esac
command -v docker >/dev/null 2>&1 || { say "no docker CLI (apt-get install docker.io)"; exit 2; }
if [[ ! -x "$BUSYBOX" ]] || LC_ALL=C ldd "$BUSYBOX" 2>&1 | grep -q '=>'; then
    say "no static busybox at $BUSYBOX (apt-get install busybox-static)"
    exit 2
fi

self_digest="$(sha256sum "${BASH_SOURCE[0]}" | cut -c1-8)"
jar_digest="$(cat "$TARGET/qemu-bridge-$version.jar" "$TARGET"/lib/*.jar | sha256sum | cut -c1-8)"
tag="$(printf '%s_r%s_i%s_j%s' "$version" "$recipe" "$self_digest" "$jar_digest" | tr -c 'A-Za-z0-9_.-' '_')"
image="$REPOSITORY:${tag:0:128}"
if docker image inspect "$image" >/dev/null 2>&1; then
    say "reusing $image"
else
    started=$SECONDS
    mkdir -p "$DEBS"
    for p in "${RUNTIME_PACKAGES[@]}"; do
        if ! compgen -G "$DEBS/${p}_*.deb" >/dev/null; then
            say "downloading $p (apt-get download)..."
            (cd "$DEBS" && apt-get download -q "$p" >&2) || { say "apt-get download $p failed"; exit 2; }
        fi
    done
    work="$(mktemp -d "${TMPDIR:-/tmp}/irdma-emu-app-image.XXXXXX")"
    trap 'rm -rf "$work"' EXIT
    rootfs="$work/rootfs"
    mkdir -p "$rootfs"/{bin,dev,proc,sys,tmp,run,etc,work,lib64,opt/irdma-emu/lib,usr/lib/x86_64-linux-gnu}
    chmod 1777 "$rootfs/tmp"
    cp "$BUSYBOX" "$rootfs/bin/busybox"
    for applet in $("$BUSYBOX" --list); do
        [[ "$applet" == busybox ]] || ln -s busybox "$rootfs/bin/$applet"
    done
    printf 'root:x:0:0:root:/work:/bin/sh\n' >"$rootfs/etc/passwd"
    printf 'root:x:0:\n' >"$rootfs/etc/group"
    # the C library and loader of the kit's QEMU serve the Java runtime too (newer than what it was built for)
    cp -a "$KIT/$libdir/." "$rootfs/usr/lib/x86_64-linux-gnu/"
    cp -L "$KIT/$loader" "$rootfs/lib64/ld-linux-x86-64.so.2"
    for deb in "$DEBS"/*.deb; do
        dpkg-deb -x "$deb" "$rootfs"
    done
    [[ -x "$rootfs$JAVA_HOME_IN_IMAGE/bin/java" ]] || { say "no java in the unpacked runtime"; exit 2; }
    mkdir -p "$rootfs/kit"
    cp -a "$(readlink -f "$KIT")/." "$rootfs/kit/"
    cp "$TARGET/qemu-bridge-$version.jar" "$rootfs/opt/irdma-emu/irdma-emu.jar"
    cp "$TARGET"/lib/*.jar "$rootfs/opt/irdma-emu/lib/"
    cat >"$rootfs/bin/irdma-emu" <<EOF
#!/bin/sh
# irdma-emu $version in its image: the kit at /kit, run folders under the working directory (/work)
export IRDMA_EMU_KIT=/kit
export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu
exec $JAVA_HOME_IN_IMAGE/bin/java $flags \${IRDMA_EMU_JAVA_OPTS:-} -cp /opt/irdma-emu/irdma-emu.jar:/opt/irdma-emu/lib/* dev.irdmaemu.bridge.cli.Main "\$@"
EOF
    chmod 755 "$rootfs/bin/irdma-emu"
    say "importing $image ($(du -sh "$rootfs" | cut -f1) root file system)..."
    tar -C "$rootfs" --numeric-owner -cf - . | docker import \
        --change 'ENTRYPOINT ["/bin/irdma-emu"]' \
        --change 'CMD ["boot"]' \
        --change 'WORKDIR /work' \
        --change 'ENV PATH=/bin' \
        --change "LABEL dev.irdmaemu.version=$version" \
        --change "LABEL dev.irdmaemu.kit.recipe=$recipe" \
        --message "irdma-emu $version with kit $recipe" - "$image" >/dev/null
    say "built $image in $((SECONDS - started)) s"
fi
if [[ -n "$save" ]]; then
    say "saving $image to $save (docker load -i $save elsewhere)..."
    docker save -o "$save" "$image"
fi
printf '%s\n' "$image"
