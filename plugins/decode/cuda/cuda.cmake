# The optional GPU roofline tool `infracalc-gpu`: built only when CMake finds nvcc and cuBLAS, never
# required, and kept out of the main binary (which never links CUDA). Included from the top-level
# CMakeLists.txt after the plugin library is defined.
option(INFRACALC_CUDA "Build the optional infracalc-gpu tool when nvcc is found" ON)
if(INFRACALC_CUDA)
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    find_package(CUDAToolkit QUIET)
  endif()
  if(CMAKE_CUDA_COMPILER AND CUDAToolkit_FOUND AND TARGET CUDA::cublas)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 80 90)  # A100, H100/H200; newer GPUs run the sm_90 PTX
    endif()
    enable_language(CUDA)
    message(STATUS "CUDA: ${CMAKE_CUDA_COMPILER} (building infracalc-gpu)")
    add_executable(infracalc-gpu ${CMAKE_SOURCE_DIR}/plugins/decode/cuda/gpu_roofline_main.cc
                                 ${CMAKE_SOURCE_DIR}/plugins/decode/cuda/gpu_bench.cu)
    set_source_files_properties(${CMAKE_SOURCE_DIR}/plugins/decode/cuda/gpu_roofline_main.cc PROPERTIES LANGUAGE CXX)
    set_target_properties(infracalc-gpu PROPERTIES CUDA_STANDARD 17 RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
    target_include_directories(infracalc-gpu PRIVATE ${CMAKE_SOURCE_DIR})
    target_compile_options(infracalc-gpu PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic>
                                                 $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra>)
    target_link_libraries(infracalc-gpu PRIVATE infracalc_plugins infracalc_source_tree CUDA::cudart CUDA::cublas)
  else()
    message(STATUS "CUDA: nvcc or cuBLAS not found (infracalc-gpu is not built; nothing else needs it)")
  endif()
endif()
