# clprof_add_may_skip_entries(PREFIX BINARY TRIPLES...): the doctest cases that may skip (a
# sanitizer build, no PoCL, not root, ...) get ctest entries of their own, PREFIX.<group>.<part>,
# one per reason, so that a skip (exit 77, skip.hpp) shows on that entry alone and the group's
# entry, which runs the rest, passes. TRIPLES: group, part and the cases ('|' between cases;
# a ',' in a name is written as is: doctest splits its filters at commas, so it becomes '?',
# which matches any one character). Sets, in the caller's scope, PREFIX_entries (the entries
# added) and, per group, clprof_may_skip_<PREFIX>_<group> (the group's cases as a doctest filter, for
# its entry's --test-case-exclude).
function(clprof_add_may_skip_entries prefix binary)
  set(triples ${ARGN})
  list(LENGTH triples n)
  math(EXPR last "${n} - 1")
  set(entries "")
  set(groups "")
  foreach(i RANGE 0 ${last} 3)
    math(EXPR j "${i} + 1")
    math(EXPR k "${i} + 2")
    list(GET triples ${i} group)
    list(GET triples ${j} part)
    list(GET triples ${k} cases)
    string(REPLACE "," "?" cases "${cases}")
    string(REPLACE "|" "," cases "${cases}")
    add_test(NAME ${prefix}.${group}.${part} COMMAND ${binary} "--test-case=${cases}")
    # doctest exits 0 when a filter matches nothing; that must not pass.
    set_tests_properties(${prefix}.${group}.${part} PROPERTIES
      FAIL_REGULAR_EXPRESSION "test cases: +0 [|]")
    list(APPEND entries ${prefix}.${group}.${part})
    list(APPEND groups ${group})
    list(APPEND skip_${group} "${cases}")
  endforeach()
  list(REMOVE_DUPLICATES groups)
  foreach(group IN LISTS groups)
    string(JOIN "," filter ${skip_${group}})
    set(clprof_may_skip_${prefix}_${group} "${filter}" PARENT_SCOPE)
  endforeach()
  set(${prefix}_entries ${entries} PARENT_SCOPE)
endfunction()
