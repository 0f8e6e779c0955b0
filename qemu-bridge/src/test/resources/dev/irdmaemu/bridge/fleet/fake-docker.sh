#!/bin/bash
# A stand-in for the docker CLI in FleetTest: an engine whose containers run no QEMU. It keeps its state beside
# itself (STATE=<this folder>/state): each container's scenario, and a line per start and end with the time, so the
# test can tell how many ran at once. What a container does depends on its scenario:
#   ping             prints a passing report, exit 0
#   rping-server     prints a failing report (status FAILED, two detail lines), exit 1
#   ucmatose-client  prints nothing, the engine's own error on stderr, exit 125
#   rping-client     prints a report with characters XML cannot carry, exit 1
#   anything else    passes as ping does
set -u
STATE="$(dirname "$0")/state"
mkdir -p "$STATE"
[[ "$1" == "-H" ]] || { echo "fake docker: -H first" >&2; exit 2; }
shift 2
cmd="$1"; shift
case "$cmd" in
    create)
        echo "$*" >>"$STATE/create-args"
        name=""; scenario=""
        while (($# > 0)); do
            case "$1" in
                --name) name="$2"; shift 2 ;;
                --scenario) scenario="$2"; shift 2 ;;
                *) shift ;;
            esac
        done
        [[ "$scenario" == "smoke" && -f "$STATE/refuse-smoke" ]] && { echo "Error: no space left" >&2; exit 1; }
        echo "$scenario" >"$STATE/$name"
        echo "0123456789ab"
        ;;
    start)
        name="${!#}"
        scenario="$(cat "$STATE/$name")"
        echo "start $(date +%s%N)" >>"$STATE/events"
        sleep 0.4
        echo "end $(date +%s%N)" >>"$STATE/events"
        case "$scenario" in
            rping-server)
                printf 'scenario  rping-server: x\nstatus    FAILED: the node saw 3 of 10 pings\n          | rping: timeout\n          | guest: step rping\nguest     fail\n'
                echo "boot: progress" >&2
                exit 1 ;;
            ucmatose-client)
                echo "docker: Error response from daemon: OCI runtime create failed" >&2
                exit 125 ;;
            rping-client)
                printf 'scenario  rping-client\nstatus    FAILED: odd \001\002 bytes <&> "q"\n'
                exit 1 ;;
            *)
                printf 'scenario  %s: x\nstatus    ok\nguest     ok\n' "$scenario"
                exit 0 ;;
        esac
        ;;
    cp)
        dest="$2"
        mkdir -p "$dest"
        echo "console of ${1%%:*}" >"$dest/console.log"
        ;;
    kill) ;;
    rm)
        name="${!#}"
        echo "$name" >>"$STATE/removed"
        ;;
    images)
        [[ -f "$STATE/images" ]] && cat "$STATE/images"
        ;;
    *) echo "fake docker: $cmd?" >&2; exit 2 ;;
esac
