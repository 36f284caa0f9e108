# CPack pre-build script (CPACK_PRE_BUILD_SCRIPTS): what dh_strip does
# beyond CPack's plain strip. Drops the .comment and .note sections from
# the programs and the shared library (lintian: binary-has-unneeded-
# section) and the debug information from the static library (lintian:
# unstripped-static-library), in the staged files about to be packaged.
find_program(DTA_STRIP NAMES strip REQUIRED)
file(GLOB_RECURSE staged LIST_DIRECTORIES false
     "${CPACK_TEMPORARY_DIRECTORY}/*")
foreach(f IN LISTS staged)
  if(IS_SYMLINK "${f}")
    continue()
  endif()
  if(f MATCHES "\\.a$")
    execute_process(COMMAND ${DTA_STRIP} --strip-debug
      --remove-section=.comment --remove-section=.note
      --enable-deterministic-archives "${f}" RESULT_VARIABLE rc)
  elseif(f MATCHES "/bin/[^/]+$" OR f MATCHES "\\.so(\\.[0-9]+)*$")
    execute_process(COMMAND ${DTA_STRIP} --remove-section=.comment
      --remove-section=.note "${f}" RESULT_VARIABLE rc)
  else()
    continue()
  endif()
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "strip ${f} failed")
  endif()
endforeach()
