# SPDX-License-Identifier: GPL-3.0-or-later
# Debian packages through CPack (`cpack -G DEB` in the build directory, or scripts/package): one
# for the command line and run server (no Qt), one for the desktop app, which depends on it (for
# --via and the isolated CUDA backend). Each declares the packages it needs, so apt installs it.
#
# A build without CUDA makes `tilescope-bench` and `tilescope`: they need no NVIDIA software, so a
# laptop installs them. A build with CUDA makes `tilescope-bench-cuda` and `tilescope-cuda`,
# which provide, and replace, the CPU-only ones: both kinds install /usr/bin/tilescope-bench.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME tilescope)
set(CPACK_PACKAGE_VENDOR TileScope)
set(CPACK_PACKAGE_CONTACT "TileScope maintainers <tilescope@users.noreply.github.com>")
# The first line of both packages' descriptions (the project's own says "on a GPU").
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "see and measure tiled matrix multiplication on GPUs and CPUs")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
# install/strip: the programs lose their symbol tables (a fifth of a CPU-only build's size).
set(CPACK_STRIP_FILES ON)
# GPL-3.0-or-later (the app links QCustomPlot, which is GPL). Debian wants the copyright file in
# /usr/share/doc/<package>/ of every package.
set(CPACK_RESOURCE_FILE_LICENSE "${PROJECT_SOURCE_DIR}/LICENSE")
set(CPACK_RPM_PACKAGE_LICENSE "GPL-3.0-or-later")
include(GNUInstallDirs)

set(_bench_package tilescope-bench)
set(_app_package tilescope)
set(_cuda_depends "")
set(_variant "CPU only: the CPU backend follows every kernel's tiling schedule.\n"
             "It needs no NVIDIA software.")
string(CONCAT _variant ${_variant})
if(TILESCOPE_HAVE_CUDA)
  set(_bench_package tilescope-bench-cuda)
  set(_app_package tilescope-cuda)
  # NVIDIA's apt repository names the runtime and cuBLAS after the toolkit's major and minor
  # version; TILESCOPE_CUDA_FROM_PACKAGES=OFF (CUDA from the runfile, a module) names neither.
  set(_cuda_series "${CUDAToolkit_VERSION_MAJOR}-${CUDAToolkit_VERSION_MINOR}")
  if(TILESCOPE_CUDA_FROM_PACKAGES)
    set(_cuda_depends ", cuda-cudart-${_cuda_series}, libcublas-${_cuda_series}")
    set(_cuda_libraries "NVIDIA's cuda-cudart-${_cuda_series} and libcublas-${_cuda_series}")
  else()
    set(_cuda_libraries "the CUDA runtime and cuBLAS in ${CUDAToolkit_LIBRARY_DIR}")
  endif()
  # "75-real;90-virtual;90" -> "sm_75, PTX compute_90, sm_90+PTX": machine code, or PTX the
  # driver compiles for newer GPUs.
  list(TRANSFORM CMAKE_CUDA_ARCHITECTURES REPLACE "^([0-9]+a?)-real$" "sm_\\1"
       OUTPUT_VARIABLE _architectures)
  list(TRANSFORM _architectures REPLACE "^([0-9]+a?)-virtual$" "PTX compute_\\1")
  list(TRANSFORM _architectures REPLACE "^([0-9]+a?)$" "sm_\\1+PTX")
  list(JOIN _architectures ", " _architectures)
  set(_cuda_version "${CUDAToolkit_VERSION_MAJOR}.${CUDAToolkit_VERSION_MINOR}")
  set(_driver "an NVIDIA driver ${TILESCOPE_CUDA_MINIMUM_DRIVER} or newer")
  if(TILESCOPE_CUDA_MINIMUM_DRIVER EQUAL 0)
    set(_driver "an NVIDIA driver that supports CUDA ${_cuda_version}")
  endif()
  set(_variant "Built with CUDA ${_cuda_version} for ${_architectures}\n"
               "(and sm_90a for Hopper's wgmma kernels).\n"
               "It needs ${_driver} and ${_cuda_libraries}.")
  string(CONCAT _variant ${_variant})
endif()

install(FILES "${PROJECT_SOURCE_DIR}/cmake/copyright"
        DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/${_bench_package} COMPONENT bench)
