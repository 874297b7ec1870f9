#!/usr/bin/env bash
# Installs what is missing (Debian packages, the project venv), configures and builds.
#   scripts/build.sh            the default build: build/ with LibTorch 2.11 + CUDA from the venv's
#                               torch wheel (what scripts/demo.sh runs)
#   scripts/build.sh all        every configuration the tests need, before any test runs:
#                               build/         LATHE_LIBTORCH=pypi   (LibTorch 2.11, CUDA), GUI, all tests
#                               build-debian/  LATHE_LIBTORCH=debian (Debian's LibTorch 1.13, CPU), GUI, the DEB
#                               build-engine/  LATHE_ENGINE_ONLY=ON with Qt unfindable (LibTorch 2.11):
#                                              the engine and lathe-cli only (its compiles come from ccache)
#                               build-asan/    clang, LATHE_SANITIZE=address (ASan + UBSan), engine only, Debian's
#                                              LibTorch: the engine's unit tests and the fuzz replays
#                               build-tsan/    clang, LATHE_SANITIZE=thread (TSan): the engine's thread tests
#                                              (tests/sanitizers/CMakeLists.txt)
# "all" (what scripts/test.sh and so CI run) builds with LATHE_WERROR=ON: a warning in Lathe's code
# fails the build. LATHE_BUILD_DIR moves build/; the others sit beside it.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${LATHE_BUILD_DIR:-$ROOT/build}"
WHAT="${1:-default}"
"$ROOT/scripts/install-deps.sh"
"$ROOT/scripts/install-python.sh"

# configure DIR CMAKE_ARGS...: a new tree, or the options set again on an existing one (a second
# of CMake; nothing is rebuilt unless an option changed).
configure() {
  local dir="$1"; shift
  if [ ! -f "$dir/build.ninja" ]; then
    cmake -S "$ROOT" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@"
  else
    cmake "$dir" "$@" >/dev/null
  fi
}
# timed NAME COMMAND...: prints how long each configuration took to build (README: build times).
timed() {
  local name="$1" start; shift
  start=$(date +%s)
  "$@"
  echo "build.sh: $name built in $(( $(date +%s) - start )) s" >&2
}

case "$WHAT" in
  default)
    configure "$BUILD" -DLATHE_LIBTORCH=pypi
    timed build cmake --build "$BUILD" -j"$(nproc)"
    ;;
  all)
    configure "$BUILD" -DLATHE_LIBTORCH=pypi -DLATHE_WERROR=ON -DLATHE_ENGINE_ONLY_TREE="$BUILD-engine" \
      -DLATHE_OTHER_LIBTORCH_CLI="$BUILD-debian/app/lathe-cli"
    timed build cmake --build "$BUILD" -j"$(nproc)"
    # Right after build/: the same compiler lines, so ccache answers for the engine's objects.
    configure "$BUILD-engine" -DLATHE_LIBTORCH=pypi -DLATHE_WERROR=ON -DLATHE_ENGINE_ONLY=ON -DCMAKE_DISABLE_FIND_PACKAGE_Qt6=ON \
      -DLATHE_BUILD_TESTS=OFF
    timed build-engine cmake --build "$BUILD-engine" -j"$(nproc)" --target lathe-cli
    configure "$BUILD-debian" -DLATHE_LIBTORCH=debian -DLATHE_WERROR=ON -DLATHE_TORCH_UNIT_TESTS=OFF
    timed build-debian cmake --build "$BUILD-debian" -j"$(nproc)"
    # The sanitizer trees (README: Developers): clang 14, no Qt, Debian's CPU LibTorch (the wheel's
    # CUDA libraries stay out of the sanitizers' address space).
    CXX=clang++ configure "$BUILD-asan" -DLATHE_LIBTORCH=debian -DLATHE_WERROR=ON -DLATHE_ENGINE_ONLY=ON \
      -DLATHE_SANITIZE=address
    timed build-asan cmake --build "$BUILD-asan" -j"$(nproc)"
    CXX=clang++ configure "$BUILD-tsan" -DLATHE_LIBTORCH=debian -DLATHE_WERROR=ON -DLATHE_ENGINE_ONLY=ON \
      -DLATHE_SANITIZE=thread
    timed build-tsan cmake --build "$BUILD-tsan" -j"$(nproc)" --target lathe_tsan_tests
    ;;
  *)
    echo "usage: scripts/build.sh [default|all]" >&2
    exit 2
    ;;
esac
