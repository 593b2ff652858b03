# Optional parts of the shared kernel utilities, included from the top-level CMakeLists.txt after the
# plugin library is defined.
#
# OpenBLAS: the peak-rate probe adds an SGEMM figure when it is found (Debian: libopenblas-dev); without it
# the FMA loop alone measures the peak and the output says why there is no SGEMM figure.
option(INFRACALC_OPENBLAS "Use OpenBLAS for the SGEMM peak probe when it is installed" ON)
if(INFRACALC_OPENBLAS)
  find_path(OPENBLAS_INCLUDE_DIR cblas.h
    PATH_SUFFIXES openblas-pthread openblas x86_64-linux-gnu/openblas-pthread aarch64-linux-gnu/openblas-pthread)
  find_library(OPENBLAS_LIBRARY NAMES openblas)
  if(OPENBLAS_INCLUDE_DIR AND OPENBLAS_LIBRARY)
    message(STATUS "OpenBLAS: ${OPENBLAS_LIBRARY} (SGEMM peak probe on)")
    target_include_directories(infracalc_plugins PRIVATE ${OPENBLAS_INCLUDE_DIR})
    target_compile_definitions(infracalc_plugins PRIVATE INFRACALC_HAVE_OPENBLAS=1)
    target_link_libraries(infracalc_plugins PRIVATE ${OPENBLAS_LIBRARY})
  else()
    message(STATUS "OpenBLAS: not found (the peak probe uses the FMA loop only)")
  endif()
endif()
find_package(Threads REQUIRED)
target_link_libraries(infracalc_plugins PUBLIC Threads::Threads)
