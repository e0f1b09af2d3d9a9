# Compiles through ccache when it is installed (scripts/install-deps.sh
# installs it): CI builds a fresh clone three times (scripts/build.sh,
# scripts/test-sanitized.sh, scripts/fuzz.sh), and a source compiled before,
# in this clone or another, is then taken from the cache. Paths are made
# relative to the repository's root, on the command line (CCACHE_BASEDIR)
# and in what the compiler sees (-ffile-prefix-map: CMake's unity batches
# include each source by its absolute path, and __FILE__ would put the
# clone's directory into the objects), and the working directory is left
# out of the hash, so that clones in other directories share entries;
# pch_defines and the include-file times let the precompiled header be
# cached too. -DAUTHD_CCACHE=OFF compiles directly. Include before any
# target is made.
option(AUTHD_CCACHE "Compile through ccache when it is installed" ON)
find_program(AUTHD_CCACHE_PROGRAM ccache)
if(AUTHD_CCACHE AND AUTHD_CCACHE_PROGRAM)
  get_filename_component(authd_repository_root "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
  set(CMAKE_CXX_COMPILER_LAUNCHER
      ${CMAKE_COMMAND} -E env
      CCACHE_BASEDIR=${authd_repository_root}
      CCACHE_NOHASHDIR=1
      CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
      ${AUTHD_CCACHE_PROGRAM})
  add_compile_options(-ffile-prefix-map=${authd_repository_root}/=)
endif()
