#!/bin/sh
# The help text help2man turns into the man page: `pe-explorer --help` with the usage line first
# (as help2man reads it), then the options only `export` takes, from `pe-explorer export --help`
# (export takes every parameter option too; those are listed once, above it).
#   man_help.sh PE_EXPLORER [--help | --version]
set -eu
exe=$1
shift
if [ "${1:-}" = "--version" ]; then
  printf 'pe-explorer %s\n' "$("$exe" --version)"
  exit 0
fi
main_help=$("$exe" --help)
export_help=$("$exe" export --help)
printf '%s\n' "$main_help" | sed -n '/^Usage:/p'
printf '  or:  pe-explorer export --view NAME [OPTIONS] -o FILE\n'
printf '%s\n' "$main_help" | sed '/^Usage:/d'
printf '\nExport options:\n'
printf '%s\n' "$export_help" | sed -n '/^Options:/,$p' | sed 1d | awk -v main="$main_help" '
  BEGIN {
    n = split(main, lines, "\n")
    for (i = 1; i <= n; i++) if (lines[i] ~ /^  -/) { split(lines[i], f, " "); seen[f[1]] = 1 }
  }
  /^  -/ { split($0, f, " "); keep = !(f[1] in seen) }
  /^ *$/ { keep = 0 }
  keep { print }
'
