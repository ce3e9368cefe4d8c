# Fails when any source in DIR (engine/, text/) includes a Lua, SQLite,
# libcsv or JSON library header (DESIGN.md: the engine uses only libc and
# libm; text/ goes into the wasm with it).
file(GLOB srcs "${DIR}/*.c" "${DIR}/*.h")
foreach(f ${srcs})
  file(STRINGS "${f}" lines REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"]")
  foreach(line ${lines})
    if(line MATCHES "[<\"/](lua|lualib|lauxlib|luaconf|sqlite3|csv|jansson|cJSON)\\.h[>\"]")
      message(FATAL_ERROR "${f}: must not include ${line}")
    endif()
  endforeach()
endforeach()
