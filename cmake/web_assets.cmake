# The password-reset page (GET /reset, /reset.js, /reset.css): its sources
# live in src/web as ordinary files and are compiled into the binary by
# cmake/embed_files.cmake, regenerated whenever one of them changes. Used by
# the main build and by fuzz/.
#
# authd_web_assets(<var> <source root>): sets <var> to the generated .cpp.
function(authd_web_assets out_var root)
  file(GLOB web_files CONFIGURE_DEPENDS
    ${root}/src/web/*.html ${root}/src/web/*.js ${root}/src/web/*.css)
  set(web_cpp ${PROJECT_BINARY_DIR}/generated/web_assets.cpp)
  add_custom_command(
    OUTPUT ${web_cpp}
    COMMAND ${CMAKE_COMMAND} -DOUTPUT=${web_cpp} "-DINPUTS=${web_files}"
            -P ${root}/cmake/embed_files.cmake
    DEPENDS ${web_files} ${root}/cmake/embed_files.cmake
    COMMENT "Embedding src/web into the binary"
    VERBATIM)
  set(${out_var} ${web_cpp} PARENT_SCOPE)
endfunction()
