# What a C user's build finds after `cmake --install`: minigraf.pc for
# pkg-config, and a CMake package config for find_package(minigraf CONFIG)
# giving minigraf::minigraf (shared) and minigraf::minigraf_static.
include(CMakePackageConfigHelpers)

# pkg-config: the prefix is found from where minigraf.pc lies (pcfiledir),
# so the file stays right whatever --prefix is given at install time and
# when the C tarball is unpacked anywhere.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(MINIGRAF_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
  file(RELATIVE_PATH MINIGRAF_PC_UP "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
  set(MINIGRAF_PC_PREFIX "\${pcfiledir}/${MINIGRAF_PC_UP}")
endif()
foreach(dir LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${dir}}")
    set(MINIGRAF_PC_${dir} "${CMAKE_INSTALL_${dir}}")
  else()
    set(MINIGRAF_PC_${dir} "\${prefix}/${CMAKE_INSTALL_${dir}}")
  endif()
endforeach()
configure_file(${CMAKE_CURRENT_LIST_DIR}/minigraf.pc.in ${CMAKE_CURRENT_BINARY_DIR}/minigraf.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/minigraf.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

set(MINIGRAF_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/minigraf)
install(EXPORT minigrafTargets NAMESPACE minigraf:: DESTINATION ${MINIGRAF_CMAKE_DIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/minigrafConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/minigrafConfig.cmake
  INSTALL_DESTINATION ${MINIGRAF_CMAKE_DIR}
  PATH_VARS CMAKE_INSTALL_LIBDIR CMAKE_INSTALL_INCLUDEDIR)
# The ABI only grows (scripts/abi-check.sh): any release at least as new
# as the one asked for, within the same major version, will do.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/minigrafConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/minigrafConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/minigrafConfigVersion.cmake
        DESTINATION ${MINIGRAF_CMAKE_DIR})
