# Operability: the version in the start-up line, the installed paths and the
# Debian package. Included from the top-level CMakeLists.txt after the authd
# executable is defined.

# The version, for the "starting" log line.
set_property(SOURCE ${PROJECT_SOURCE_DIR}/src/cli/serve.cpp APPEND PROPERTY
  COMPILE_DEFINITIONS AUTHD_VERSION="${PROJECT_VERSION}")

# ---- Installation: the paths of the Debian package -------------------------
# /usr/bin/authd comes from install(TARGETS) in the top-level file.
include(GNUInstallDirs)
install(FILES ${PROJECT_SOURCE_DIR}/packaging/authd.service
        DESTINATION lib/systemd/system)
install(FILES ${PROJECT_SOURCE_DIR}/packaging/authd.toml
        DESTINATION /etc/authd
        PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ)
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/reference DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/guide DESTINATION ${CMAKE_INSTALL_DOCDIR})

# ---- CPack: `cpack -G DEB` in the build directory --------------------------
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME authd)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "authd maintainers <authd@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Authentication service over HTTP + JSON")
set(CPACK_PACKAGE_DESCRIPTION
  "authd logs users in with argon2id-hashed passwords, issues opaque bearer\n tokens, and handles forgotten passwords by mail. One binary; SQLite by default.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # authd_0.1.0_amd64.deb
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)    # libsodium, libsqlite3, ... found by dpkg-shlibdeps
set(CPACK_DEBIAN_PACKAGE_DEPENDS "adduser")  # postinst creates the authd system user
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
  ${PROJECT_SOURCE_DIR}/packaging/debian/conffiles
  ${PROJECT_SOURCE_DIR}/packaging/debian/postinst
  ${PROJECT_SOURCE_DIR}/packaging/debian/prerm
  ${PROJECT_SOURCE_DIR}/packaging/debian/postrm)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)
