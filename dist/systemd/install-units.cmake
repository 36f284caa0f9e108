# Run by `cmake --install` (dist/systemd/CMakeLists.txt): writes the units
# with the prefix given at install time, which may differ from the one
# configured (cmake --install --prefix, CPack's packaging prefix), so that
# ExecStart= always names the programs where this same install puts them.
# In: DTA_UNIT_SRC, DTA_UNIT_TMP, DTA_BINDIR_REL, DTA_SYSCONFDIR_REL,
# DTA_UNITDIR, DTA_UNITS (the units to write), and CMAKE_INSTALL_PREFIX
# (the install's).
foreach(v BINDIR SYSCONFDIR)
  set(rel "${DTA_${v}_REL}")
  if(IS_ABSOLUTE "${rel}")
    set(full "${rel}")
  elseif(v STREQUAL "SYSCONFDIR" AND CMAKE_INSTALL_PREFIX STREQUAL "/usr")
    set(full "/${rel}") # GNUInstallDirs: /usr -> /etc
  elseif(v STREQUAL "SYSCONFDIR" AND CMAKE_INSTALL_PREFIX MATCHES "^/opt/(.*)")
    set(full "/${rel}/opt/${CMAKE_MATCH_1}") # /opt/P -> /etc/opt/P
  else()
    set(full "${CMAKE_INSTALL_PREFIX}/${rel}")
  endif()
  set(DTA_${v}_FULL "${full}")
endforeach()
set(DTA_BINDIR "${DTA_BINDIR_FULL}")
set(DTA_CONF "${DTA_SYSCONFDIR_FULL}/dta/dta.conf")
if(IS_ABSOLUTE "${DTA_UNITDIR}")
  set(dest "${DTA_UNITDIR}")
else()
  set(dest "${CMAKE_INSTALL_PREFIX}/${DTA_UNITDIR}")
endif()
foreach(unit ${DTA_UNITS})
  configure_file("${DTA_UNIT_SRC}/${unit}.in" "${DTA_UNIT_TMP}/${unit}" @ONLY)
  file(INSTALL "${DTA_UNIT_TMP}/${unit}" DESTINATION "${dest}"
       PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
endforeach()