install(FILES "${PROJECT_SOURCE_DIR}/cmake/copyright"
        DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/${_app_package} COMPONENT app)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_GROUPING IGNORE)  # one package per component
set(CPACK_COMPONENTS_ALL bench)
if(TILESCOPE_GUI)
  list(APPEND CPACK_COMPONENTS_ALL app)
endif()

# CPack puts the summary (CPACK_PACKAGE_DESCRIPTION_SUMMARY) first and indents these lines.
set(CPACK_DEBIAN_BENCH_PACKAGE_NAME ${_bench_package})
set(CPACK_DEBIAN_BENCH_PACKAGE_SECTION science)
set(CPACK_COMPONENT_BENCH_DESCRIPTION
    "The command line and run server, without Qt. tilescope-bench runs, times and\n"
    "verifies tiled matrix multiplication kernels, from one thread doing all the\n"
    "work to Hopper's tensor cores, sweeps and autotunes their parameters, and\n"
    "serves runs to the TileScope app over ssh (tilescope-bench --serve).\n\n${_variant}")
string(CONCAT CPACK_COMPONENT_BENCH_DESCRIPTION ${CPACK_COMPONENT_BENCH_DESCRIPTION})
# Each package names the package of every library its program needs directly
# (tests/package/check_depends.sh checks it). OpenBLAS in any of Debian's and Ubuntu's builds;
# gfortran comes with it.
set(_base_depends
    "libc6 (>= 2.34), libstdc++6 (>= 12), libgcc-s1, "
    "libopenblas0 | libopenblas0-pthread | libopenblas0-openmp${_cuda_depends}")
string(CONCAT _base_depends ${_base_depends})
set(CPACK_DEBIAN_BENCH_PACKAGE_DEPENDS "${_base_depends}")

set(CPACK_DEBIAN_APP_PACKAGE_NAME ${_app_package})
set(CPACK_DEBIAN_APP_PACKAGE_SECTION science)
set(CPACK_COMPONENT_APP_DESCRIPTION
    "The desktop app. TileScope runs a teaching ladder of matrix multiplication\n"
    "kernels, times and verifies each run, charts sweeps against the roofline and\n"
    "draws which thread touches which element, when. Its Kernel Editor compiles,\n"
    "runs and traces your own kernels. It runs on GPU servers through\n"
    "tilescope-bench --serve.\n\n${_variant}")
string(CONCAT CPACK_COMPONENT_APP_DESCRIPTION ${CPACK_COMPONENT_APP_DESCRIPTION})
# The CUDA app links the CUDA runtime itself; either app runs its servers through the
# tilescope-bench of its own kind (the CUDA one provides tilescope-bench).
set(CPACK_DEBIAN_APP_PACKAGE_DEPENDS
    "${_bench_package} (= ${PROJECT_VERSION}), ${_base_depends}, libqt6core6 (>= 6.4), "
    "libqt6gui6 (>= 6.4), libqt6widgets6 (>= 6.4), libqt6printsupport6, libqt6svg6, "
    "libqcustomplot2.1-qt6, qt6-qpa-plugins, fonts-dejavu-core")
string(CONCAT CPACK_DEBIAN_APP_PACKAGE_DEPENDS ${CPACK_DEBIAN_APP_PACKAGE_DEPENDS})

# The CUDA packages stand in for the CPU-only ones; a versioned Provides satisfies the CPU app's
# "tilescope-bench (= VERSION)" too.
if(TILESCOPE_HAVE_CUDA)
  set(CPACK_DEBIAN_BENCH_PACKAGE_PROVIDES "tilescope-bench (= ${PROJECT_VERSION})")
  set(CPACK_DEBIAN_BENCH_PACKAGE_CONFLICTS tilescope-bench)
  set(CPACK_DEBIAN_BENCH_PACKAGE_REPLACES tilescope-bench)
  set(CPACK_DEBIAN_APP_PACKAGE_PROVIDES "tilescope (= ${PROJECT_VERSION})")
  set(CPACK_DEBIAN_APP_PACKAGE_CONFLICTS tilescope)
  set(CPACK_DEBIAN_APP_PACKAGE_REPLACES tilescope)
endif()

include(CPack)
