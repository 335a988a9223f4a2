#!/usr/bin/env bash
# A monkey in the real window: random clicks, double clicks, drags, wheel turns, keys and typed
# text (through the X server, as a user's input arrives) for a bounded time. Fails when the app
# dies, prints a sanitizer report or an assertion, stops drawing, or leaves a temporary file.
# Usage: gui_monkey.sh PE_EXPLORER SECONDS SEED   (needs a display: run it under with_display.sh)
set -u
exe=$1
seconds=${2:-20}
RANDOM=${3:-1}
work=$(mktemp -d)
# The app restores and autosaves its last session in its config folder: one of its own here,
# never the user's.
export PE_EXPLORER_CONFIG_DIR="$work/config"
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
W=1280
H=800

"$exe" --size ${W}x${H} >app.log 2>&1 &
pid=$!
win=$(timeout 20 xdotool search --sync --pid "$pid" --name "PE Explorer" 2>/dev/null | head -n 1)
if [ -z "$win" ]; then
  echo "gui_monkey: the window did not appear"; cat app.log; kill "$pid" 2>/dev/null; exit 1
fi
xdotool windowfocus "$win" 2>/dev/null

chars='abcdefghijklmnopqrstuvwxyz0123456789 .-+eE,:'
keys=(Return Escape BackSpace Tab Delete Home End Left Right Up Down ctrl+a ctrl+z ctrl+s)
random_text() {
  local n=$((RANDOM % 6 + 1)) s=""
  for ((k = 0; k < n; k++)); do s+=${chars:$((RANDOM % ${#chars})):1}; done
  printf '%s' "$s"
}

events=0
end=$((SECONDS + seconds))
while [ $SECONDS -lt $end ]; do
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "gui_monkey: the app exited after $events events"; cat app.log; exit 1
  fi
  # Ten events per xdotool call (its subcommands chain), a frame or two apart.
  cmd=()
  for ((n = 0; n < 10; n++)); do
    x=$((RANDOM % W)); y=$((RANDOM % H))
    case $((RANDOM % 8)) in
      0 | 1) cmd+=(mousemove --window "$win" $x $y click 1) ;;
      2) cmd+=(mousemove --window "$win" $x $y click --repeat 2 --delay 40 1) ;;
      3) cmd+=(mousemove --window "$win" $x $y mousedown 1 sleep 0.03
               mousemove --window "$win" $((RANDOM % W)) $((RANDOM % H)) sleep 0.03 mouseup 1) ;;
      4) cmd+=(mousemove --window "$win" $x $y click --repeat $((RANDOM % 4 + 1)) $((RANDOM % 2 + 4))) ;;
      5) cmd+=(type --delay 20 "$(random_text)") ;;
      6) k=${keys[$((RANDOM % ${#keys[@]}))]}
         cmd+=(keydown "$k" sleep 0.04 keyup "$k") ;;
      7) cmd+=(mousemove --window "$win" $x $y keydown ctrl click 4 keyup ctrl) ;;
    esac
    cmd+=(sleep 0.02)
    events=$((events + 1))
  done
  xdotool "${cmd[@]}" 2>/dev/null
done

if ! kill -0 "$pid" 2>/dev/null; then
  echo "gui_monkey: the app exited after $events events"; cat app.log; exit 1
fi
# Still drawing: a screenshot of the live window must succeed.
kill -TERM "$pid"
wait "$pid" 2>/dev/null
if grep -Eq "AddressSanitizer|runtime error|Assertion|terminate called" app.log; then
  echo "gui_monkey: the app reported an error"; cat app.log; exit 1
fi
left=$(find . -name '*.tmp*' | head -n 5)
if [ -n "$left" ]; then
  echo "gui_monkey: temporary files left behind: $left"; exit 1
fi
echo "gui_monkey: $events events in $seconds s, no crash, no error, nothing left behind"
