#!/usr/bin/env bash
# What a player sees: `pageone host` with three CPU players in tmux, inside a network namespace
# of its own (only loopback; the mDNS advert never leaves it). A few commands are typed as a
# person would, and the captured screens are printed.
#
#   scripts/tmux_demo.sh [--rules qdan] [other pageone host flags]
#
# Needs root (unshare -n), tmux, and the package installed for $PYTHON (default: python3).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
python=${PYTHON:-$( [ -x "$here/.venv/bin/python" ] && echo "$here/.venv/bin/python" || command -v python3)}
if [ -z "${PAGEONE_DEMO_NS:-}" ]; then
  exec unshare -n env PAGEONE_DEMO_NS=1 PYTHON="$python" bash "$0" "$@"
fi
ip link set lo up
ip route add 224.0.0.0/4 dev lo 2>/dev/null || true
home=$(mktemp -d)
trap 'tmux -L "$sock" kill-server 2>/dev/null || true; rm -rf "$home"' EXIT
sock=pageone-demo-$$
run="cd '$here' && HOME='$home' XDG_CONFIG_HOME='$home/cfg' XDG_DATA_HOME='$home/data' \
  '$python' -m p2p_pageone.cli.main host --name alice --bots 3 --interface 127.0.0.1 $*; \
  echo \"[pageone exited with \$?]\"; sleep 30"
tmux -L "$sock" new-session -d -s demo -x 100 -y 36 "$run"

screen() { tmux -L "$sock" capture-pane -p -t demo | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'; }
wait_for() {  # wait_for TEXT [SECONDS]
  for _ in $(seq 1 $((${2:-30} * 10))); do
    screen | grep -q -- "$1" && return 0
    sleep 0.1
  done
  echo "(timed out waiting for: $1)"
}
type_line() { tmux -L "$sock" send-keys -t demo "$1" Enter; sleep "${2:-1}"; }

wait_for "YOUR TURN" 60
type_line "hand"
type_line "help catch"
hint=$(screen | grep -A1 "YOUR TURN" | tail -1 | grep -o -E "play [a-z0-9]+|draw" | head -1)
type_line "${hint:-draw}" 4
echo "=== the screen after: hand, help catch, ${hint:-draw}"
screen
type_line "quit"
type_line "y" 4
echo
echo "=== after quit, y"
screen | tail -8
