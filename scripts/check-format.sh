#!/usr/bin/env bash
# Every C and C++ source of the tree is formatted as .clang-format says (Google style, 100
# columns), by Debian 12's clang-format (14). ctest runs the check (style.clang_format).
#   bash scripts/check-format.sh         # lists what differs, exit 1 if anything does
#   bash scripts/check-format.sh --fix   # formats those files in place
set -euo pipefail
cd "$(dirname "$0")/.."
mode=(--dry-run --Werror)
[ "${1:-}" = "--fix" ] && mode=(-i)
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files '*.c' '*.cpp' '*.h' '*.hpp')
else  # a tree without its git history (a tarball)
  mapfile -t files < <(find analyzer shim include tests bench examples \
    \( -name '*.c' -o -name '*.cpp' -o -name '*.h' -o -name '*.hpp' \) -print)
fi
clang-format "${mode[@]}" "${files[@]}"
