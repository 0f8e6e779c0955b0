#!/usr/bin/env bash
# A second, private Docker engine that stands for a remote one (issue 28): a dockerd listening on a loopback TCP port
# (127.0.0.1 only), with its own data root, exec root and pidfile under .cache/remote-engine, and nothing shared with
# the host's engine: no docker0 bridge (--bridge none), no iptables rules (--iptables=false, --ip-masq=false), its
# own address pool. Containers on it reach each other only over the networks the tests make (macvlan without a
# parent: frames between its endpoints never cross a Linux bridge, so the host engine's FORWARD policy, which
# br_netfilter applies to bridged frames, does not see them). Nothing of the host's is bind-mounted into its
# containers: images come in with docker load or are built there, run folders leave with docker cp.
#
#   remote-engine.sh start   start it (as root) unless it already answers; prints its address (tcp://127.0.0.1:PORT)
#                            on stdout, progress on stderr
#   remote-engine.sh stop    stop the dockerd the pidfile names (if it runs)
#   remote-engine.sh address print the address of the running one (exit 1 when none answers)
set -euo pipefail

ROOT="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../../../.." && pwd)"
HOME_DIR="${IRDMA_EMU_REMOTE_ENGINE_DIR:-$ROOT/.cache/remote-engine}"
PIDFILE="$HOME_DIR/dockerd.pid"
PORTFILE="$HOME_DIR/port"
LOG="$HOME_DIR/dockerd.log"
# ports tried, lowest first; the first nobody listens on is taken
FIRST_PORT="${IRDMA_EMU_REMOTE_ENGINE_PORT:-23750}"
PORTS=50
# the engine's own address pool: far from Docker's 172.17-31/16 and 192.168/16 defaults
ADDRESS_POOL="base=10.213.0.0/16,size=24"

say() { printf 'remote-engine: %s\n' "$*" >&2; }

listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

answers() {
    DOCKER_HOST="tcp://127.0.0.1:$1" timeout 10 docker version --format '{{.Server.Version}}' >/dev/null 2>&1
}

running_pid() {
    [[ -f "$PIDFILE" ]] || return 1
    local pid
    pid="$(cat "$PIDFILE")"
    [[ "$pid" =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null && printf '%s\n' "$pid"
}

address() {
    [[ -f "$PORTFILE" ]] && running_pid >/dev/null && answers "$(cat "$PORTFILE")" || return 1
    printf 'tcp://127.0.0.1:%s\n' "$(cat "$PORTFILE")"
}

start() {
    if address; then
        say "already running (pid $(running_pid))"
        return 0
    fi
    [[ $(id -u) -eq 0 ]] || { say "starting a dockerd needs root"; exit 77; }
    command -v dockerd >/dev/null 2>&1 || { say "no dockerd (apt-get install docker.io)"; exit 2; }
    local port="" p
    for ((p = FIRST_PORT; p < FIRST_PORT + PORTS; p++)); do
        if ! listening "$p"; then port=$p; break; fi
    done
    [[ -n "$port" ]] || { say "no free port in $FIRST_PORT..$((FIRST_PORT + PORTS - 1))"; exit 2; }
    mkdir -p "$HOME_DIR/data" "$HOME_DIR/exec"
    say "starting a second private dockerd on tcp://127.0.0.1:$port (log: $LOG)"
    # setsid: its own session, so that the test command's Ctrl-C reaches it only through stop
    setsid dockerd --data-root "$HOME_DIR/data" --exec-root "$HOME_DIR/exec" --pidfile "$PIDFILE" \
        -H "tcp://127.0.0.1:$port" --bridge none --iptables=false --ip-masq=false --ip6tables=false \
        --default-address-pool "$ADDRESS_POOL" --storage-driver overlay2 >"$LOG" 2>&1 </dev/null &
    local pid=$!
    printf '%s\n' "$port" >"$PORTFILE"
    local i
    for ((i = 0; i < 300; i++)); do
        if answers "$port"; then
            say "ready (pid $pid)"
            printf 'tcp://127.0.0.1:%s\n' "$port"
            return 0
        fi
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    say "it did not come up; its log ($LOG):"
    tail -n 20 "$LOG" >&2 || true
    kill "$pid" 2>/dev/null || true
    exit 1
}

stop() {
    local pid
    pid="$(running_pid)" || { say "not running"; return 0; }
    say "stopping the second private dockerd (pid $pid)"
    kill "$pid"
    local i
    for ((i = 0; i < 200; i++)); do
        kill -0 "$pid" 2>/dev/null || { rm -f "$PORTFILE"; return 0; }
        sleep 0.1
    done
    say "pid $pid still runs after 20 s"
    return 1
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    address) address ;;
    *) say "usage: remote-engine.sh start|stop|address"; exit 64 ;;
esac
