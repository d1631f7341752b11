# Small helpers so every folder declares its targets the same way.
include(GoogleTest)

# One precompiled header for the heavy third-party headers; libraries reuse it.
add_library(kp_pch STATIC ${CMAKE_SOURCE_DIR}/cmake/pch_anchor.cpp)
target_link_libraries(kp_pch PUBLIC kp_caf Boost::json OpenSSL::SSL spdlog::spdlog)
if(KP_PCH)
  target_precompile_headers(kp_pch PRIVATE
    <caf/all.hpp> <boost/asio.hpp> <boost/beast/core.hpp> <boost/beast/http.hpp>
    <boost/beast/ssl.hpp> <boost/json.hpp> <spdlog/spdlog.h>)
endif()

# kp_library(name SOURCES ... [HEAVY] [LIBS ...]): a static library of this project.
# HEAVY marks one that includes CAF/Beast/JSON/spdlog, so it reuses the precompiled header.
function(kp_library name)
  cmake_parse_arguments(A "HEAVY" "" "SOURCES;LIBS" ${ARGN})
  add_library(${name} STATIC ${A_SOURCES})
  target_link_libraries(${name} PUBLIC ${A_LIBS})
  if(A_HEAVY)
    target_link_libraries(${name} PUBLIC kp_pch)
    if(KP_PCH)
      target_precompile_headers(${name} REUSE_FROM kp_pch)
    endif()
  endif()
endfunction()

# kp_executable(name SOURCES ... [LIBS ...]): a binary in build/bin.
function(kp_executable name)
  cmake_parse_arguments(A "" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${A_SOURCES})
  target_link_libraries(${name} PRIVATE ${A_LIBS})
endfunction()

# Every test binary's main(): knows where this build's binaries and sources are.
add_library(kp_test_main STATIC ${CMAKE_SOURCE_DIR}/test/support/gtest_main.cpp)
target_link_libraries(kp_test_main PUBLIC GTest::gtest)
target_compile_definitions(kp_test_main PRIVATE KP_TEST_BIN_DIR="${CMAKE_BINARY_DIR}/bin"
                                                KP_TEST_SOURCE_DIR="${CMAKE_SOURCE_DIR}")

# kp_test(name SOURCES ... LIBS ... LABELS unit|integration|e2e [TIMEOUT s] [PROPERTIES ...]): a
# GoogleTest binary, each test case registered with ctest under the given label (and the extra
# ctest PROPERTIES, e.g. FIXTURES_REQUIRED). KP_BIN_DIR and KP_SOURCE_DIR are in its environment
# (set by kp_test_main).
function(kp_test name)
  cmake_parse_arguments(A "" "TIMEOUT" "SOURCES;LIBS;LABELS;PROPERTIES" ${ARGN})
  if(NOT A_TIMEOUT)
    set(A_TIMEOUT 120)
  endif()
  add_executable(${name} ${A_SOURCES})
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
  target_link_libraries(${name} PRIVATE ${A_LIBS} kp_test_main GTest::gtest)
  gtest_discover_tests(${name}
    DISCOVERY_MODE PRE_TEST
    PROPERTIES LABELS "${A_LABELS}" TIMEOUT ${A_TIMEOUT} ${A_PROPERTIES})
endfunction()

# kp_add_subdirectories(): adds every child folder that has a CMakeLists.txt, so a new part
# needs no edit of its parent.
function(kp_add_subdirectories)
  file(GLOB children LIST_DIRECTORIES true RELATIVE ${CMAKE_CURRENT_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR}/*)
  list(SORT children)
  foreach(child ${children})
    if(IS_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/${child} AND EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/${child}/CMakeLists.txt)
      add_subdirectory(${child})
    endif()
  endforeach()
endfunction()

# kp_fuzz_target(name SOURCES ... LIBS ... [RUNS n] [MAX_LEN bytes]): a fuzz target, one LLVMFuzzerTestOneInput
# over its committed corpus in test/fuzz/corpus/<name>/. The default build links it with the
# replay driver (test/fuzz/replay_main.cpp); KP_FUZZ=ON with clang makes it a libFuzzer binary.
# Either way it lands in build/fuzz/fuzz-<name> and ctest runs it for RUNS executions under the
# label `fuzz`.
add_custom_target(fuzz_targets)
function(kp_fuzz_target name)
  cmake_parse_arguments(A "" "RUNS;MAX_LEN" "SOURCES;LIBS" ${ARGN})
  if(NOT A_RUNS)
    set(A_RUNS 4000)
  endif()
  if(NOT A_MAX_LEN)
    set(A_MAX_LEN 65536)
  endif()
  set(target fuzz-${name})
  set(corpus ${CMAKE_SOURCE_DIR}/test/fuzz/corpus/${name})
  if(KP_FUZZ)
    add_executable(${target} ${A_SOURCES})
    target_link_options(${target} PRIVATE -fsanitize=fuzzer)
    # libFuzzer adds what it finds to the first directory: keep that out of the source tree.
    set(found ${CMAKE_BINARY_DIR}/fuzz/found/${name})
    file(MAKE_DIRECTORY ${found})
    add_test(NAME fuzz.${name} COMMAND ${target} -runs=${A_RUNS} -seed=1 -max_len=${A_MAX_LEN}
             ${found} ${corpus})
  else()
    add_executable(${target} ${A_SOURCES} ${CMAKE_SOURCE_DIR}/test/fuzz/replay_main.cpp)
    add_test(NAME fuzz.${name} COMMAND ${target} -runs=${A_RUNS} -seed=1 -max_len=${A_MAX_LEN}
             ${corpus})
  endif()
  target_link_libraries(${target} PRIVATE ${A_LIBS})
  set_target_properties(${target} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/fuzz)
  set_tests_properties(fuzz.${name} PROPERTIES LABELS fuzz TIMEOUT 120
                       WORKING_DIRECTORY ${CMAKE_BINARY_DIR}/fuzz)
  add_dependencies(fuzz_targets ${target})
endfunction()
