# Debian packages with CPack's DEB generator, one per install component
# (docs/packaging.md):
#   lib    -> libdtaN     the shared library, N its SONAME's number
#                         (lib/CMakeLists.txt: SOVERSION, the major
#                         version: libdta.so.0, libdta0 today)
#   dev    -> libdta-dev  headers, libdta.so, libdta.a, libdta.pc, dtaConfig
#   tools  -> dta-tools   the programs, man pages, systemd unit, example
#   export -> dta-export  dta-export and its unit (docs/export.md), when
#                         the build has the exporter (libcurl)
#   wireshark -> dta-wireshark  the Lua dissector (docs/wireshark.md)
#   python -> python3-dta the Python package dta (docs/python.md), when
#                         the build has one (python3-dev, python3-numpy)
# Every install() rule names one of these components; a rule without one
# lands in "Unspecified" and the pkg test (tests/pkg/) fails on the extra
# package. Build them from a Release build installed to /usr:
#   cmake -S . -B build-deb -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr
#   cmake --build build-deb && (cd build-deb && cpack -G DEB)

set(DTA_DEB_MAINTAINER
    "libdta maintainers <maintainers@users.noreply.a-seed-6bf8a668.example>"
    CACHE STRING "Maintainer field of the Debian packages")
# Debian names a shared library's package after its SONAME.
set(DTA_DEB_LIB libdta${PROJECT_VERSION_MAJOR})
# Native packages (built from this tree, no upstream tarball): no Debian
# revision, and the changelog is changelog.gz.
set(DTA_DEB_VERSION ${PROJECT_VERSION})

# The changelog's date: the last commit's (so one commit gives one
# package), else now.
set(DTA_DEB_DATE)
find_package(Git QUIET)
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} log -1 --format=%aD
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR} OUTPUT_VARIABLE DTA_DEB_DATE
    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
endif()
if(NOT DTA_DEB_DATE)
  string(TIMESTAMP DTA_DEB_DATE "%a, %d %b %Y %H:%M:%S +0000" UTC)
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/debian/changelog.in
               ${CMAKE_BINARY_DIR}/debian/changelog @ONLY)
find_program(GZIP gzip REQUIRED)
add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/debian/changelog.gz
  COMMAND sh -c "'${GZIP}' -9n -c '${CMAKE_BINARY_DIR}/debian/changelog' > '${CMAKE_BINARY_DIR}/debian/changelog.gz'"
  DEPENDS ${CMAKE_BINARY_DIR}/debian/changelog VERBATIM)
add_custom_target(deb_changelog ALL DEPENDS ${CMAKE_BINARY_DIR}/debian/changelog.gz)

# Debian policy: /usr/share/doc/PACKAGE/{copyright,changelog.gz} in every
# package. Only in component installs (CPack's), not in a plain
# `cmake --install`.
set(DTA_DEB_COMPONENTS lib:${DTA_DEB_LIB} dev:libdta-dev tools:dta-tools
    wireshark:dta-wireshark)
if(TARGET dta-export)
  list(APPEND DTA_DEB_COMPONENTS export:dta-export)
endif()
if(DTA_HAVE_PYTHON)
  list(APPEND DTA_DEB_COMPONENTS python:python3-dta)
endif()
foreach(pair ${DTA_DEB_COMPONENTS})
  string(REPLACE ":" ";" pair ${pair})
  list(GET pair 0 comp)
  list(GET pair 1 pkg)
  install(FILES ${CMAKE_CURRENT_LIST_DIR}/debian/copyright
                ${CMAKE_BINARY_DIR}/debian/changelog.gz
          DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/${pkg}
          COMPONENT ${comp} EXCLUDE_FROM_ALL)
