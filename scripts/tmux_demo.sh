#!/usr/bin/env bash
# What a player sees: `pageone host` with CPU players on the table screen, in tmux at 80x24,
# inside a network namespace of its own (only loopback; the mDNS advert never leaves it). A hand
# is played as a person would (the hint's command each turn, catches when offered), the terminal
# is resized to 120x40 and back, and every captured screen is saved and printed.
#
#   scripts/tmux_demo.sh [--rules qdan] [--bots 5] [other pageone host flags]
#
# Screens go to $PAGEONE_DEMO_OUT (default: ./demo-screens). Set NO_COLOR=1 to try that too.
# Needs root (unshare -n), tmux, and the package installed for $PYTHON (default: python3).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
python=${PYTHON:-$( [ -x "$here/.venv/bin/python" ] && echo "$here/.venv/bin/python" || command -v python3)}
out=${PAGEONE_DEMO_OUT:-$PWD/demo-screens}
if [ -z "${PAGEONE_DEMO_NS:-}" ]; then
  exec unshare -n env PAGEONE_DEMO_NS=1 PYTHON="$python" PAGEONE_DEMO_OUT="$out" bash "$0" "$@"
fi
ip link set lo up
ip route add 224.0.0.0/4 dev lo 2>/dev/null || true
mkdir -p "$out"
home=$(mktemp -d)
sock=pageone-demo-$$
trap 'tmux -L "$sock" kill-server 2>/dev/null || true; rm -rf "$home"' EXIT
colour=""
[ -n "${NO_COLOR:-}" ] && colour="NO_COLOR=1"
bots=3
case " $* " in *" --bots "*) bots="" ;; esac
run="cd '$here' && $colour HOME='$home' XDG_CONFIG_HOME='$home/cfg' XDG_DATA_HOME='$home/data' \
  '$python' -m p2p_pageone.cli.main host --name alice ${bots:+--bots $bots} \
  --interface 127.0.0.1 --think 0.3 $*; echo \"[pageone exited with \$?]\"; sleep 30"
tmux -L "$sock" new-session -d -s demo -x 80 -y 24 "$run"

screen() { tmux -L "$sock" capture-pane -p -t demo; }
shots=0
save() {  # save NAME: the screen as it is now, printed and kept
  shots=$((shots + 1))
  local file; file=$(printf '%s/%02d-%s.txt' "$out" "$shots" "$1")
  screen > "$file"
  echo "=== $1 ($(tmux -L "$sock" display -p -t demo '#{window_width}x#{window_height}'))"
  cat "$file"
}
wait_for() {  # wait_for REGEX [SECONDS]
  for _ in $(seq 1 $((${2:-30} * 10))); do
    screen | grep -q -E -- "$1" && return 0
    sleep 0.1
  done
  return 1
}
type_line() { tmux -L "$sock" send-keys -t demo "$1" Enter; sleep "${2:-0.5}"; }

wait_for "YOUR TURN" 60 || { save "no-turn"; exit 1; }
save "first-turn"
type_line "help catch" 1
save "help-catch"
turns=0
while [ $turns -lt 80 ]; do
  if screen | grep -q -E "hand 1: OK|hand 1 over|— hand 2|^hand 2 |game over"; then break; fi
  catch=$(screen | grep -o -E "Type catch [^ ]+ now" | head -1 | awk '{print $3}' || true)
  if [ -n "$catch" ]; then type_line "catch $catch"; continue; fi
  if screen | grep -q "Type pageone now"; then type_line "pageone"; continue; fi
  if ! screen | grep -q "^YOUR TURN"; then sleep 0.3; continue; fi
  hint=$(screen | grep -o -E "e\.g\. play [a-z0-9 ]+ !" | head -1 | sed 's/^e\.g\. //' || true)
  [ -n "$hint" ] || hint=$(screen | sed -n '/^YOUR TURN/,/^you hold/p' \
    | grep -o -E "play [a-z0-9]+|draw" | grep -v "play the" | head -1 || true)
  type_line "${hint:-draw}" 0.6
  turns=$((turns + 1))
  [ $turns -eq 2 ] && save "after-two-turns"
done
save "hand-played"
tmux -L "$sock" resize-window -t demo -x 120 -y 40; sleep 1
save "resized-120x40"
tmux -L "$sock" resize-window -t demo -x 80 -y 24; sleep 1
save "back-to-80x24"
type_line "quit"
type_line "y" 4
save "after-quit"
echo "screens saved in $out"
