#!/usr/bin/env bash
# The relocatable engine bundle (README: Engine bundle): lathe-cli of the engine-only build and
# every shared library it needs that a machine with only a CUDA PyTorch wheel and a driver lacks.
# The machine's own LibTorch and CUDA libraries are used, found by the launcher.
#   scripts/make-engine-bundle.sh [OUT_DIR]     (default: engine-bundle/ in the checkout, where
#                                               scripts/device-check.sh looks first; git ignores it)
#   LATHE_CLI=path      the engine-only lathe-cli to bundle (default build-engine/app/lathe-cli,
#                       built under the build lock when missing)
#   LATHE_TORCH_LIB=dir the LibTorch it was built against (default: the torch/lib in its RUNPATH)
# OUT_DIR gets:
#   lathe-cli              the launcher: finds the machine's torch (LATHE_TORCH_LIB, or the torch
#                          package of LATHE_PYTHON / the venv's python / python3 on PATH), refuses
#                          another torch version than the build's (exit 3), puts torch/lib on
#                          LD_LIBRARY_PATH and runs bin/lathe-cli
#   bin/lathe-cli          the program, stripped, RPATH $ORIGIN/../lib
#   lib/*.so*              its libraries, stripped, RPATH $ORIGIN
#   share/lathe/model_zoo.json
#   MANIFEST.txt           each file with size and SHA-256, the torch version, what the machine must have
# What is left out: glibc, libstdc++ and libgcc (every machine that runs the torch wheel has them)
# and the torch wheel's libraries (torch/lib, nvidia/*/lib). Two dependencies are cut:
#   - Debian's OpenCV imgcodecs links GDAL, GDCM (DICOM) and OpenEXR, ~140 MiB with what they pull
#     in, which Lathe never calls (GDAL only with cv::IMREAD_LOAD_GDAL; DICOM and EXR only for such
#     files). They are replaced by stub libraries with the same names and the symbols imgcodecs
#     imports; a stub that is called ends the program with a message naming it.
#   - libopencv_core's LAPACK (OpenBLAS's, 44 MiB) is replaced by a liblapack.so.3 linked from
#     Debian's reference liblapack.a with only the routines libopencv_core imports (real code,
#     ~0.4 MiB) and the reference libblas.so.3.
# Fails when the bundle is over LATHE_BUNDLE_MAX_MIB (48) MiB or a library cannot be resolved.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="${1:-$ROOT/engine-bundle}"
CLI="${LATHE_CLI:-$ROOT/build-engine/app/lathe-cli}"
MAX_MIB="${LATHE_BUNDLE_MAX_MIB:-48}"
ARCH_LIB=/usr/lib/x86_64-linux-gnu
die() { echo "make-engine-bundle: $*" >&2; exit 1; }

for tool in patchelf readelf nm objdump strip gcc sha256sum; do
  command -v "$tool" >/dev/null || die "$tool is missing (scripts/install-deps.sh installs it)"
done
if [ ! -x "$CLI" ]; then
  [ -f "$ROOT/build-engine/build.ninja" ] || die "$CLI missing and build-engine/ not configured: scripts/build.sh all"
  echo "make-engine-bundle: building $CLI" >&2
  flock /tmp/lathe-build.lock cmake --build "$ROOT/build-engine" -j"$(nproc)" --target lathe-cli
fi
if readelf -d "$CLI" | grep NEEDED | grep -i qt >/dev/null; then
  die "$CLI links Qt: bundle the engine-only build (LATHE_ENGINE_ONLY=ON, build-engine/)"
fi

# The LibTorch it links: from the environment, or the torch/lib its RUNPATH names.
TORCH_LIB="${LATHE_TORCH_LIB:-}"
if [ -z "$TORCH_LIB" ]; then
  for d in $(readelf -d "$CLI" | sed -n 's/.*R\(UN\)\{0,1\}PATH.*\[\(.*\)\]/\2/p' | tr ':' ' '); do
    if [ -f "$d/libtorch_cpu.so" ]; then TORCH_LIB="$d"; break; fi
  done
fi
[ -n "$TORCH_LIB" ] && [ -f "$TORCH_LIB/libtorch_cpu.so" ] || die "no LibTorch found for $CLI (set LATHE_TORCH_LIB)"
TORCH_LIB="$(cd "$TORCH_LIB" && pwd)"
# torch/version.py: __version__ = '2.11.0+cu130'
torch_version() { sed -n "s/^__version__ = ['\"]\([^'\"]*\)['\"].*/\1/p" "$1/../version.py" 2>/dev/null; }
TORCH_VERSION="$(torch_version "$TORCH_LIB")"
[ -n "$TORCH_VERSION" ] || die "$TORCH_LIB/../version.py names no torch version"
SITE="$(cd "$TORCH_LIB/../.." && pwd)" # site-packages: torch/ and nvidia/

