#!/bin/sh
# Installs the build into a fresh prefix and checks what a desktop install needs: the binary
# runs from there (--version, one PNG export, from another working directory), the .desktop
# entry (valid per desktop-file-validate when it is installed), the icon in every size the
# hicolor theme looks up (each PNG of its stated size), and the man page listing `export` and
# its flags (rendered by man when it is installed).
#   check_install.sh CMAKE BUILD_DIR PREFIX VERSION
set -eu
cmake=$1 build=$2 prefix=$3 version=$4
fail() { echo "FAIL: $*" >&2; exit 1; }

rm -rf "$prefix"
"$cmake" --install "$build" --prefix "$prefix" >/dev/null || fail "cmake --install"

exe=$prefix/bin/pe-explorer
[ -x "$exe" ] || fail "no executable $exe"
got=$(cd / && "$exe" --version) || fail "$exe --version exited with an error"
[ "$got" = "$version" ] || fail "--version printed \"$got\", expected \"$version\""

# 8 bytes of a file as hex, e.g. 89504e470d0a1a0a for a PNG.
hex() { od -An -tx1 -j "$2" -N "$3" "$1" | tr -d ' \n'; }
is_png() { [ -f "$1" ] && [ "$(hex "$1" 0 8)" = "89504e470d0a1a0a" ]; }

mkdir -p "$prefix/out"
(cd / && "$exe" export --view heatmap --d-model 16 --max-len 20 -o "$prefix/out/heatmap.png") ||
  fail "export --view heatmap exited with an error"
is_png "$prefix/out/heatmap.png" || fail "export did not write a PNG"

desktop=$prefix/share/applications/pe-explorer.desktop
[ -f "$desktop" ] || fail "no $desktop"
grep -qx 'Exec=pe-explorer' "$desktop" || fail "$desktop does not run pe-explorer"
grep -qx 'Icon=pe-explorer' "$desktop" || fail "$desktop does not name the pe-explorer icon"
if command -v desktop-file-validate >/dev/null 2>&1; then
  desktop-file-validate "$desktop" || fail "desktop-file-validate rejects $desktop"
else
  echo "desktop-file-validate not installed: .desktop syntax not checked"
fi

icons=$prefix/share/icons/hicolor
svg=$icons/scalable/apps/pe-explorer.svg
[ -f "$svg" ] || fail "no $svg"
grep -q '<svg' "$svg" || fail "$svg is not an SVG"
for n in 16 22 24 32 48 64 128 256; do
  png=$icons/${n}x${n}/apps/pe-explorer.png
  is_png "$png" || fail "no PNG $png"
  # IHDR: width and height as big-endian 32-bit integers at bytes 16 and 20.
  size=$(printf '%d %d' "0x$(hex "$png" 16 4)" "0x$(hex "$png" 20 4)")
  [ "$size" = "$n $n" ] || fail "$png is $size pixels, expected $n x $n"
done

man_page=$prefix/share/man/man1/pe-explorer.1
[ -f "$man_page" ] || fail "no $man_page"
grep -q '^\.TH PE-EXPLORER "1"' "$man_page" || fail "$man_page has no .TH PE-EXPLORER 1 header"
for flag in 'export' '\\-\\-view' '\\-\\-output' '\\-\\-width' '\\-\\-positions' '\\-\\-d\\-model'; do
  grep -q -- "$flag" "$man_page" || fail "$man_page does not list $flag"
done
if command -v man >/dev/null 2>&1; then
  text=$(MANWIDTH=80 man -l "$man_page" 2>/dev/null) || fail "man -l $man_page failed"
  printf '%s\n' "$text" | grep -q 'pe-explorer export --view NAME' ||
    fail "the rendered man page has no export synopsis"
  printf '%s\n' "$text" | grep -q -- '--rotation-position' ||
    fail "the rendered man page has no export flags"
else
  echo "man not installed: the page is not rendered"
fi
echo "install into $prefix: ok"
