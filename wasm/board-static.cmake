# The target board-static: the engine compiled by emscripten (wasm/CMakeLists.txt, a build of
# its own with emscripten's toolchain) and the static board, written to build/board-static/.
# Included by the top-level CMakeLists.txt when emcc is found.
include(ExternalProject)
# The toolchain file: beside emcc.py (Debian: /usr/share/emscripten; emsdk: upstream/emscripten).
find_file(BAGHCHAL_EMSCRIPTEN_TOOLCHAIN Emscripten.cmake
  PATHS /usr/share/emscripten/cmake/Modules/Platform
        ${BAGHCHAL_EMCC_DIR}/cmake/Modules/Platform
  NO_DEFAULT_PATH)
if(NOT BAGHCHAL_EMSCRIPTEN_TOOLCHAIN)
  message(STATUS "emcc found but not its Emscripten.cmake: no board-static target")
  return()
endif()
set(BOARD_STATIC_DIR ${CMAKE_BINARY_DIR}/board-static)
# Debian's emscripten runs its JavaScript tools with the system's node, whose modules
# (acorn) are in /usr/share/nodejs, which a node not Debian's does not search.
set(BAGHCHAL_EM_ENV ${CMAKE_COMMAND} -E env "NODE_PATH=/usr/share/nodejs:$ENV{NODE_PATH}")
# Under make the build shares make's job slots; otherwise two jobs.
if(CMAKE_GENERATOR MATCHES "Make")
  set(BAGHCHAL_EM_BUILD $(MAKE))
else()
  set(BAGHCHAL_EM_BUILD ${CMAKE_COMMAND} --build <BINARY_DIR> --parallel 2)
endif()
ExternalProject_Add(board-static
  SOURCE_DIR ${PROJECT_SOURCE_DIR}/wasm
  BINARY_DIR ${CMAKE_BINARY_DIR}/wasm
  CONFIGURE_COMMAND ${BAGHCHAL_EM_ENV} ${CMAKE_COMMAND} -S <SOURCE_DIR> -B <BINARY_DIR>
    -DCMAKE_TOOLCHAIN_FILE=${BAGHCHAL_EMSCRIPTEN_TOOLCHAIN} -DCMAKE_BUILD_TYPE=Release
    -DBOARD_STATIC_DIR=${BOARD_STATIC_DIR}
  BUILD_COMMAND ${BAGHCHAL_EM_BUILD}
  INSTALL_COMMAND ""
  BUILD_ALWAYS 1
  USES_TERMINAL_BUILD 1)
