# Which language packages this build makes.
#
# Each of MINIGRAF_PYTHON, MINIGRAF_NODE and MINIGRAF_JAVA is AUTO, ON or OFF:
#   AUTO  build the package when its tools are found, else say which tool is
#         missing and skip it (a plain configure needs only a C compiler)
#   ON    build it; a missing tool is a configure error
#   OFF   never build it
# minigraf_resolve_binding() sets MINIGRAF_BUILD_<NAME> to TRUE or FALSE.

foreach(binding PYTHON NODE JAVA)
  set(MINIGRAF_${binding} AUTO CACHE STRING "Build the ${binding} package: AUTO, ON or OFF")
  set_property(CACHE MINIGRAF_${binding} PROPERTY STRINGS AUTO ON OFF)
endforeach()

# Fills MINIGRAF_MISSING (in the caller) with one line per absent tool of a
# binding, each naming what provides it.
macro(minigraf_probe_swig)
  find_package(SWIG 4.2 QUIET)
  if(NOT SWIG_FOUND)
    list(APPEND MINIGRAF_MISSING "SWIG >= 4.2 (pip install swig: Debian's 4.1 is too old)")
  endif()
endmacro()

macro(minigraf_probe_python)
  find_package(Python3 QUIET COMPONENTS Interpreter Development.Module)
  if(NOT Python3_Development.Module_FOUND)
    list(APPEND MINIGRAF_MISSING "the Python 3 headers (Debian: python3-dev)")
  endif()
  minigraf_probe_swig()
endmacro()

macro(minigraf_probe_node)
  set(MINIGRAF_NODE_API_INCLUDE ${PROJECT_SOURCE_DIR}/bindings/node/node_modules/node-api-headers/include)
  if(NOT EXISTS ${MINIGRAF_NODE_API_INCLUDE}/node_api.h)
    list(APPEND MINIGRAF_MISSING
      "the Node-API headers (npm ci --prefix ${PROJECT_SOURCE_DIR}/bindings/node)")
  endif()
endmacro()

# FindJNI needs JAVA_HOME; when neither the variable nor the environment has
# one, take the JDK that owns the javac on PATH (/usr/bin/javac is a symlink
# chain into /usr/lib/jvm/<jdk>/bin/javac).
macro(minigraf_probe_java)
  if(NOT JAVA_HOME AND NOT DEFINED ENV{JAVA_HOME})
    find_program(MINIGRAF_JAVAC javac)
    if(MINIGRAF_JAVAC)
      file(REAL_PATH "${MINIGRAF_JAVAC}" _minigraf_javac_real)
      get_filename_component(_minigraf_jdk_bin "${_minigraf_javac_real}" DIRECTORY)
      get_filename_component(_minigraf_jdk "${_minigraf_jdk_bin}" DIRECTORY)
      set(JAVA_HOME "${_minigraf_jdk}" CACHE PATH "JDK used for the JNI headers")
    endif()
  endif()
  find_package(JNI QUIET) # only JNI_INCLUDE_DIRS is used: never link libjvm
  if(NOT JNI_INCLUDE_DIRS OR NOT EXISTS "${JAVA_INCLUDE_PATH}/jni.h")
    list(APPEND MINIGRAF_MISSING "a JDK with jni.h (Debian: openjdk-17-jdk-headless)")
  endif()
  minigraf_probe_swig()
endmacro()

function(minigraf_resolve_binding binding)
  set(mode "${MINIGRAF_${binding}}")
  string(TOUPPER "${mode}" mode)
  string(TOLOWER "${binding}" name)
  set(MINIGRAF_BUILD_${binding} FALSE PARENT_SCOPE)
  if(mode MATCHES "^(OFF|NO|FALSE|0)$")
    message(STATUS "minigraf: ${name} package off (-DMINIGRAF_${binding}=OFF)")
    return()
  elseif(NOT mode MATCHES "^(AUTO|ON|YES|TRUE|1)$")
    message(FATAL_ERROR "MINIGRAF_${binding} is '${MINIGRAF_${binding}}': say AUTO, ON or OFF")
  endif()

  set(MINIGRAF_MISSING "")
  cmake_language(CALL minigraf_probe_${name})
  if(MINIGRAF_MISSING STREQUAL "")
    message(STATUS "minigraf: building the ${name} package")
    set(MINIGRAF_BUILD_${binding} TRUE PARENT_SCOPE)
    set(MINIGRAF_NODE_API_INCLUDE "${MINIGRAF_NODE_API_INCLUDE}" PARENT_SCOPE)
    return()
  endif()
  list(JOIN MINIGRAF_MISSING "\n    " missing)
  if(mode STREQUAL "AUTO")
    message(STATUS "minigraf: skipping the ${name} package; missing:\n    ${missing}")
  else()
    message(FATAL_ERROR "MINIGRAF_${binding}=${MINIGRAF_${binding}} but the ${name} package needs:\n    ${missing}\n"
                        "Install them, or configure with -DMINIGRAF_${binding}=AUTO or OFF.")
  endif()
endfunction()
