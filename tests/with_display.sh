#!/bin/sh
# Runs a command on the current X display, or on a virtual one (xvfb-run) when there is none.
if [ -n "$DISPLAY" ]; then
  exec "$@"
fi
exec xvfb-run -a -s "-screen 0 1280x800x24" "$@"