endforeach()
# The documents --help and the man pages name as docs/NAME.md, as
# DATADIR/doc/dta-tools/NAME.md (they link to each other by bare name,
# which still works there).
file(GLOB DTA_DOCS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/docs/*.md)
install(FILES ${DTA_DOCS} DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/dta-tools
        COMPONENT tools)
# The example configuration, for /etc/dta/dta.conf (dta.conf(5)).
install(FILES ${PROJECT_SOURCE_DIR}/examples/dta.conf
        DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/dta-tools/examples
        COMPONENT tools)
# ... and installed there by dta-tools, where the units read it
# (SYSCONFDIR/dta/dta.conf, dist/systemd), as a conffile: dpkg keeps the
# operator's edits on upgrade and removes it on purge. Only in component
# installs (CPack's): a plain `cmake --install` does not overwrite a
# configuration already there.
set(DTA_DEB_CONF ${CMAKE_INSTALL_FULL_SYSCONFDIR}/dta/dta.conf)
install(FILES ${PROJECT_SOURCE_DIR}/examples/dta.conf
        DESTINATION ${CMAKE_INSTALL_FULL_SYSCONFDIR}/dta
        PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ
        COMPONENT tools EXCLUDE_FROM_ALL)
file(WRITE ${CMAKE_BINARY_DIR}/debian/tools/conffiles "${DTA_DEB_CONF}\n")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME libdta)
set(CPACK_PACKAGE_VERSION ${DTA_DEB_VERSION})
set(CPACK_PACKAGE_CONTACT ${DTA_DEB_MAINTAINER})
set(CPACK_DEBIAN_PACKAGE_MAINTAINER ${DTA_DEB_MAINTAINER})
set(CPACK_PACKAGING_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_STRIP_FILES ON)
set(CPACK_PRE_BUILD_SCRIPTS ${CMAKE_CURRENT_LIST_DIR}/debian/strip.cmake)
set(CPACK_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS
    OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
    WORLD_READ WORLD_EXECUTE)
# Depends: from dpkg-shlibdeps; the library's package gets a shlibs file (and the
# ldconfig trigger) so that others' dpkg-shlibdeps find it.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)

set(CPACK_DEBIAN_LIB_PACKAGE_NAME ${DTA_DEB_LIB})
set(CPACK_DEBIAN_LIB_PACKAGE_SECTION libs)
# The ldconfig trigger (lintian: lacks-ldconfig-trigger). CPack also
# writes postinst/postrm calling ldconfig for any library under /usr/lib
# and cannot be told not to (docs/packaging.md, lintian warnings).
set(CPACK_DEBIAN_LIB_PACKAGE_CONTROL_EXTRA ${CMAKE_CURRENT_LIST_DIR}/debian/triggers)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_COMPONENT_LIB_DESCRIPTION
"Direct Telemetry Access library
libdta implements Direct Telemetry Access (DTA, SIGCOMM 2023): switches
send telemetry reports to a translator that turns them into memory writes
into queryable structures in a collector's memory. The library has the
wire format, INT telemetry report decoders, the four memory layouts
(Key-Write, Postcarding, Append, Key-Increment) with their writers and
queries, the translator core and the configuration parser.
.
This package contains the shared library.")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME libdta-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_COMPONENT_DEV_DEPENDS lib)
# libdta.pc and dtaConfig.cmake ask pkg-config for libxxhash, jansson and
# gnutls.
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS
    "libxxhash-dev, libjansson-dev, libgnutls28-dev, pkgconf | pkg-config")
set(CPACK_COMPONENT_DEV_DESCRIPTION
"Direct Telemetry Access library (development files)
libdta implements Direct Telemetry Access (DTA, SIGCOMM 2023): telemetry
reports written straight into queryable structures in a collector's
memory.
.
This package contains the headers, the static library, the pkg-config
file (libdta) and the CMake package (find_package(dta)).")

# Maintainer scripts: made by debhelper (dh_installsysusers,
# dh_installsystemd, dh_installdeb) from the units and our postrm
# templates, by scripts/deb-maintscripts.sh, here at configure time
# (docs/packaging.md "Maintainer scripts"). Without debhelper there are
# none, and building the packages stops (scripts/build-debs.sh says why).
set(DTA_DEB_MAINT ${CMAKE_BINARY_DIR}/debian/maint)
set(DTA_DEB_MAINT_ARGS
    dta-tools:dta-collector.service,dta-translator.service)
if(TARGET dta-export)
  list(APPEND DTA_DEB_MAINT_ARGS dta-export:dta-export.service)
endif()
find_program(DTA_DH_INSTALLDEB dh_installdeb)
if(DTA_DH_INSTALLDEB)
  execute_process(COMMAND sh ${PROJECT_SOURCE_DIR}/scripts/deb-maintscripts.sh
      ${PROJECT_SOURCE_DIR} ${DTA_DEB_MAINT} ${DTA_DEB_MAINT_ARGS}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(WARNING "debhelper's maintainer scripts failed:\n${out}")
  endif()
else()
  message(STATUS "debhelper not found: no maintainer scripts, no packages")
endif()
# The scripts debhelper made for package PKG (postinst, prerm, postrm; a
# preinst if it needs one), into VAR.
function(dta_deb_maint var pkg)
  set(files)
  foreach(s preinst postinst prerm postrm)
    if(EXISTS ${DTA_DEB_MAINT}/${pkg}/${s} OR NOT s STREQUAL preinst)
      list(APPEND files ${DTA_DEB_MAINT}/${pkg}/${s})
    endif()
  endforeach()
  set(${var} ${files} PARENT_SCOPE)
endfunction()
# Reconfigure when what they are made from changes.
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
  ${PROJECT_SOURCE_DIR}/scripts/deb-maintscripts.sh
  ${CMAKE_CURRENT_LIST_DIR}/debian/dta-tools.postrm
  ${CMAKE_CURRENT_LIST_DIR}/debian/dta-export.postrm
  ${PROJECT_SOURCE_DIR}/dist/systemd/dta.sysusers
  ${PROJECT_SOURCE_DIR}/dist/systemd/dta-collector.service.in
  ${PROJECT_SOURCE_DIR}/dist/systemd/dta-translator.service.in
  ${PROJECT_SOURCE_DIR}/dist/systemd/dta-export.service.in)

set(CPACK_DEBIAN_TOOLS_PACKAGE_NAME dta-tools)
set(CPACK_DEBIAN_TOOLS_PACKAGE_SECTION net)
# postinst, prerm, postrm: debhelper's (above); conffiles: the
# configuration in /etc. Depends: what dh_installsysusers' misc:Depends
# says systemd-sysusers comes from (shlibs are added by CPack).
dta_deb_maint(DTA_DEB_TOOLS_MAINT dta-tools)
set(CPACK_DEBIAN_TOOLS_PACKAGE_CONTROL_EXTRA ${DTA_DEB_TOOLS_MAINT}
    ${CMAKE_BINARY_DIR}/debian/tools/conffiles)
set(CPACK_DEBIAN_TOOLS_PACKAGE_DEPENDS
    "systemd | systemd-standalone-sysusers | systemd-sysusers")
set(CPACK_COMPONENT_TOOLS_DESCRIPTION
"Direct Telemetry Access collector, translator and tools
The programs of libdta: dta-collector holds DTA structures in shared
memory, registers them for RDMA translators and answers queries;
dta-translator turns DTA and INT telemetry reports arriving over UDP
into writes into them (shared memory, RDMA or RoCEv2 frames);
dta-query queries collectors and snapshots and verifies answers;
dta-gen sends the DTA paper's workloads with ground truth.
.
Includes systemd units for both daemons (the user dta is created on
installation; the units are enabled and started, on 127.0.0.1 only),
drop-ins for RDMA and raw-frame modes, and the configuration they read,
/etc/dta/dta.conf (an example to size). Purging removes it and the state
under /var/lib/dta.")

if(TARGET dta-export)
  set(CPACK_DEBIAN_EXPORT_PACKAGE_NAME dta-export)
  set(CPACK_DEBIAN_EXPORT_PACKAGE_SECTION net)
  # The configuration (/etc/dta/dta.conf) and the user are dta-tools'.
  set(CPACK_COMPONENT_EXPORT_DEPENDS tools)
  dta_deb_maint(DTA_DEB_EXPORT_MAINT dta-export)
  set(CPACK_DEBIAN_EXPORT_PACKAGE_CONTROL_EXTRA ${DTA_DEB_EXPORT_MAINT})
  set(CPACK_COMPONENT_EXPORT_DESCRIPTION
"Direct Telemetry Access exporter to ClickHouse and NATS JetStream
dta-export drains Append lists and INT events from DTA collectors
continuously into ClickHouse (batched HTTP inserts, a MergeTree table per
structure and a Distributed table over shards) and NATS JetStream
subjects, keeping its cursors across restarts under /var/lib/dta/export.
.
Its systemd unit runs it once /etc/dta/dta.conf has an [export] section.")
endif()

set(CPACK_DEBIAN_WIRESHARK_PACKAGE_NAME dta-wireshark)
set(CPACK_DEBIAN_WIRESHARK_PACKAGE_SECTION net)
# Architecture: the host's, as the plugin folder is the multiarch one
# (lintian: triplet-dir-and-architecture-mismatch for all).
# Wireshark's Lua engine comes with libwireshark, which wireshark and
# tshark both pull in through wireshark-common.
set(CPACK_DEBIAN_WIRESHARK_PACKAGE_DEPENDS "wireshark-common")
set(CPACK_DEBIAN_WIRESHARK_PACKAGE_ENHANCES "wireshark, tshark")
set(CPACK_COMPONENT_WIRESHARK_DESCRIPTION
"Wireshark dissector for DTA and INT telemetry reports
A Lua plugin for Wireshark and tshark that decodes Direct Telemetry
Access reports (v1 and the research prototype's headers, UDP 40040) and
INT telemetry reports v0.5, v1.0 and v2.0 with the INT-MD stack of the
inner packet (UDP 32766), with expert info for malformed reports.")

if(DTA_HAVE_PYTHON)
  set(CPACK_DEBIAN_PYTHON_PACKAGE_NAME python3-dta)
  set(CPACK_DEBIAN_PYTHON_PACKAGE_SECTION python)
  # The extension is built for one Python version (its ABI tag names
  # it); libc6, libjansson4, libxxhash0, libgnutls30 come from
  # dpkg-shlibdeps (libdta is linked in statically).
  math(EXPR DTA_PY_NEXT "${Python3_VERSION_MINOR} + 1")
  set(CPACK_DEBIAN_PYTHON_PACKAGE_DEPENDS
      "python3 (>= ${Python3_VERSION_MAJOR}.${Python3_VERSION_MINOR}~), python3 (<< ${Python3_VERSION_MAJOR}.${DTA_PY_NEXT}), python3-numpy")
  set(CPACK_DEBIAN_PYTHON_PACKAGE_SUGGESTS "python3-pandas, dta-tools")
  set(CPACK_COMPONENT_PYTHON_DESCRIPTION
"Direct Telemetry Access client for Python
The Python package dta: queries DTA collectors (their sockets, a local
read-only mapping of their memory, snapshot files) through libdta's query
client, with answers as numpy arrays whose structured dtypes come from the
structures' value schemas: Key-Write, Postcarding and Key-Increment gets of
key batches, Append lists followed as iterators of arrays.")
endif()

include(CPack)