# The machine provides these (glibc, the C++ runtime) or the torch wheel does.
SYSTEM_LIBS=" libc.so.6 libm.so.6 libpthread.so.0 libdl.so.2 librt.so.1 libresolv.so.2 libutil.so.1 ld-linux-x86-64.so.2 libstdc++.so.6 libgcc_s.so.1 "
STUBBED=" libgdal.so.32 libgdcmMSFF.so.3.0 libgdcmDSED.so.3.0 libOpenEXR-3_1.so.30 "

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# OUT is replaced: only when it is empty or an earlier bundle (rm -rf of a wrong argument is no risk).
if [ -d "$OUT" ] && [ -n "$(ls -A "$OUT")" ] && [ ! -f "$OUT/MANIFEST.txt" ]; then
  die "$OUT is neither empty nor an engine bundle; name a new folder"
fi
rm -rf "$OUT"
mkdir -p "$OUT/bin" "$OUT/lib" "$OUT/share/lathe"

# A library's NEEDED names.
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }
# The path the loader gives NAME when REQUESTER needs it (LD_LIBRARY_PATH: the build's torch).
resolve() {
  LD_LIBRARY_PATH="$TORCH_LIB" ldd "$2" | awk -v n="$1" '$1 == n && $2 == "=>" {print $3}'
}
# The symbols the bundled libraries that need library $1 import from its real file $2, with
# type and size: "name T size".
imported_from() {
  local name="$1" real="$2" users=() f
  for f in "$OUT"/lib/* "$OUT/bin/lathe-cli"; do
    needed "$f" | grep -x "$name" >/dev/null && users+=("$f")
  done
  [ ${#users[@]} -gt 0 ] || return 0
  nm -D --undefined-only "${users[@]}" 2>/dev/null | awk '$1 == "U" || $1 == "w" {print $2}' | sort -u >"$TMP/undef"
  nm -D -S --defined-only "$real" | awk 'NF == 4 {print $4, $3, $2} NF == 3 {print $3, $2, 0}' | sort -k1,1 -u \
    | join "$TMP/undef" - 2>/dev/null || true
}

# The real LAPACK routines libopencv_core imports, as a small liblapack.so.3 (see the header).
make_min_lapack() {
  local core="$1" syms
  syms=$(nm -D --undefined-only "$core" | awk '{print $2}' | sort -u \
    | join - <(nm -D --defined-only "$ARCH_LIB/lapack/liblapack.so.3" | awk '{print $3}' | sort -u))
  [ -n "$syms" ] || die "$core imports nothing from LAPACK"
  local gfortran
  gfortran=$(resolve libgfortran.so.5 "$ARCH_LIB/lapack/liblapack.so.3")
  local undefined=() sym
  for sym in $syms; do undefined+=("-Wl,-u,$sym"); done
  gcc -shared -o "$TMP/liblapack.so.3" -Wl,-soname,liblapack.so.3 "${undefined[@]}" \
    "$ARCH_LIB/lapack/liblapack.a" "$ARCH_LIB/blas/libblas.so.3" "$gfortran" -lm \
    || die "linking the LAPACK subset from $ARCH_LIB/lapack/liblapack.a (Debian liblapack-dev)"
}

# A stub for library NAME (real file REAL): the imported symbols, functions that end the program
# with a message, objects of the real size. No symbol versions (checked).
make_stub() {
  local name="$1" real="$2" i=0 sym type size
  {
    echo '#include <stdio.h>'
    echo '#include <stdlib.h>'
    local message="lathe-cli (engine bundle): $name was left out of the bundle (GDAL, DICOM and OpenEXR images are not read by this build)"
    echo "static void lathe_missing(void) { fputs(\"$message\\n\", stderr); abort(); }"
    while read -r sym type size; do
      [ -n "$sym" ] || continue
      case "$sym" in *@*) die "$name: $sym is a versioned symbol, which the stub cannot give" ;; esac
      case "$sym" in
        # Two calls happen when OpenCV makes its codec objects (on the first imread/imwrite), so
        # these two do what the real ones do. The EXR codec holds an Imf::Chromaticities
        # (4 x Imath::V2f), made by this constructor:
        _ZN7Imf_3_114ChromaticitiesC[12]ERKN9Imath_3_14Vec2IfEES5_S5_S5_)
          echo "__attribute__((visibility(\"default\"))) void f$i(float *, const float *, const float *, const float *, const float *) __asm__(\"$sym\");"
          echo "void f$i(float *c, const float *r, const float *g, const float *b, const float *w)"
          echo "{ c[0] = r[0]; c[1] = r[1]; c[2] = g[0]; c[3] = g[1]; c[4] = b[0]; c[5] = b[1]; c[6] = w[0]; c[7] = w[1]; }"
          i=$((i + 1)); continue ;;
        # GDAL's decoder, made with the others, registers GDAL's drivers: here none (GDALOpen, only
        # reached with cv::IMREAD_LOAD_GDAL, stays a stub).
        GDALAllRegister)
          echo "__attribute__((visibility(\"default\"))) void GDALAllRegister(void) {}"
          i=$((i + 1)); continue ;;
      esac
      case "$type" in
        T|W|i) echo "__attribute__((visibility(\"default\"))) void f$i(void) __asm__(\"$sym\");"
               echo "void f$i(void) { lathe_missing(); }" ;;
        *)     echo "__attribute__((visibility(\"default\"))) char o${i}[$((16#$size > 0 ? 16#$size : 1))] __asm__(\"$sym\");" ;;
      esac
      i=$((i + 1))
    done < <(imported_from "$name" "$real")
  } >"$TMP/stub.c"
  gcc -shared -fPIC -O1 -o "$OUT/lib/$name" -Wl,-soname,"$name" "$TMP/stub.c" || die "compiling the stub $name"
  echo "$i"
}

# Walk the NEEDED graph from lathe-cli: bundle what neither the system nor torch provides.
cp "$CLI" "$OUT/bin/lathe-cli"
declare -A SEEN=() STUBS=() TORCH_USED=()
queue=("$CLI")
while [ ${#queue[@]} -gt 0 ]; do
  file="${queue[0]}"; queue=("${queue[@]:1}")
  for name in $(needed "$file"); do
    [ -z "${SEEN[$name]:-}" ] || continue
    SEEN[$name]=1
    case "$SYSTEM_LIBS" in *" $name "*) continue ;; esac
    case "$STUBBED" in *" $name "*) STUBS[$name]=$(resolve "$name" "$file"); continue ;; esac
    case "$name" in
      liblapack.so.3) make_min_lapack "$file"; path="$TMP/liblapack.so.3" ;;
      libblas.so.3) path="$ARCH_LIB/blas/libblas.so.3" ;;
      *) path=$(resolve "$name" "$file") ;;
    esac
    [ -n "$path" ] && [ -f "$path" ] || die "$name (needed by $file) not found"
    case "$(readlink -f "$path")" in
      "$SITE"/torch/*|"$SITE"/nvidia/*) TORCH_USED[$name]=1; continue ;;
    esac
    cp -L "$path" "$OUT/lib/$name"
    chmod 644 "$OUT/lib/$name"
    queue+=("$path")
  done
done
stubbed_summary=""
for name in "${!STUBS[@]}"; do
  [ -n "${STUBS[$name]}" ] || die "$name: no real library to take the imported symbols from"
  n=$(make_stub "$name" "${STUBS[$name]}") || exit 1
  stubbed_summary+=" $name($n symbols)"
done

strip --strip-unneeded "$OUT"/lib/*
strip "$OUT/bin/lathe-cli"
for f in "$OUT"/lib/*; do patchelf --force-rpath --set-rpath '$ORIGIN' "$f"; done
patchelf --force-rpath --set-rpath '$ORIGIN/../lib' "$OUT/bin/lathe-cli"
cp "$ROOT/resources/model_zoo.json" "$OUT/share/lathe/"

# Every symbol resolves (bind now), and no library comes from outside the bundle, torch and glibc.
check_env=(env LD_LIBRARY_PATH="$TORCH_LIB")
resolved=$("${check_env[@]}" ldd -r "$OUT/bin/lathe-cli" 2>&1)
if grep -E "not found|undefined symbol" <<<"$resolved"; then die "unresolved libraries or symbols (above)"; fi
while read -r name arrow path _; do
  [ "$arrow" = "=>" ] || continue
  case "$(readlink -f "$path")" in
    "$(readlink -f "$OUT")"/lib/*|"$SITE"/torch/*|"$SITE"/nvidia/*) ;;
    *) case "$SYSTEM_LIBS" in *" $name "*) ;; *) die "$name comes from $path, outside the bundle" ;; esac ;;
  esac
done <<<"$resolved"

# What the machine must have: the newest glibc and libstdc++ symbol versions the bundle uses.
max_version() {
  objdump -T "$OUT/bin/lathe-cli" "$OUT"/lib/* | grep -o "($1_[0-9.]*)" | tr -d '()' | sed "s/$1_//" | sort -V | tail -1
}
GLIBC_NEED=$(max_version GLIBC)
GLIBCXX_NEED=$(max_version GLIBCXX)

# The launcher.
sed -e "s|@TORCH_VERSION@|$TORCH_VERSION|" >"$OUT/lathe-cli" <<'LAUNCHER'
#!/bin/sh
# lathe-cli of the Lathe engine bundle (scripts/make-engine-bundle.sh): runs bin/lathe-cli with the
# machine's own LibTorch, which must be the torch version it was built against.
#   LATHE_TORCH_LIB   torch's lib folder (site-packages/torch/lib); otherwise the torch package of
#   LATHE_PYTHON      this python, else the active venv's ($VIRTUAL_ENV), else python3 on PATH
# Exit 3: no torch found, or another torch version.
BUILT_TORCH='@TORCH_VERSION@'
self=$(readlink -f "$0") || self=$0
here=$(dirname "$self")
fail() { echo "lathe-cli (engine bundle): $*" >&2; exit 3; }
torch_lib=${LATHE_TORCH_LIB:-}
if [ -z "$torch_lib" ]; then
  py=${LATHE_PYTHON:-}
  if [ -z "$py" ] && [ -n "${VIRTUAL_ENV:-}" ] && [ -x "$VIRTUAL_ENV/bin/python" ]; then py=$VIRTUAL_ENV/bin/python; fi
  [ -n "$py" ] || py=$(command -v python3) || fail "no python3 on PATH to find torch with; set LATHE_TORCH_LIB to torch's lib folder or LATHE_PYTHON"
  # find_spec, not import: no CUDA initialisation, a fraction of a second.
  torch_dir=$("$py" -c 'import importlib.util as u; s = u.find_spec("torch"); print(s.submodule_search_locations[0] if s else "")') \
    || fail "$py failed to look for torch"
  [ -n "$torch_dir" ] || fail "$py has no torch package (pip install torch==$BUILT_TORCH, or set LATHE_TORCH_LIB)"
  torch_lib=$torch_dir/lib
fi
[ -f "$torch_lib/libtorch_cpu.so" ] || fail "$torch_lib has no libtorch_cpu.so (LATHE_TORCH_LIB must name site-packages/torch/lib)"
version=$(sed -n "s/^__version__ = ['\"]\([^'\"]*\)['\"].*/\1/p" "$torch_lib/../version.py" 2>/dev/null)
[ "$version" = "$BUILT_TORCH" ] || fail "built against torch $BUILT_TORCH, but $torch_lib is torch ${version:-of unknown version (no torch/version.py)}; install torch==$BUILT_TORCH or make a bundle against this torch"
LD_LIBRARY_PATH=$torch_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH
exec "$here/bin/lathe-cli" "$@"
LAUNCHER
chmod 755 "$OUT/lathe-cli"

# The manifest, then the size check.
{
  echo "Lathe engine bundle: lathe-cli $("${check_env[@]}" "$OUT/bin/lathe-cli" --version | awk '{print $2}')"
  echo "built against torch $TORCH_VERSION ($TORCH_LIB)"
  echo "uses the machine's torch wheel for: $(printf '%s\n' "${!TORCH_USED[@]}" | sort | tr '\n' ' ')"
  echo "needs from the machine: glibc >= $GLIBC_NEED, libstdc++ >= GLIBCXX_$GLIBCXX_NEED, libgcc_s"
  echo "stub libraries (imports of OpenCV imgcodecs, end the program if called):$stubbed_summary"
  echo
  echo "size sha256 file"
  (cd "$OUT" && find . -type f ! -name MANIFEST.txt | sed 's|^\./||' | sort | while read -r f; do
    echo "$(stat -c %s "$f") $(sha256sum "$f" | cut -d' ' -f1) $f"
  done)
} >"$OUT/MANIFEST.txt"
bytes=$(du -sb "$OUT" | cut -f1)
mib=$(awk -v b="$bytes" 'BEGIN {printf "%.1f", b / 1048576}')
echo "total $bytes bytes ($mib MiB)" >>"$OUT/MANIFEST.txt"
[ "$bytes" -le $((MAX_MIB * 1048576)) ] || die "the bundle is $mib MiB, over $MAX_MIB MiB"
echo "make-engine-bundle: $OUT: $mib MiB, $(ls "$OUT/lib" | wc -l) libraries, torch $TORCH_VERSION"
