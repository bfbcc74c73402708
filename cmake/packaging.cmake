# Installing torchdex and packaging it as a .deb (issue 9, "Packaging torchdex itself") or a
# wheel (issue 19).
#   cmake --install build/release --prefix /usr/local   the programs, man pages, docs, data
#   cmake --build build/release --target deb            build/release/torchdex_<v>_<arch>.deb
#   scripts/wheel                                       build/wheel/dist/torchdex-<v>-*.whl
# Layout (GNUInstallDirs): bin/torchdex{,-crawl,-codegen}, share/man/man1/*.1,
# share/doc/torchdex/*.md, share/torchdex/data/*.json (torchdex-crawl finds them from its own
# location; see DefaultDataDir in crawler/cli.cc).

# The wheel (pyproject.toml, scikit-build-core, which sets SKBUILD; docs/packaging.md) installs
# the same files into the wheel's folders: the programs into its scripts folder, the man pages
# and data under its data folder, which pip, pipx and uv unpack into the environment's bin/ and
# share/. The layout under the environment is then this one, so torchdex-crawl finds its data
# beside its bin/ there too. The wheel leaves out the Markdown pages (the README is its
# description).
if(SKBUILD)
  if(NOT SKBUILD_PROJECT_VERSION STREQUAL PROJECT_VERSION)
    message(FATAL_ERROR "the wheel's version ${SKBUILD_PROJECT_VERSION} is not the project's "
                        "${PROJECT_VERSION} (pyproject.toml reads it from this file's project())")
  endif()
  set(TORCHDEX_INSTALL_BINDIR "${SKBUILD_SCRIPTS_DIR}")
  set(TORCHDEX_INSTALL_PREFIX_DIR "${SKBUILD_DATA_DIR}/")
else()
  set(TORCHDEX_INSTALL_BINDIR "${CMAKE_INSTALL_BINDIR}")
  set(TORCHDEX_INSTALL_PREFIX_DIR "")
endif()
install(TARGETS torchdex torchdex-crawl torchdex-codegen
        RUNTIME DESTINATION "${TORCHDEX_INSTALL_BINDIR}")
install(DIRECTORY "${PROJECT_SOURCE_DIR}/docs/man/"
        DESTINATION "${TORCHDEX_INSTALL_PREFIX_DIR}${CMAKE_INSTALL_MANDIR}/man1"
        FILES_MATCHING PATTERN "*.1")
if(NOT SKBUILD)
  install(DIRECTORY "${PROJECT_SOURCE_DIR}/docs/"
          DESTINATION "${CMAKE_INSTALL_DOCDIR}" FILES_MATCHING PATTERN "*.md" PATTERN "man" EXCLUDE)
endif()
# torchdex-crawl looks for them at ../${CMAKE_INSTALL_DATADIR}/torchdex/data from its own
# location (TORCHDEX_INSTALLED_DATA_DIR in crawler/CMakeLists.txt).
file(GLOB TORCHDEX_DATA_FILES CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/data/*.json")
install(FILES ${TORCHDEX_DATA_FILES}
        DESTINATION "${TORCHDEX_INSTALL_PREFIX_DIR}${CMAKE_INSTALL_DATADIR}/torchdex/data")

set(CPACK_PACKAGE_NAME "torchdex")
set(CPACK_PACKAGE_VENDOR "torchdex")
set(CPACK_PACKAGE_CONTACT "torchdex maintainers <torchdex@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_GENERATOR "DEB")
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION "utils")
set(CPACK_DEBIAN_PACKAGE_PRIORITY "optional")
# The first line of the control file's Description is CPACK_PACKAGE_DESCRIPTION_SUMMARY; this
# is the extended text under it (one string: a CMake list would join its lines with ';').
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "torchdex detects the accelerator (NVIDIA driver and GPUs, AMD gfx targets,
Intel XPU, WSL2, containers, Jetson) and picks the PyTorch wheel index that fits it.
torchdex-crawl crawls the PyTorch wheel index into a catalogue; torchdex-codegen
turns curated hardware tables into C++ sources.")
# The runtime dependencies come from the linked libraries (dpkg-shlibdeps, in dpkg-dev); where
# that tool is missing, this list (Debian 12's packages) is declared instead.
# libcurl and libxml2 are loaded with dlopen (index/lazy_libs.h), so no tool sees them: they
# are always declared.
find_program(TORCHDEX_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(TORCHDEX_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "libcurl4 (>= 7.85), libxml2")
else()
  set(CPACK_DEBIAN_PACKAGE_DEPENDS
      "libc6 (>= 2.36), libstdc++6 (>= 12), libgcc-s1, libcurl4 (>= 7.85), libxml2, \
libsqlite3-0, libboost-program-options1.74.0")
endif()
include(CPack)

add_custom_target(deb
  COMMAND "${CMAKE_CPACK_COMMAND}" -G DEB --config "${PROJECT_BINARY_DIR}/CPackConfig.cmake"
  WORKING_DIRECTORY "${PROJECT_BINARY_DIR}"
  DEPENDS torchdex torchdex-crawl torchdex-codegen
  COMMENT "cpack: the torchdex .deb"
  VERBATIM)

# The package test: cpack into a scratch folder, `dpkg -x` the .deb into a scratch root and run
# the programs from there (tests/package/deb_test.sh).
find_program(TORCHDEX_DPKG_DEB dpkg-deb)
if(TORCHDEX_BUILD_TESTS AND TORCHDEX_DPKG_DEB)
  add_test(NAME package.deb_installs_and_runs
           COMMAND "${PROJECT_SOURCE_DIR}/tests/package/deb_test.sh"
                   "${CMAKE_CPACK_COMMAND}" "${PROJECT_BINARY_DIR}/CPackConfig.cmake")
  set_tests_properties(package.deb_installs_and_runs PROPERTIES TIMEOUT 120 LABELS package)
endif()

# The wheel test: the wheel of scripts/wheel (build/wheel/dist) installed with pip, pipx and uv
# from the tools venv, its answers compared with this build's (tests/package/wheel_test.sh).
# Skipped when no wheel was built; scripts/test builds one first and makes it required. Not in
# sanitizer builds: the release build is the one to compare with.
if(TORCHDEX_BUILD_TESTS AND NOT TORCHDEX_SANITIZE)
  set(TORCHDEX_WHEEL_DIR "${PROJECT_SOURCE_DIR}/build/wheel/dist" CACHE PATH
      "Where scripts/wheel puts the wheel that package.wheel_installs_and_runs tests")
  add_test(NAME package.wheel_installs_and_runs
           COMMAND "${PROJECT_SOURCE_DIR}/tests/package/wheel_test.sh" "${TORCHDEX_WHEEL_DIR}"
                   "${PROJECT_BINARY_DIR}" "${TORCHDEX_TOOLS_PYTHON}")
  set_tests_properties(package.wheel_installs_and_runs PROPERTIES
                       TIMEOUT 300 LABELS package SKIP_RETURN_CODE 77)
endif()
