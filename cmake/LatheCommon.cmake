# One INTERFACE target carries the language level, warnings and defines for all Lathe code.
set(CMAKE_CXX_STANDARD 17)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)
set(CMAKE_EXPORT_COMPILE_COMMANDS ON)
if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)
  set(CMAKE_BUILD_TYPE RelWithDebInfo CACHE STRING "Build type" FORCE)
endif()

# ccache, told to accept precompiled headers (otherwise every PCH user is a cache miss).
find_program(LATHE_CCACHE ccache)
if(LATHE_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_CXX_COMPILER_LAUNCHER
      "${CMAKE_COMMAND};-E;env;CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime;CCACHE_BASEDIR=${CMAKE_SOURCE_DIR};CCACHE_NOHASHDIR=1;CCACHE_MAXSIZE=8G;${LATHE_CCACHE}")
endif()

add_library(lathe_common INTERFACE)
add_library(Lathe::Common ALIAS lathe_common)
# Warnings as the stricter Qt projects use them; LATHE_WERROR (scripts/build.sh, so CI) turns them
# into errors for Lathe's own code (third-party headers are SYSTEM includes).
option(LATHE_WERROR "Treat warnings in Lathe's code as errors" OFF)
target_compile_options(lathe_common INTERFACE -Wall -Wextra -Wno-unused-parameter
  -Woverloaded-virtual -Wnon-virtual-dtor -Winvalid-pch $<$<BOOL:${LATHE_WERROR}>:-Werror>)
# Sanitizer builds (scripts/build.sh all: build-asan/, build-tsan/; README: Developers). clang,
# engine only, Debian's CPU LibTorch (uninstrumented: tests/sanitizers/ names its known reports).
#   address  AddressSanitizer + LeakSanitizer + UndefinedBehaviorSanitizer, any report fatal
#   thread   ThreadSanitizer
# -O1 and line tables only: what the sanitizers' stack traces need, and cheaper to compile than
# RelWithDebInfo's -O2 -g (the two trees are built cold on a new machine).
set(LATHE_SANITIZE "" CACHE STRING "Sanitizer build: address (ASan+UBSan) or thread (TSan); empty: none")
set_property(CACHE LATHE_SANITIZE PROPERTY STRINGS "" address thread)
if(LATHE_SANITIZE)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "LATHE_SANITIZE needs clang (CXX=clang++; scripts/build.sh all sets it)")
  endif()
  if(LATHE_SANITIZE STREQUAL "address")
    set(LATHE_SANITIZE_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=undefined)
  elseif(LATHE_SANITIZE STREQUAL "thread")
    set(LATHE_SANITIZE_FLAGS -fsanitize=thread)
  else()
    message(FATAL_ERROR "LATHE_SANITIZE must be address or thread (got \"${LATHE_SANITIZE}\")")
  endif()
  set(CMAKE_CXX_FLAGS_RELWITHDEBINFO "-O1 -gline-tables-only -DNDEBUG")
  target_compile_options(lathe_common INTERFACE ${LATHE_SANITIZE_FLAGS} -fno-omit-frame-pointer)
  target_link_options(lathe_common INTERFACE ${LATHE_SANITIZE_FLAGS})
  # Every test's sanitizer options: the first report ends the test (so fails ctest), and only the
  # uninstrumented libraries' known reports are suppressed (tests/sanitizers/*.supp say why).
  set(supp ${PROJECT_SOURCE_DIR}/tests/sanitizers)
  if(LATHE_SANITIZE STREQUAL "address")
    set(LATHE_SANITIZE_ENV "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:suppressions=${supp}/ubsan.supp"
      "ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:strict_init_order=1:detect_stack_use_after_return=1:suppressions=${supp}/asan.supp"
      "LSAN_OPTIONS=suppressions=${supp}/lsan.supp:print_suppressions=0")
  else()
    set(LATHE_SANITIZE_ENV "TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:suppressions=${supp}/tsan.supp")
  endif()
else()
  # -g1 (functions and line tables, no local variables): backtraces keep file:line, and a test
  # binary that links the static engine is ~45 MB instead of ~345 MB with -g. CI builds five trees
  # on one disk (a clean clone's trees were 30 GB with -g, and a CI run failed with "No space left
  # on device"). For a debugger session: -DCMAKE_BUILD_TYPE=Debug.
  set(CMAKE_CXX_FLAGS_RELWITHDEBINFO "-O2 -g1 -DNDEBUG")
endif()
# Only the shared libraries a binary uses become its dependencies (LibTorch's CMake config also
# lists the CUDA runtime, which Lathe never calls; LibTorch's own libraries are kept explicitly).
target_link_options(lathe_common INTERFACE -Wl,--as-needed)
target_compile_definitions(lathe_common INTERFACE
  QT_NO_KEYWORDS
  QT_NO_CAST_FROM_ASCII
  QT_NO_CAST_TO_ASCII
  QT_NO_NARROWING_CONVERSIONS_IN_CONNECT
  QT_DISABLE_DEPRECATED_BEFORE=0x060400
  LATHE_VERSION="${PROJECT_VERSION}")

