# SPDX-License-Identifier: GPL-3.0-or-later
# Debian packages through CPack (`cpack -G DEB` in the build directory, or the `package` target):
# `tilescope-bench` alone, for GPU servers and cluster nodes (no Qt), and `tilescope`, the
# desktop app, which depends on it (for --via and the isolated CUDA backend). Each declares the
# packages it needs, so an administrator installs it with apt.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME tilescope)
set(CPACK_PACKAGE_VENDOR TileScope)
set(CPACK_PACKAGE_CONTACT "TileScope maintainers <tilescope@users.noreply.github.com>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
# GPL-3.0-or-later (the app links QCustomPlot, which is GPL). Debian wants the copyright file in
# /usr/share/doc/<package>/ of every package.
set(CPACK_RESOURCE_FILE_LICENSE "${PROJECT_SOURCE_DIR}/LICENSE")
set(CPACK_RPM_PACKAGE_LICENSE "GPL-3.0-or-later")
include(GNUInstallDirs)
install(FILES "${PROJECT_SOURCE_DIR}/cmake/copyright"
        DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/tilescope-bench COMPONENT bench)
install(FILES "${PROJECT_SOURCE_DIR}/cmake/copyright"
        DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/tilescope COMPONENT app)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_GROUPING IGNORE)  # one package per component
set(CPACK_COMPONENTS_ALL bench)
if(TILESCOPE_GUI)
  list(APPEND CPACK_COMPONENTS_ALL app)
endif()

set(CPACK_DEBIAN_BENCH_PACKAGE_NAME tilescope-bench)
set(CPACK_DEBIAN_BENCH_PACKAGE_SECTION science)
set(CPACK_COMPONENT_BENCH_DESCRIPTION
    "TileScope's command line and run server (tilescope-bench --serve), without Qt")
# OpenBLAS in any of Debian's and Ubuntu's builds; gfortran comes with it.
set(_bench_depends "libc6 (>= 2.34), libstdc++6 (>= 12), libgcc-s1, "
                   "libopenblas0 | libopenblas0-pthread | libopenblas0-openmp")
if(TILESCOPE_HAVE_CUDA)
  # The CUDA runtime and cuBLAS as NVIDIA's apt repository names them for CUDA 13.
  string(APPEND _bench_depends ", cuda-cudart-13-0, libcublas-13-0")
endif()
string(CONCAT CPACK_DEBIAN_BENCH_PACKAGE_DEPENDS ${_bench_depends})

set(CPACK_DEBIAN_APP_PACKAGE_NAME tilescope)
set(CPACK_DEBIAN_APP_PACKAGE_SECTION science)
set(CPACK_COMPONENT_APP_DESCRIPTION "TileScope's desktop app (Qt 6)")
set(CPACK_DEBIAN_APP_PACKAGE_DEPENDS
    "tilescope-bench (= ${PROJECT_VERSION}), libqt6widgets6 (>= 6.4), libqt6printsupport6, "
    "libqt6svg6, libqcustomplot2.1-qt6, qt6-qpa-plugins, fonts-dejavu-core")
string(CONCAT CPACK_DEBIAN_APP_PACKAGE_DEPENDS ${CPACK_DEBIAN_APP_PACKAGE_DEPENDS})

include(CPack)
