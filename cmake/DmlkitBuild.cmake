# How dmlkit is compiled and linked: the build-time budget (issue 35, docs/performance.md "Build
# time"). Included once from the top-level CMakeLists.txt.
#
# - Warnings: -Wall -Wextra, zero of them in a Release build (DMLKIT_WERROR=ON turns them into
#   errors; CI sets it). What is off is off on purpose, each with its reason below.
# - Linker: mold, else lld, when the machine has one (DMLKIT_FAST_LINKER): test and benchmark
#   binaries link every module.
# - Unity builds (dmlkit_unity) of apps/ and the tests: most of such a file's compile time is code
#   generation for what every file instantiates again (CLI11 2.1 is header-only: an empty file
#   including it costs 1.6 s to parse and 5.9 s at -O3); a batch of 8 generates it once.
# - Precompiled headers (dmlkit_precompile): the heavy third-party headers are parsed once per
#   target instead of once per file (the smaller gain: 1-1.5 s per file).
# - ccache stays; its sloppiness settings make precompiled headers cacheable.

option(DMLKIT_WERROR "Treat compiler warnings as errors (CI)" OFF)
option(DMLKIT_FAST_LINKER "Link with mold or lld when present" ON)
option(DMLKIT_PCH "Precompile the heavy third-party headers per target" ON)
option(DMLKIT_UNITY "Unity builds of the command-line program and the test binaries" ON)

add_compile_options(-Wall -Wextra -Wno-unused-parameter
  # Aggregates here are initialised partially on purpose (`ChartSeries{label, x, y}`): the members
  # left out have default member initialisers, which GCC 12 still reports.
  -Wno-missing-field-initializers)
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  # GCC 12 reports impossible overlaps, sizes and bounds inside libstdc++'s std::string at -O2/-O3
  # (GCC bugs 105329, 105651, 106199: an inlined char_traits::copy after `"x" + std::string`),
  # as -Wrestrict, -Wstringop-overflow, -Wstringop-overread or -Warray-bounds depending on what
  # was inlined. They move with every inlining change (precompiled headers, unity batches) and
  # even with the length of a path compiled into a literal (CI's checkout reported
  # -Wstringop-overread for `std::string(DMLKIT_SOURCE_DIR) + "/data"` where ours did not), so
  # they are off for GCC 12 only; GCC 13 and later check them.
  add_compile_options(-Wno-restrict -Wno-stringop-overflow -Wno-stringop-overread
                      -Wno-array-bounds)
endif()
if(DMLKIT_WERROR)
  add_compile_options(-Werror)
endif()

if(DMLKIT_FAST_LINKER)
  find_program(DMLKIT_MOLD mold)
  find_program(DMLKIT_LLD ld.lld)
  if(DMLKIT_MOLD)
    add_link_options(-fuse-ld=mold)
    message(STATUS "dmlkit: linking with mold (${DMLKIT_MOLD})")
  elseif(DMLKIT_LLD)
    add_link_options(-fuse-ld=lld)
    message(STATUS "dmlkit: linking with lld (${DMLKIT_LLD})")
  endif()
endif()

find_program(CCACHE_PROGRAM ccache)
if(CCACHE_PROGRAM)
  # Precompiled headers are only cached with these sloppiness settings (ccache manual,
  # "Precompiled headers").
  set(CMAKE_CXX_COMPILER_LAUNCHER ${CMAKE_COMMAND} -E env
      "CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime"
      ${CCACHE_PROGRAM})
endif()

# The standard headers nearly every file of the project includes.
set(DMLKIT_PCH_STD
  <algorithm> <cmath> <cstdint> <filesystem> <fstream> <functional> <map> <memory> <optional>
  <set> <sstream> <stdexcept> <string> <unordered_map> <utility> <vector>)

# dmlkit_precompile(TARGET KIND): precompiled headers for TARGET.
#   lib:   the standard headers and nlohmann/json (core/results.h and core/registry.h bring it
#          into most of src/).
#   app:   lib plus CLI11 (apps/dmlkit, python/).
#   test:  app plus GoogleTest and GoogleMock.
# A target may instead reuse another's (REUSE target), when both compile with the same flags.
function(dmlkit_precompile target kind)
  if(NOT DMLKIT_PCH)
    return()
  endif()
  cmake_parse_arguments(PCH "" "REUSE" "" ${ARGN})
  if(PCH_REUSE)
    target_precompile_headers(${target} REUSE_FROM ${PCH_REUSE})
    return()
  endif()
  set(headers ${DMLKIT_PCH_STD} <nlohmann/json.hpp>)
  if(kind STREQUAL "app" OR kind STREQUAL "test")
    list(APPEND headers <CLI/CLI.hpp>)
  endif()
  if(kind STREQUAL "test")
    list(APPEND headers <gtest/gtest.h> <gmock/gmock.h>)
  endif()
  target_precompile_headers(${target} PRIVATE ${headers})
endfunction()

# dmlkit_unity(TARGET BATCH): compile TARGET's files BATCH at a time in one translation unit. Most of
# an apps/ or tests/ file's compile time is code generation for what every file instantiates again
# (CLI11's validators and callbacks, nlohmann/json, GoogleTest's registration): a batch generates it
# once. Files in a batch share a translation unit, so names in anonymous namespaces must not clash
# (give file-local helpers distinctive names, or wrap a file's helpers in a named namespace).
function(dmlkit_unity target batch)
  if(DMLKIT_UNITY)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${batch})
  endif()
endfunction()
