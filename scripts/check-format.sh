#!/usr/bin/env bash
# check-format.sh - checks that the C and C++ lines changed since the format
# base (scripts/format-base) are formatted as their tree's .clang-format
# says (the root one: the runtime's style; compiler/.clang-format: LLVM's),
# with clang-format-22. Lines nobody touched are left alone, so the check
# never asks for a sweeping reformat; a file moved or renamed counts only the
# lines changed in it (git's rename detection), not all of it. Prints the
# diff that would fix them and exits 1 when some are not.
#
#   ./scripts/check-format.sh          against scripts/format-base
#   ./scripts/check-format.sh COMMIT   against another commit
#
# Fix: ./scripts/check-format.sh --fix   (formats those lines in place)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
fix=()
if [[ "${1:-}" == "--fix" ]]; then
  fix=(-i)
  shift
fi
base="${1:-$(grep -v '^#' scripts/format-base | head -1)}"

if ! git rev-parse --git-dir >/dev/null 2>&1; then
  echo "check-format: not a git checkout; skipped"
  exit 0
fi
for tool in clang-format-22 clang-format-diff-22; do
  if ! command -v "$tool" >/dev/null; then
    echo "check-format: $tool is missing (./scripts/setup.sh installs it)" >&2
    exit 1
  fi
done
if ! git cat-file -e "$base^{commit}" 2>/dev/null; then
  echo "check-format: the base commit $base is not in this clone" \
    "(fetch its history: git fetch --unshallow)" >&2
  exit 1
fi

# The working tree against the base, renames followed, zero context lines:
# clang-format-diff formats exactly the added and changed lines, each file
# with the .clang-format of its tree.
out="$(git diff -M -U0 --no-color --no-ext-diff "$base" -- \
  '*.c' '*.cpp' '*.h' '*.hpp' |
  clang-format-diff-22 -p1 -binary "$(command -v clang-format-22)" \
    "${fix[@]}" 2>&1)" || true
if [[ ${#fix[@]} -gt 0 ]]; then
  echo "check-format: formatted the lines changed since ${base:0:12}"
  exit 0
fi
if [[ -z "$out" ]]; then
  echo "check-format: the lines changed since ${base:0:12} are formatted"
  exit 0
fi
echo "$out"
echo "check-format: the lines above, changed since ${base:0:12}, are not" \
  "formatted (fix: ./scripts/check-format.sh --fix)" >&2
exit 1
