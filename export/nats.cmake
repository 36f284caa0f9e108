# dta-export's NATS JetStream sink (export/sink_nats.c, docs/export.md):
# built only when the C client libnats is found (Debian: libnats-dev).
# Defines DTA_HAVE_NATS and the static library dta_export_nats; the
# exporter links it and lists export_sink_nats when DTA_HAVE_NATS is ON.
option(DTA_NATS "Build dta-export's NATS JetStream sink (needs libnats)" ON)
set(DTA_NATS_LIB "")
if(DTA_NATS)
  pkg_check_modules(NATS IMPORTED_TARGET libnats)
endif()
if(DTA_NATS AND NATS_FOUND)
  set(DTA_NATS_LIB PkgConfig::NATS)
elseif(DTA_NATS)
  find_library(DTA_NATS_LIBRARY nats)
  find_path(DTA_NATS_INCLUDE nats/nats.h)
  if(DTA_NATS_LIBRARY AND DTA_NATS_INCLUDE)
    add_library(dta_nats_client UNKNOWN IMPORTED)
    set_target_properties(dta_nats_client PROPERTIES
      IMPORTED_LOCATION ${DTA_NATS_LIBRARY}
      INTERFACE_INCLUDE_DIRECTORIES ${DTA_NATS_INCLUDE})
    set(DTA_NATS_LIB dta_nats_client)
  endif()
endif()
if(DTA_NATS_LIB)
  set(DTA_HAVE_NATS ON)
  add_library(dta_export_nats STATIC ${CMAKE_CURRENT_LIST_DIR}/sink_nats.c)
  target_include_directories(dta_export_nats PUBLIC ${CMAKE_CURRENT_LIST_DIR})
  target_compile_definitions(dta_export_nats PUBLIC DTA_HAVE_NATS)
  target_link_libraries(dta_export_nats PUBLIC dta_static dta_tools ${DTA_NATS_LIB}
                        Threads::Threads)
else()
  set(DTA_HAVE_NATS OFF)
  message(STATUS "libnats not found (apt-get install libnats-dev) or "
                 "DTA_NATS=OFF: dta-export without its NATS JetStream sink")
endif()
