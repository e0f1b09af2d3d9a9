# The password-reset page (GET /reset, /reset.js, /reset.css): its sources
# live in src/web as ordinary files and are compiled into authd_core by
# cmake/embed_files.cmake, regenerated whenever one of them changes.
# Included from the top-level CMakeLists.txt after authd_core is defined.
set(AUTHD_WEB_FILES
  ${PROJECT_SOURCE_DIR}/src/web/reset.html
  ${PROJECT_SOURCE_DIR}/src/web/reset.js
  ${PROJECT_SOURCE_DIR}/src/web/reset.css)
set(AUTHD_WEB_CPP ${PROJECT_BINARY_DIR}/generated/web_assets.cpp)
add_custom_command(
  OUTPUT ${AUTHD_WEB_CPP}
  COMMAND ${CMAKE_COMMAND} -DOUTPUT=${AUTHD_WEB_CPP} "-DINPUTS=${AUTHD_WEB_FILES}"
          -P ${PROJECT_SOURCE_DIR}/cmake/embed_files.cmake
  DEPENDS ${AUTHD_WEB_FILES} ${PROJECT_SOURCE_DIR}/cmake/embed_files.cmake
  COMMENT "Embedding src/web into the binary"
  VERBATIM)
target_sources(authd_core PRIVATE ${AUTHD_WEB_CPP} ${PROJECT_SOURCE_DIR}/src/api/reset_page.cpp)
