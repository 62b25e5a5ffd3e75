#!/usr/bin/env bash
# Builds a release remindersim that runs where no Swift toolchain is installed (the Swift standard
# library and Foundation linked in), strips it, and checks it: ldd must list only system libraries,
# and the binary must run a small scenario with the toolchain out of reach.
# Usage: scripts/build-static.sh [DEST]   (default: .build/static/remindersim)
# Environment: BUILD_TIMEOUT (seconds, default 1500).
set -euo pipefail
cd "$(dirname "$0")/.."
dest=${1:-.build/static/remindersim}
build_timeout=${BUILD_TIMEOUT:-1500}

fail() {
    echo "build-static: $*" >&2
    exit 1
}

swift_bin=$(command -v swift) || fail "swift is not on PATH"
# The toolchain's usr folder: everything the binary must not need at run time lives under it.
toolchain=$(dirname "$(dirname "$(readlink -f "$swift_bin")")")

# A scratch folder of its own, so that the ordinary release build in .build is left alone.
timeout "$build_timeout" swift build -c release --static-swift-stdlib --product remindersim \
    --scratch-path .build/static >&2 || fail "the release build failed or took over ${build_timeout}s"
mkdir -p "$(dirname "$dest")"
strip -o "$dest.tmp" .build/static/release/remindersim
mv "$dest.tmp" "$dest"

# Every library must resolve to a system folder, and none may come from the Swift runtime.
libraries=$(ldd "$dest") || fail "ldd cannot read $dest"
echo "$libraries" >&2
if grep -q "not found" <<<"$libraries"; then
    fail "$dest needs a library that is missing"
fi
if grep -Eiq "libswift|libFoundation|lib_Foundation|libicu|libdispatch|libBlocksRuntime|$toolchain" <<<"$libraries"; then
    fail "$dest still needs the Swift runtime"
fi
while read -r path; do
    case $path in
        /lib/* | /lib64/* | /usr/lib/* | /usr/lib64/*) ;;
        *) fail "$dest needs $path, outside the system library folders" ;;
    esac
done < <(awk '$2 == "=>" { print $3 } $1 ~ /^\// { print $1 }' <<<"$libraries")
if readelf -d "$dest" | grep -E "RPATH|RUNPATH" | grep -Fq "$toolchain"; then
    fail "$dest searches the toolchain for libraries (RPATH)"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A small run touches everything the binary needs: scenario JSON, simulation, SQLite, dates, report.
smoke="\"$(readlink -f "$dest")\" run --users 200 --days 35 --db \"$work/smoke.sqlite\" --out \"$work/out\" >/dev/null"
env -i HOME="$work" PATH=/usr/bin:/bin sh -c "$smoke" || fail "$dest does not run without the toolchain on PATH"
# As root, hide the toolchain's folder itself behind an empty file system in a private mount namespace.
if [ "$(id -u)" -eq 0 ] && unshare -m true 2>/dev/null; then
    rm -rf "$work/out" "$work/smoke.sqlite"
    env -i HOME="$work" PATH=/usr/bin:/bin unshare -m sh -c "mount -t tmpfs none \"$toolchain\" && $smoke" \
        || fail "$dest does not run with $toolchain hidden"
    echo "build-static: ran with $toolchain hidden" >&2
fi
[ -f "$work/out/default-1/report.md" ] || fail "$dest wrote no report"
echo "build-static: $dest ($(du -h "$dest" | cut -f1)) needs only system libraries" >&2
