# SPDX-License-Identifier: GPL-3.0-or-later
# cmake -DPTXAS=ptxas -DPTX=file.ptx -DARCH=sm_90a -P check_wgmma_serialisation.cmake: assembles
# the PTX for ARCH (the ptxas nvcc runs, at its default -O3) and fails on ptxas's advisories that
# it serialises a kernel's wgmma instructions ("(C75..) Potential Performance Loss:
# wgmma.mma_async instructions are serialized due to ..."), such as the C7513 that a branch in
# tensor-tf32's consumer loop once caused (CHANGELOG.md, 2026-11-26).
get_filename_component(name "${PTX}" NAME_WE)
# The cubin goes beside the PTX, in the build tree.
execute_process(
  COMMAND "${PTXAS}" -arch=${ARCH} -v "${PTX}" -o "${PTX}.cubin"
  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "ptxas failed on ${PTX}:\n${err}")
endif()
string(REGEX MATCHALL "Compiling entry function" kernels "${out}${err}")
list(LENGTH kernels count)
if(count EQUAL 0)
  message(FATAL_ERROR "ptxas compiled no kernel of ${PTX}")
endif()
string(REGEX MATCHALL "\\(C75[0-9][0-9]\\) Potential Performance Loss: wgmma[^\n]*" serialised
       "${out}${err}")
if(serialised)
  list(JOIN serialised "\n  " lines)
  message(FATAL_ERROR "ptxas serialises wgmma instructions:\n  ${lines}")
endif()
message(STATUS "${count} kernels of ${name}: no wgmma serialised")
