# Which LibTorch Lathe builds with: one option, two supported values (README: Developers).
#   pypi   (default) the LibTorch inside the PyPI torch wheel of the project's venv
#          (scripts/install-python.sh): LibTorch 2.11 with CUDA, NCCL and cuDNN.
#   debian Debian's libtorch-dev: LibTorch 1.13, CPU only; the DEB depends on it.
# Everything version-specific in the code lives in core/engine/base/torch_compat.h.
set(LATHE_LIBTORCH "pypi" CACHE STRING "LibTorch to build with: pypi (the venv's torch wheel, CUDA) or debian (libtorch-dev, CPU)")
set_property(CACHE LATHE_LIBTORCH PROPERTY STRINGS pypi debian)
set(LATHE_PYTHON "${PROJECT_SOURCE_DIR}/.venv/bin/python" CACHE FILEPATH
    "The project's Python (scripts/install-python.sh): the torch wheel of the pypi build, and the tests' peers")

# Before LibTorch: the wheel's Caffe2 config defines protobuf::libprotobuf as an empty stand-in
# when that target does not exist yet, and Lathe links the real one (tf.train.Example, ONNX).
find_package(Protobuf REQUIRED)

if(LATHE_LIBTORCH STREQUAL "pypi")
  if(NOT EXISTS "${LATHE_PYTHON}")
    message(FATAL_ERROR "LATHE_LIBTORCH=pypi needs the project's venv: run scripts/install-python.sh (looked for ${LATHE_PYTHON})")
  endif()
  execute_process(COMMAND "${LATHE_PYTHON}" -c "import torch; print(torch.utils.cmake_prefix_path)"
                  OUTPUT_VARIABLE LATHE_TORCH_PREFIX OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "LATHE_LIBTORCH=pypi: ${LATHE_PYTHON} cannot import torch (run scripts/install-python.sh)")
  endif()
  # The CUDA toolkit (nvcc, cuDNN, NCCL headers) that the wheel's CUDA targets are found against.
  if(NOT CUDAToolkit_ROOT AND EXISTS /usr/local/cuda)
    set(CUDAToolkit_ROOT /usr/local/cuda)
  endif()
  # TorchConfig looks for its libraries with find_library(... PATHS), which would try the system
  # folders (Debian's libtorch) first: name the wheel's own.
  get_filename_component(LATHE_TORCH_LIBDIR "${LATHE_TORCH_PREFIX}/../../lib" ABSOLUTE)
  foreach(lib torch c10_cuda)
    string(TOUPPER "${lib}" var)
    if(EXISTS "${LATHE_TORCH_LIBDIR}/lib${lib}.so")
      set(${var}_LIBRARY "${LATHE_TORCH_LIBDIR}/lib${lib}.so" CACHE FILEPATH "" FORCE)
    endif()
  endforeach()
  # TorchConfig finds Caffe2 the same way (PATHS after the system's): the wheel's, not Debian's.
  set(Caffe2_DIR "${LATHE_TORCH_PREFIX}/Caffe2" CACHE PATH "" FORCE)
  find_package(Torch REQUIRED CONFIG PATHS "${LATHE_TORCH_PREFIX}/Torch" NO_DEFAULT_PATH)
elseif(LATHE_LIBTORCH STREQUAL "debian")
  set(Caffe2_DIR "/usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/cmake/Caffe2" CACHE PATH "" FORCE)
  find_package(Torch REQUIRED CONFIG PATHS /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/cmake/Torch NO_DEFAULT_PATH)
else()
  message(FATAL_ERROR "LATHE_LIBTORCH must be pypi or debian (got \"${LATHE_LIBTORCH}\")")
endif()

# The wheel's libtorch.so exports pieces of a newer libstdc++ it was built with (std::filesystem,
# std::chrono's tzdb, string streams): a binary that finds libtorch.so before libstdc++.so calls
# those copies, and std::filesystem::remove_all crashed in them. libstdc++ comes first.
if(LATHE_LIBTORCH STREQUAL "pypi")
  target_link_options(lathe_common INTERFACE "LINKER:--push-state,--no-as-needed,-lstdc++,--pop-state")
endif()

# Built with CUDA: the wheel's config lists the CUDA libraries it links.
if(TORCH_CUDA_LIBRARIES OR TARGET torch_cuda)
  set(LATHE_TORCH_CUDA ON)
else()
  set(LATHE_TORCH_CUDA OFF)
endif()
if(LATHE_TORCH_CUDA)
  set(LATHE_TORCH_CUDA_VERSION "${CUDAToolkit_VERSION_MAJOR}.${CUDAToolkit_VERSION_MINOR}")
else()
  set(LATHE_TORCH_CUDA_VERSION "")
endif()
get_filename_component(LATHE_TORCH_LIBDIR "${TORCH_LIBRARY}" DIRECTORY)
if(LATHE_LIBTORCH STREQUAL "pypi" AND NOT TORCH_LIBRARY MATCHES "site-packages")
  message(FATAL_ERROR "LATHE_LIBTORCH=pypi found ${TORCH_LIBRARY}, not the wheel's LibTorch")
endif()
message(STATUS "Lathe: LibTorch ${Torch_VERSION} (${LATHE_LIBTORCH}) from ${LATHE_TORCH_LIBDIR}, CUDA ${LATHE_TORCH_CUDA} ${LATHE_TORCH_CUDA_VERSION}")

# c10d's Gloo headers include gloo's (Debian libgloo-dev: the wheel ships none). Debian's
# libtorch_cpu also needs libgloo linked; the wheel carries Gloo inside libtorch_cpu.
find_path(LATHE_GLOO_INCLUDE_DIR gloo/config.h)
if(LATHE_LIBTORCH STREQUAL "debian")
  find_library(LATHE_GLOO_LIBRARY gloo)
endif()
# NCCL (ProcessGroupNCCL) in CUDA builds: the header from the CUDA toolkit or the nvidia-nccl wheel.
if(LATHE_TORCH_CUDA)
  find_path(LATHE_NCCL_INCLUDE_DIR nccl.h HINTS /usr/local/cuda/include "${LATHE_TORCH_LIBDIR}/../../nvidia/nccl/include")
  if(NOT LATHE_NCCL_INCLUDE_DIR)
    message(FATAL_ERROR "LibTorch was built with CUDA but nccl.h was not found (the CUDA toolkit's NCCL)")
  endif()
endif()

# Lathe::Torch: what Lathe code links to use LibTorch. The wheel's include folder carries its own
# (older) google/protobuf headers, which would shadow the system protobuf that the engine's
# tf.train.Example, TensorBoard and ONNX code is generated for: a folder holding only a link to the
# system's google/ comes first on the include path.
add_library(lathe_torch INTERFACE)
add_library(Lathe::Torch ALIAS lathe_torch)
if(EXISTS "${TORCH_INSTALL_PREFIX}/include/google/protobuf")
  set(LATHE_PROTOBUF_FIRST "${CMAKE_BINARY_DIR}/protobuf-first")
  file(MAKE_DIRECTORY "${LATHE_PROTOBUF_FIRST}")
  file(CREATE_LINK "${Protobuf_INCLUDE_DIR}/google" "${LATHE_PROTOBUF_FIRST}/google" SYMBOLIC)
  target_include_directories(lathe_torch SYSTEM INTERFACE "${LATHE_PROTOBUF_FIRST}")
endif()
target_link_libraries(lathe_torch INTERFACE torch)
