#!/usr/bin/env bash
# The one list of Debian packages Lathe needs to build, run and test.
# Idempotent: when everything is present it only asks dpkg and exits (well under a second).
set -euo pipefail

PACKAGES=(
  # toolchain
  cmake ninja-build g++ ccache pkg-config libgtest-dev
  # the sanitizer trees (build-asan/, build-tsan/) and scripts/fuzz.sh: clang 14 with compiler-rt's
  # sanitizer and libFuzzer runtimes
  clang libclang-rt-14-dev
  # packaging: DEB dependencies, man page, desktop and AppStream checks
  dpkg-dev help2man appstream desktop-file-utils libxml2-utils
  # Qt 6 (widgets, SQL with the SQLite driver, tools, linguist) and plotting
  qt6-base-dev qt6-base-dev-tools qt6-tools-dev qt6-tools-dev-tools qt6-l10n-tools
  libqt6sql6-sqlite libgl-dev libqcustomplot-dev
  # LibTorch (CPU) and c10d's Gloo backend; the threaded OpenBLAS (the reference BLAS is ~15x slower)
  libtorch-dev libgloo-dev libopenblas0-pthread
  # images
  libopencv-dev libturbojpeg0-dev
  # storage, formats, CLI
  zlib1g-dev libssl-dev libsqlite3-dev sqlite3 libprotobuf-dev protobuf-compiler libonnx-dev nlohmann-json3-dev libcli11-dev
  # lathe-cli serve: the HTTP server library, and wrk for its benchmark (tests/bench/bench_serve.sh)
  libcpp-httplib-dev wrk
  # the TFLite exporter: FlatBuffers compiler (flatc generates the schema subset's C++ header) and headers
  flatbuffers-compiler libflatbuffers-dev
  # the engine bundle (scripts/make-engine-bundle.sh: RPATHs, the reference BLAS and LAPACK's liblapack.a;
  # tested with patchelf 0.14.3, debootstrap 1.0.128) and its chroot test (tests/bundle/chroot_test.sh)
  patchelf libblas3 liblapack-dev debootstrap
  # real data for the demo and the tests
  dataset-fashion-mnist darknet opencv-doc
  # the project venv (scripts/install-python.sh) is made with the Python on PATH, or Debian's with venv
  python3-venv
  # GUI tests and screenshots without a display; fonts that cover Chinese
  xvfb xauth x11-utils xdotool imagemagick fonts-wqy-microhei qt6-translations-l10n
)

# One dpkg-query for the whole list; packages dpkg has never seen are reported on stderr.
installed=$(dpkg-query -W -f='${Package} ${Status}\n' "${PACKAGES[@]}" 2>/dev/null | awk '/install ok installed/ {print $1}' || true)
missing=()
for p in "${PACKAGES[@]}"; do
  grep -qx -- "$p" <<<"$installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${#missing[@]} package(s): ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
# Refresh the package lists only when a first install attempt cannot find a package.
if ! $SUDO apt-get install -y --no-install-recommends "${missing[@]}"; then
  $SUDO apt-get update
  $SUDO apt-get install -y --no-install-recommends "${missing[@]}"
fi
