# One static library per layer of src/ (docs/design/architecture.md,
# "Layers"). A layer's target_link_libraries are its allowed arrows: a
# source sees the headers of its own layer and of the layers below it that
# it links, and no others, so that an upward include fails to build:
#
#   core                          (nothing)
#   crypto                        core
#   store (interface, areas/)     crypto
#   store_batching (scheduler)    store
#   store_sqlite                  store_batching (group commit)
#   store_postgres                store
#   store_backends (open_store)   store_sqlite store_postgres
#   auth                          store crypto    (never the scheduler)
#   upstream (libcurl to upstream providers)  auth
#   metrics                       core
#   mail, webhooks                auth
#   api (+ web/ pages)            auth upstream metrics
#   http                          api
#   config                        http mail store_backends
#   cli (the composition root)    config webhooks store_batching
#
# How a layer's headers are kept from the others: each layer gets a folder
# of its own under the build directory, layers/<layer>/, holding symbolic
# links to its folders of src/ (store's own headers one by one, since
# store/'s subfolders are other layers), and only that folder is its public
# include directory. A source in src/auth that includes "api/api.hpp" finds
# no such file in the include directories of auth and of what auth links.
#
# Included from the top-level CMakeLists.txt after cmake/sources.cmake and
# the third-party packages.

set(AUTHD_LAYER_STAGE ${PROJECT_BINARY_DIR}/layers)

# authd_stage(<layer> <path under src/> ...): links each path (a folder or
# a file) into the layer's include folder.
function(authd_stage layer)
  foreach(path ${ARGN})
    set(link ${AUTHD_LAYER_STAGE}/${layer}/${path})
    get_filename_component(parent ${link} DIRECTORY)
    file(MAKE_DIRECTORY ${parent})
    if(NOT IS_SYMLINK ${link})
      file(CREATE_LINK ${PROJECT_SOURCE_DIR}/src/${path} ${link} SYMBOLIC)
    endif()
  endforeach()
endfunction()

# What every layer shares: third-party headers and libraries, warnings,
# definitions. Not a layer: it grants no access to authd's own headers.
add_library(authd_build_settings INTERFACE)
target_include_directories(authd_build_settings SYSTEM INTERFACE ${KAINJOW_MUSTACHE_INCLUDE_DIR})
target_compile_options(authd_build_settings INTERFACE ${AUTHD_WARNINGS})
target_compile_definitions(authd_build_settings INTERFACE BOOST_ASIO_NO_DEPRECATED
                                                          SPDLOG_FMT_EXTERNAL)
target_link_libraries(authd_build_settings INTERFACE
  PkgConfig::SODIUM PkgConfig::ARGON2 PkgConfig::XCRYPT PkgConfig::LIBSSL PkgConfig::LIBCRYPTO
  PkgConfig::SQLITE PkgConfig::OATH PkgConfig::QRENCODE PkgConfig::FIDO2 PkgConfig::CBOR
  PkgConfig::PQ PkgConfig::CURL PkgConfig::TOMLPP PkgConfig::CJOSE Boost::headers Boost::context
  nlohmann_json::nlohmann_json CLI11::CLI11 spdlog::spdlog Threads::Threads)

# Boost.Asio/Beast and nlohmann are header-heavy: precompiled once, in a
# target of their own, and reused by every layer and the tests.
set(AUTHD_PCH_SOURCE ${PROJECT_BINARY_DIR}/generated/pch.cpp)
file(WRITE ${AUTHD_PCH_SOURCE} "// The precompiled headers' own source (cmake/layers.cmake).\n")
add_library(authd_pch OBJECT ${AUTHD_PCH_SOURCE})
target_link_libraries(authd_pch PUBLIC authd_build_settings)
target_precompile_headers(authd_pch PRIVATE
  <utility> <boost/asio.hpp> <boost/beast/core.hpp> <boost/beast/http.hpp> <nlohmann/json.hpp>
  <spdlog/spdlog.h> <CLI/CLI.hpp>)

# authd_layer(<layer> STAGE <paths under src/>... LINKS <layers below>...
#             [EXTRA <generated sources>...])
function(authd_layer layer)
  cmake_parse_arguments(L "" "" "STAGE;LINKS;EXTRA" ${ARGN})
  string(TOUPPER ${layer} upper)
  authd_stage(${layer} ${L_STAGE})
  add_library(authd_${layer} STATIC ${AUTHD_${upper}_SOURCES} ${L_EXTRA})
  target_include_directories(authd_${layer} PUBLIC ${AUTHD_LAYER_STAGE}/${layer})
  target_link_libraries(authd_${layer} PUBLIC authd_build_settings)
  foreach(below ${L_LINKS})
    target_link_libraries(authd_${layer} PUBLIC authd_${below})
  endforeach()
  target_precompile_headers(authd_${layer} REUSE_FROM authd_pch)
endfunction()

file(GLOB AUTHD_STORE_HEADERS CONFIGURE_DEPENDS RELATIVE ${PROJECT_SOURCE_DIR}/src
     ${PROJECT_SOURCE_DIR}/src/store/*.hpp)

authd_layer(core STAGE core)
authd_layer(crypto STAGE crypto LINKS core)
authd_layer(store STAGE ${AUTHD_STORE_HEADERS} store/areas LINKS crypto)
authd_layer(store_batching STAGE store/batching LINKS store)
authd_layer(store_sqlite STAGE store/sqlite LINKS store_batching)
authd_layer(store_postgres STAGE store/postgres LINKS store)
authd_layer(store_backends STAGE store/backends LINKS store_sqlite store_postgres)
authd_layer(auth STAGE auth LINKS store crypto)
authd_layer(upstream STAGE upstream LINKS auth)
authd_layer(metrics STAGE metrics LINKS core)
authd_layer(mail STAGE mail LINKS auth EXTRA ${AUTHD_MAIL_TEMPLATES_CPP})
authd_layer(webhooks STAGE webhooks LINKS auth)
authd_layer(api STAGE api web LINKS auth upstream metrics EXTRA ${AUTHD_WEB_CPP})
authd_layer(http STAGE http LINKS api)
authd_layer(config STAGE config LINKS http mail store_backends)
authd_layer(cli STAGE cli LINKS config webhooks store_batching)

# Everything, for the executable and the tests.
add_library(authd_lib INTERFACE)
target_link_libraries(authd_lib INTERFACE authd_cli)
