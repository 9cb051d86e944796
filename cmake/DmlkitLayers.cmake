# The architecture's layers (docs/architecture.md, "Layers"), enforced: what each module of src/
# may include and link. One table, read twice:
# - at configure time, every module target's links to other modules must be in its row
#   (dmlkit_check_layer_links, called after the modules are defined);
# - by the test `layers.includes` (scripts/check-layers.py), every `#include "<module>/..."` in
#   src/<module>/ and tests/<module>/ must name the module itself or one of its row.
# A new arrow is a deliberate change: add it here and to docs/architecture.md.
set(DMLKIT_LAYER_core "")
set(DMLKIT_LAYER_learn core)
set(DMLKIT_LAYER_cluster core learn)
set(DMLKIT_LAYER_comm core)
set(DMLKIT_LAYER_ps core comm)
set(DMLKIT_LAYER_gnn core comm)
set(DMLKIT_LAYER_influence core)
set(DMLKIT_LAYER_continual core learn)
set(DMLKIT_LAYER_football core learn)
set(DMLKIT_LAYER_slurm core)
set(DMLKIT_LAYER_live core learn cluster slurm)
set(DMLKIT_LAYER_sweep core slurm)
# What a module's tests may use beyond the module's row: the Slurm lab tests (tests/live) also run
# sweeps' job arrays on the lab (sweep_slurm_test.cpp), so test_live links sweep too.
set(DMLKIT_TEST_LAYER_live sweep)

# Fails the configuration when a module target links a module its row does not allow (directly,
# as PUBLIC, PRIVATE or INTERFACE). Run once every module target exists.
function(dmlkit_check_layer_links)
  foreach(module ${ARGN})
    if(NOT DEFINED DMLKIT_LAYER_${module})
      message(FATAL_ERROR "dmlkit: module ${module} has no row in cmake/DmlkitLayers.cmake")
    endif()
    set(target ${module})
    if(module STREQUAL "learn")
      set(target learn_base)
    endif()
    get_target_property(links ${target} LINK_LIBRARIES)
    get_target_property(ilinks ${target} INTERFACE_LINK_LIBRARIES)
    foreach(link ${links} ${ilinks})
      string(REGEX REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1" link "${link}")
      if(link STREQUAL "learn_base")
        set(link learn)
      endif()
      list(FIND ARGN "${link}" is_module)
      if(is_module GREATER -1)
        list(FIND DMLKIT_LAYER_${module} "${link}" allowed)
        if(allowed EQUAL -1)
          message(FATAL_ERROR "dmlkit: ${module} links ${link}, which cmake/DmlkitLayers.cmake does not allow "
                              "(${module} may use: ${DMLKIT_LAYER_${module}})")
        endif()
      endif()
    endforeach()
  endforeach()
endfunction()

# The table as a file for scripts/check-layers.py: one line per module,
# "module: dep dep ... | tests: dep ...".
function(dmlkit_write_layers file)
  set(text "")
  foreach(module ${ARGN})
    string(REPLACE ";" " " deps "${DMLKIT_LAYER_${module}}")
    string(REPLACE ";" " " test_deps "${DMLKIT_TEST_LAYER_${module}}")
    string(APPEND text "${module}: ${deps} | tests: ${test_deps}\n")
  endforeach()
  file(WRITE ${file} "${text}")
endfunction()
