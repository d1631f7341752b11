# Every dependency comes from Debian bookworm; scripts/setup.sh installs them.
find_package(Threads REQUIRED)
find_package(Boost 1.81.0 REQUIRED COMPONENTS json CONFIG)
find_package(OpenSSL 3 REQUIRED)
find_package(yaml-cpp REQUIRED)
find_package(spdlog REQUIRED)
find_package(fmt REQUIRED)
find_package(prometheus-cpp REQUIRED)
find_package(GTest REQUIRED)
find_package(benchmark REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(ISOFS REQUIRED IMPORTED_TARGET libisofs-1)
# RE2: linear-time regular expressions in Go's syntax (Debian's libre2-dev ships re2.pc).
pkg_check_modules(RE2 REQUIRED IMPORTED_TARGET re2)
# The same without re2.pc's -pthread, which defines _REENTRANT and so invalidates the precompiled
# header for libraries that use it (HEAVY ones); Threads is linked anyway.
add_library(kp_re2 INTERFACE)
target_include_directories(kp_re2 SYSTEM INTERFACE ${RE2_INCLUDE_DIRS})
target_link_libraries(kp_re2 INTERFACE ${RE2_LINK_LIBRARIES} Threads::Threads)

# jemalloc for the controller process (cmd/karpenter-proxmox/heap_limits.hpp says why). The
# sanitizers bring their own allocator, so their builds keep glibc's.
add_library(kp_jemalloc INTERFACE)
if(KP_JEMALLOC AND NOT KP_SANITIZE AND NOT KP_FUZZ)
  find_library(JEMALLOC_LIBRARY jemalloc REQUIRED)
  target_link_libraries(kp_jemalloc INTERFACE ${JEMALLOC_LIBRARY})
  set(KP_WITH_JEMALLOC ON)
endif()

# CAF 0.17.6 on Debian ships neither a CMake package nor a pkg-config file.
find_path(CAF_INCLUDE_DIR caf/all.hpp REQUIRED)
find_library(CAF_CORE_LIBRARY caf_core REQUIRED)
add_library(kp_caf INTERFACE)
target_include_directories(kp_caf SYSTEM INTERFACE ${CAF_INCLUDE_DIR})
target_link_libraries(kp_caf INTERFACE ${CAF_CORE_LIBRARY} Threads::Threads)

# Definitions that must be identical in every translation unit so one precompiled header fits all.
add_compile_definitions(
  SPDLOG_SHARED_LIB SPDLOG_COMPILED_LIB SPDLOG_FMT_EXTERNAL
  BOOST_ASIO_NO_DEPRECATED
  OPENSSL_API_COMPAT=30000 OPENSSL_NO_DEPRECATED
  LIBISOFS_WITHOUT_LIBBURN)

add_compile_options(-Wall -Wextra -Wpedantic -Wno-missing-field-initializers)
if(KP_WERROR)
  add_compile_options(-Werror)
endif()
if(KP_SANITIZE)
  # GCC 12 reports false "maybe-uninitialized" inside Beast headers under ASan.
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
                      -Wno-maybe-uninitialized)
  add_link_options(-fsanitize=address,undefined)
endif()
if(KP_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "KP_FUZZ needs clang (libFuzzer): configure with CXX=clang++-14")
  endif()
  # Every library carries coverage feedback and the sanitizers; only fuzz targets link libFuzzer.
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer
                      -fno-sanitize-recover=undefined -g)
  add_link_options(-fsanitize=address,undefined)
endif()