# Every test's environment: the venv's python for the peers, and OpenMP threads that sleep
# while they wait, as lathe and lathe-cli make theirs (app/common/passive_openmp_waits.cpp):
# spinning waits burn the shared CPUs (under load a short training run took 1.2 s passive and
# up to 38 s spinning). A macro, so LATHE_PYTHON (set by LatheTorch.cmake, included after this
# file) is read when a test is added: on a first configure it is not yet defined here.
macro(lathe_test_env out)
  set(${out} "LATHE_PYTHON=${LATHE_PYTHON};OMP_WAIT_POLICY=PASSIVE;${LATHE_SANITIZE_ENV}")
endmacro()

# Test helper: one executable per test source, registered with ctest.
function(lathe_add_test name)
  cmake_parse_arguments(T "" "" "SOURCES;LIBS;ENV;LABELS" ${ARGN})
  add_executable(${name} ${T_SOURCES})
  target_include_directories(${name} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(${name} PRIVATE Lathe::Common ${T_LIBS})
  # The project venv's python runs the tests' peers (tests/parity); the LibTorch this tree links.
  # LATHE_SOURCE_ROOT: the tests' peers and data (tests/parity, tests/data, docs) are found from it.
  target_compile_definitions(${name} PRIVATE LATHE_PYTHON="${LATHE_PYTHON}" LATHE_SOURCE_ROOT="${PROJECT_SOURCE_DIR}"
    LATHE_EXPECT_LIBTORCH="${Torch_VERSION}" LATHE_EXPECT_LIBTORCH_CUDA="${LATHE_TORCH_CUDA_VERSION}")
  add_test(NAME ${name} COMMAND ${name})
  lathe_test_env(test_env)
  set_tests_properties(${name} PROPERTIES ENVIRONMENT "${test_env};${T_ENV}" LABELS "${T_LABELS}" TIMEOUT 600)
endfunction()

# A test that is a bash script: lathe_add_script_test(NAME SCRIPT [ARGS...] LABELS ... TIMEOUT s).
# It gets LATHE_PYTHON, the project venv's python, for its peers, and the LibTorch version (and
# CUDA version, empty without) this tree links as LATHE_EXPECT_LIBTORCH(_CUDA).
function(lathe_add_script_test name script)
  cmake_parse_arguments(T "" "TIMEOUT" "ARGS;LABELS;ENV" ${ARGN})
  add_test(NAME ${name} COMMAND bash ${script} ${T_ARGS})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 300)
  endif()
  lathe_test_env(test_env)
  set_tests_properties(${name} PROPERTIES
    ENVIRONMENT "${test_env};LATHE_EXPECT_LIBTORCH=${Torch_VERSION};LATHE_EXPECT_LIBTORCH_CUDA=${LATHE_TORCH_CUDA_VERSION};${T_ENV}"
    LABELS "${T_LABELS}" TIMEOUT ${T_TIMEOUT})
endfunction()

# Layering guard for everything above the engine (core/workspace, widgets/): LibTorch, OpenCV and
# the JPEG libraries stay inside core/engine's .cpp files (DESIGN.md §1). Their entry headers are
# shadowed for the target by headers that stop the compile, so an #include of one, or one
# reached through an engine header that exposes torch, fails with this message however the
# include path is set (Debian's LibTorch puts ATen/ and torch/script.h in /usr/include).
set(LATHE_FORBIDDEN_HEADERS_DIR ${CMAKE_BINARY_DIR}/forbidden-headers)
foreach(header torch/torch.h torch/types.h torch/script.h torch/all.h torch/extension.h torch/library.h torch/nn.h
               torch/csrc/api/include/torch/torch.h ATen/ATen.h ATen/Tensor.h c10/core/Device.h
               c10/core/TensorImpl.h c10/util/Exception.h
               opencv2/opencv.hpp opencv2/core.hpp opencv2/core/mat.hpp opencv2/imgproc.hpp
               opencv2/imgcodecs.hpp opencv2/dnn.hpp turbojpeg.h jpeglib.h)
  file(WRITE ${LATHE_FORBIDDEN_HEADERS_DIR}/${header}
    "#error \"<${header}> included above the engine: LibTorch, OpenCV and libjpeg stay in core/engine's .cpp files (DESIGN.md 1); use a torch-free engine header\"\n")
endforeach()
function(lathe_forbid_engine_internals target)
  target_include_directories(${target} BEFORE PRIVATE ${LATHE_FORBIDDEN_HEADERS_DIR})
endfunction()
