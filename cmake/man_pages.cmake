# Makes OUT/flowbench.1 and OUT/flowbench-COMMAND.1 for every command the
# built binary lists in its --help, with help2man from each one's --help,
# so the pages are the help the binary prints. Pages of commands that are
# gone are removed.
# Run as: cmake -DFLOWBENCH=build/flowbench -DHELP2MAN=/usr/bin/help2man -DOUT=build/man -P this
execute_process(COMMAND ${FLOWBENCH} --help OUTPUT_VARIABLE help RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${FLOWBENCH} --help exited ${rc}: no man pages")
endif()
execute_process(COMMAND ${FLOWBENCH} --version OUTPUT_VARIABLE version OUTPUT_STRIP_TRAILING_WHITESPACE)
string(REGEX REPLACE "^flowbench " "" version "${version}")
# the command table: "  NAME       summary" lines after "commands:"
string(REGEX REPLACE "^.*\ncommands:\n" "" table "${help}")
string(REGEX REPLACE "\n\n.*$" "" table "${table}")
string(REPLACE ";" "<semicolon>" table "${table}") # a summary may hold one; a list may not
string(REPLACE "\n" ";" table "${table}")
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
set(see_also "")
foreach(line IN LISTS table)
  if(NOT line MATCHES "^  ([a-z][a-z-]*) +(.*)$")
    message(FATAL_ERROR "flowbench --help: not a command line: '${line}'")
  endif()
  set(cmd ${CMAKE_MATCH_1})
  string(REPLACE "<semicolon>" ";" summary "${CMAKE_MATCH_2}")
  file(WRITE ${OUT}/flowbench-${cmd}.h2m "[SEE ALSO]\n.BR flowbench (1)\n")
  execute_process(COMMAND ${HELP2MAN} --no-info --no-discard-stderr "--help-option=${cmd} --help"
                          "--version-string=flowbench-${cmd} ${version}" "--name=${summary}"
                          --include=${OUT}/flowbench-${cmd}.h2m --output=${OUT}/flowbench-${cmd}.1 ${FLOWBENCH}
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "help2man on `flowbench ${cmd} --help` exited ${rc}")
  endif()
  file(REMOVE ${OUT}/flowbench-${cmd}.h2m)
  string(APPEND see_also ".BR flowbench-${cmd} (1),\n")
endforeach()
if(see_also STREQUAL "")
  message(FATAL_ERROR "flowbench --help lists no commands")
endif()
string(REGEX REPLACE ",\n$" "\n" see_also "${see_also}")
file(WRITE ${OUT}/flowbench.h2m "[SEE ALSO]\n${see_also}")
execute_process(COMMAND ${HELP2MAN} --no-info "--name=benchmark and autotune CFD kernels on OpenMP, OpenCL and CUDA"
                        --include=${OUT}/flowbench.h2m --output=${OUT}/flowbench.1 ${FLOWBENCH}
                RESULT_VARIABLE rc)
file(REMOVE ${OUT}/flowbench.h2m)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "help2man on `flowbench --help` exited ${rc}")
endif()
