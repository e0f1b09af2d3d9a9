# The built-in mail templates (src/mail/templates/*.mustache, documented in
# docs/reference/mail-templates.md): compiled into the binary by cmake/embed_files.cmake
# like the web page's files, and looked up by file name through
# authd::mail::template_file() (src/mail/template_files.hpp).
#
# authd_mail_templates(<var> <source root>): sets <var> to the generated .cpp.
function(authd_mail_templates out_var root)
  file(GLOB template_files CONFIGURE_DEPENDS ${root}/src/mail/templates/*.mustache)
  set(templates_cpp ${PROJECT_BINARY_DIR}/generated/mail_templates.cpp)
  add_custom_command(
    OUTPUT ${templates_cpp}
    COMMAND ${CMAKE_COMMAND} -DOUTPUT=${templates_cpp} "-DINPUTS=${template_files}"
            -DNAMESPACE=authd::mail -DHEADER=mail/template_files.hpp -DLOOKUP=template_file
            -P ${root}/cmake/embed_files.cmake
    DEPENDS ${template_files} ${root}/cmake/embed_files.cmake
    COMMENT "Embedding src/mail/templates into the binary"
    VERBATIM)
  set(${out_var} ${templates_cpp} PARENT_SCOPE)
endfunction()
