// The width a table should fit: $COLUMNS when it is set to a positive number, else the
// terminal's width when the output goes to one, else no limit (a file or a pipe gets
// every character).
#pragma once

#include <cstddef>

namespace clprof::output {

// `to_terminal_fd`: the descriptor the table is written to (-1: a file).
size_t table_width(int to_terminal_fd);

}  // namespace clprof::output
