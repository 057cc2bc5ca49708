#!/usr/bin/env bash
# run_sample.sh - the ONNX sample end to end: export squeezenet1_1 from
# torchvision (random weights, offline), compile it with strata-compile,
# run it on an image-shaped input with strata-run and print the top 5.
#
#   samples/onnx/run_sample.sh [BUILD_DIR] [WORK_DIR]
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="$(cd "${1:-$root/build}" && pwd)"
work="${2:-$(mktemp -d)}"
mkdir -p "$work"
python=/usr/bin/python3

echo "== export squeezenet1_1 to ONNX (opset 17)"
"$python" "$root/tests/models/make_models.py" --models squeezenet1_1 \
  --out "$work" 2>&1 | grep -v -i warning
echo "== compile"
"$build/compiler/tools/strata-compile/strata-compile" \
  "$work/squeezenet1_1.onnx" -o "$work/squeezenet1_1.vmfb"
ls -l "$work/squeezenet1_1.vmfb"
echo "== run on an image-shaped input"
"$python" "$here/top5.py" image "$work/image.npy"
"$build/tools/strata-run/strata-run" --module="$work/squeezenet1_1.vmfb" \
  --input=@"$work/image.npy" --output=@"$work/logits.npy"
echo "== top 5 classes"
"$python" "$here/top5.py" top5 "$work/logits.npy"
