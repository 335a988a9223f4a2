#!/bin/sh
# The README's set-up commands are the ones people copy: the test command must be the one CI runs
# (.ci/run, the line after its "README test command" heading), word for word, as an indented
# code line; the launch command must build and start the app; the first line is the title.
set -eu
root=$1
readme="$root/README.md"
fail() {
  echo "README check: $*" >&2
  exit 1
}
test_cmd=$(sed -n '/== README test command/{n;p;q;}' "$root/.ci/run")
[ -n "$test_cmd" ] || fail ".ci/run has no line after its README test command heading"
grep -qxF "    $test_cmd" "$readme" || fail "the test command CI runs is not in the README: $test_cmd"
launch=$(printf '%s' "$test_cmd" | sed 's|&& ctest --test-dir build -j2 --output-on-failure$|\&\& ./build/pe-explorer|')
grep -qxF "    $launch" "$readme" || fail "the README does not have the launch command: $launch"
[ "$(head -n 1 "$readme")" = "# PE Explorer" ] || fail "the first line is not the title '# PE Explorer'"
echo "README commands match .ci/run"
