#!/usr/bin/env bash
# Fuzzes one parser for real: builds tests/fuzz on its own with clang, libFuzzer, ASan and UBSan
# (in build-fuzz/), then runs fuzz_TARGET for SECONDS from the committed corpus. New inputs go
# to build-fuzz/corpus/TARGET (merge the interesting ones into tests/fuzz/corpus/TARGET by hand
# or with -merge=1); a crash is written to build-fuzz/findings/TARGET/ and the script fails; the
# whole libFuzzer log of the last run is build-fuzz/findings/TARGET/last-run.log.
# Usage: scripts/fuzz.sh TARGET SECONDS      (TARGET: see LATHE_FUZZ_TARGETS in tests/fuzz/CMakeLists.txt)
#        scripts/fuzz.sh --list
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="$ROOT/build-fuzz"
targets=$(sed -n 's/^set(LATHE_FUZZ_TARGETS \(.*\))$/\1/p' "$ROOT/tests/fuzz/CMakeLists.txt")
if [ "${1:-}" == "--list" ]; then echo "$targets"; exit 0; fi
[ $# == 2 ] || { echo "usage: scripts/fuzz.sh TARGET SECONDS (targets: $targets)" >&2; exit 2; }
TARGET=$1
SECONDS_TO_RUN=$2
[[ " $targets " == *" $TARGET "* ]] || { echo "fuzz.sh: no target '$TARGET' (targets: $targets)" >&2; exit 2; }
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
if [ ! -f "$BUILD/build.ninja" ]; then
    CXX=clang++ cmake -S "$ROOT/tests/fuzz" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${launcher[@]}" >/dev/null
fi
# The machine's builds share one lock (/tmp/lathe-build.lock): a fuzz build that has something
# to compile waits for the others (an up-to-date one does not queue for it).
if [ "$(ninja -C "$BUILD" -n "fuzz_$TARGET" 2>/dev/null | tail -1)" != "ninja: no work to do." ]; then
    flock /tmp/lathe-build.lock cmake --build "$BUILD" --target "fuzz_$TARGET" -- -j2 >/dev/null
fi
mkdir -p "$BUILD/corpus/$TARGET" "$BUILD/findings/$TARGET"
cd "$BUILD/findings/$TARGET"
# A dictionary (tests/fuzz/TARGET.dict: the format's keywords) where one helps.
dict=()
[ -f "$ROOT/tests/fuzz/$TARGET.dict" ] && dict=(-dict="$ROOT/tests/fuzz/$TARGET.dict")
# -rss_limit_mb: the parsers' own limits must keep memory bounded; -timeout: no input may hang.
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 LSAN_OPTIONS=suppressions=$ROOT/tests/fuzz/lsan.supp \
    "$BUILD/fuzz_$TARGET" -max_total_time="$SECONDS_TO_RUN" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 "${dict[@]}" \
    "$BUILD/corpus/$TARGET" "$ROOT/tests/fuzz/corpus/$TARGET" 2>&1 | tee "$BUILD/findings/$TARGET/last-run.log" | tail -25
