# authd's sources, one list per layer: every .cpp of the layer's folders
# (found again when a file is added, by CONFIGURE_DEPENDS), except main()
# and the warm argon2 memory (crypto/warm_argon2_memory.cpp, linked into the
# executable alone). The top-level CMakeLists.txt builds one library per
# layer from them (cmake/layers.cmake); fuzz/ builds one library from their
# union, AUTHD_ALL_SOURCES, leaving out what no fuzzer reaches.
# AUTHD_ROOT is the repository's root.
#
# authd_layer_sources(<layer> <folder under src/> ...): sets
# AUTHD_<LAYER>_SOURCES to the .cpp files of those folders (not their
# subfolders; a folder ending in /** takes its subfolders too).
function(authd_layer_sources layer)
  set(found "")
  foreach(folder ${ARGN})
    if(folder MATCHES "^(.*)/\\*\\*$")
      file(GLOB_RECURSE files CONFIGURE_DEPENDS ${AUTHD_ROOT}/src/${CMAKE_MATCH_1}/*.cpp)
    else()
      file(GLOB files CONFIGURE_DEPENDS ${AUTHD_ROOT}/src/${folder}/*.cpp)
    endif()
    list(APPEND found ${files})
  endforeach()
  list(FILTER found EXCLUDE REGEX "/src/crypto/warm_argon2_memory\\.cpp$")
  list(SORT found)
  string(TOUPPER ${layer} upper)
  set(AUTHD_${upper}_SOURCES ${found} PARENT_SCOPE)
endfunction()

# The layers, from the bottom up; cmake/layers.cmake says which may include which.
set(AUTHD_LAYERS core crypto store store_batching store_sqlite store_postgres store_backends
    auth upstream metrics mail webhooks api http config cli)
authd_layer_sources(core core)
authd_layer_sources(crypto crypto)
authd_layer_sources(store store store/areas)
authd_layer_sources(store_batching store/batching)
authd_layer_sources(store_sqlite store/sqlite)
authd_layer_sources(store_postgres store/postgres)
authd_layer_sources(store_backends store/backends)
authd_layer_sources(auth auth/**)
authd_layer_sources(upstream upstream)
authd_layer_sources(metrics metrics)
authd_layer_sources(mail mail)
authd_layer_sources(webhooks webhooks)
authd_layer_sources(api api)
authd_layer_sources(http http)
authd_layer_sources(config config)
authd_layer_sources(cli cli)

set(AUTHD_ALL_SOURCES "")
foreach(layer ${AUTHD_LAYERS})
  string(TOUPPER ${layer} upper)
  list(APPEND AUTHD_ALL_SOURCES ${AUTHD_${upper}_SOURCES})
endforeach()

# Not in the fuzzers' library: the CLI, its configuration, mail and webhook delivery
# (nothing a fuzzer sends reaches them).
set(AUTHD_UNFUZZED_SOURCES_REGEX "/src/(cli|config|mail|webhooks)/")
