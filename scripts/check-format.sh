#!/usr/bin/env bash
# check-format.sh - checks that the C and C++ lines changed since the format
# base (scripts/format-base) are formatted as their tree's .clang-format
# says (the root one: the runtime's style; compiler/.clang-format: LLVM's),
# with clang-format-22. Lines nobody touched are left alone, so the check
# never asks for a sweeping reformat. Prints the diff that would fix them and
# exits 1 when some are not.
#
#   ./scripts/check-format.sh          against scripts/format-base
#   ./scripts/check-format.sh COMMIT   against another commit
#
# Fix: git clang-format-22 --binary clang-format-22 "$(tail -1 scripts/format-base)"
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
base="${1:-$(grep -v '^#' scripts/format-base | head -1)}"

if ! git rev-parse --git-dir >/dev/null 2>&1; then
  echo "check-format: not a git checkout; skipped"
  exit 0
fi
for tool in clang-format-22 git-clang-format-22; do
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

out="$(git clang-format-22 --binary "$(command -v clang-format-22)" --diff \
  --extensions c,cpp,h,hpp "$base" 2>&1)" || true
case "$out" in
  "" | *"no modified files to format"* | *"did not modify any files"*)
    echo "check-format: the lines changed since ${base:0:12} are formatted"
    exit 0
    ;;
esac
echo "$out"
echo "check-format: the lines above, changed since ${base:0:12}, are not" \
  "formatted (fix: git clang-format-22 --binary clang-format-22 ${base:0:12})" >&2
exit 1
