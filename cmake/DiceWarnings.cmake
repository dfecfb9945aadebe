# SPDX-License-Identifier: GPL-3.0-or-later
# Warning flags for the project's own targets. Third-party headers (LibTorch, Qt, QScintilla)
# come in as system include directories, so their warnings do not fail the build.
function(dice_set_warnings target)
    target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow=local
        -Wnon-virtual-dtor -Wcast-align -Wunused -Woverloaded-virtual -Wformat=2
        -Wimplicit-fallthrough)
    if(DICE_WERROR)
        target_compile_options(${target} PRIVATE -Werror)
    endif()
endfunction()
