# Optional parts of the shared kernel utilities, included from the top-level CMakeLists.txt after the
# plugin library is defined.
#
# OpenBLAS: the peak-rate probe adds an SGEMM figure when it is found (Debian: libopenblas-dev); without it
# the FMA loop and the built-in matrix kernel measure the peak and the output says why there is no SGEMM
# figure. The library is opened with dlopen when the probe runs, not linked: linked, it would start its
# thread pool in every invocation and the binary could not start where it is missing.
option(INFRACALC_OPENBLAS "Use OpenBLAS for the SGEMM peak probe when it is installed" ON)
if(INFRACALC_OPENBLAS)
  find_library(OPENBLAS_LIBRARY NAMES openblas)
  if(OPENBLAS_LIBRARY)
    message(STATUS "OpenBLAS: ${OPENBLAS_LIBRARY} (SGEMM peak probe on, loaded at run time)")
    target_compile_definitions(infracalc_plugins PRIVATE INFRACALC_OPENBLAS_LIBRARY="${OPENBLAS_LIBRARY}")
    target_link_libraries(infracalc_plugins PRIVATE ${CMAKE_DL_LIBS})
  else()
    message(STATUS "OpenBLAS: not found (the peak probe uses the FMA loop only)")
  endif()
endif()
find_package(Threads REQUIRED)
target_link_libraries(infracalc_plugins PUBLIC Threads::Threads)
