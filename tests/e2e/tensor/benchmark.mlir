// strata-benchmark times repeated calls: text and JSON output (checked:
// the function, device, the number of times, order statistics), a trace,
// and its errors.
// RUN: strata-compile %s -o %t.vmfb
// RUN: strata-benchmark --module=%t.vmfb --function=scale --input="64x64xf32=1" --input=f32=3 --repetitions=7 | FileCheck %s --check-prefix=TEXT
// TEXT: module.scale on local-task: 7 calls after 2 warm-up
// TEXT-NEXT: min {{[0-9.]+}} ms  median {{[0-9.]+}} ms  p90 {{[0-9.]+}} ms  p99 {{[0-9.]+}} ms  mean {{[0-9.]+}} ms
// RUN: strata-benchmark --module=%t.vmfb --function=scale --input="64x64xf32=1" --input=f32=3 --repetitions=25 --warmup=0 --format=json --device=local-sync | python3 %S/Inputs/check_benchmark.py module.scale local-sync 25
// RUN: strata-benchmark --module=%t.vmfb --function=scale --input="64x64xf32=1" --input=f32=3 --repetitions=3 --task_workers=2 --format=json --trace=%t.json | python3 %S/Inputs/check_benchmark.py module.scale local-task 3
// RUN: python3 -c "import json,sys; e=[x for x in json.load(open(sys.argv[1]))['traceEvents'] if x.get('cat')=='invocation']; sys.exit(0 if len(e)==5 else 1)" %t.json
//
// RUN: not strata-benchmark --module=%t.vmfb --function=scale --input="64x64xf32=1" 2>&1 | FileCheck %s --check-prefix=COUNT
// COUNT: module.scale takes 2 arguments, got 1 --input flags
// RUN: not strata-benchmark --module=%t.vmfb --function=nope 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: nope
// RUN: not strata-benchmark --module=%t.vmfb --repetitions=0 2>&1 | FileCheck %s --check-prefix=FLAG
// FLAG: --repetitions needs a whole number from 1 to
// RUN: not strata-benchmark --module=%t.vmfb --function=scale --input="64x64xf32=1" --input="2xf32=1" 2>&1 | FileCheck %s --check-prefix=SCALAR
// SCALAR: --input #2 ('2xf32=1'): a scalar is expected here, not a 2xf32 tensor

func.func @scale(%a: tensor<64x64xf32>, %s: f32) -> tensor<64x64xf32> {
  %e = tensor.empty() : tensor<64x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) {
    ^bb0(%x: f32, %o: f32):
      %y = arith.mulf %x, %s : f32
      linalg.yield %y : f32
  } -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}
