#!/usr/bin/python3
"""layers_test.py - bench/models/layers.py's pairing on small synthetic
input (no model, no ONNX Runtime, no build): the compiler's locations read
per dispatch site, worker shares joined into one dispatch, ONNX Runtime's
profile and fused node names, rows by names, by shape and unpaired, the
losses, the report, the errors, and --help. Prints one line per case and
`N passed, N failed`."""

import io
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import layers  # noqa: E402

# A flow-phase module as strata-compile --mlir-print-debuginfo prints it:
# aliases, two sites, bodies whose shared ops (tensor.empty, the fill, the
# constant) carry locations of unrelated nodes, and block arguments that
# name the producers of the inputs.
FLOW = '''#loc = loc("m.onnx":0:0)
#loc1 = loc("conv1"(#loc))
#loc2 = loc("add1"(#loc))
#loc3 = loc("relu1"(#loc))
#loc4 = loc("pool1"(#loc))
#loc5 = loc(fused[#loc2, "w_init"(#loc)])
module {
  flow.executable private @mod {
    builtin.module {
      func.func @main_dispatch_0_conv_3x3_8x16_4x4_bias_add_relu_f32(%arg0: tensor<1x6x6x8xf32> loc("pool1"(#loc))) -> tensor<1x4x4x16xf32> {
        %cst = arith.constant 0.000000e+00 : f32 loc(#loc4)
        %0 = tensor.empty() : tensor<1x4x4x16xf32> loc(#loc4)
        %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32> loc(#loc4)
        %2 = linalg.conv_2d_nhwc_hwcf ins(%arg0, %w : tensor<1x6x6x8xf32>, tensor<3x3x8x16xf32>) outs(%1 : tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32> loc(#loc1)
        %3 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} ins(%2 : tensor<1x4x4x16xf32>) outs(%0 : tensor<1x4x4x16xf32>) {
        ^bb0(%in: f32 loc("pool1"(#loc)), %out: f32 loc("pool1"(#loc))):
          %4 = arith.addf %in, %in : f32 loc(#loc5)
          %5 = arith.maximumf %4, %cst : f32 loc(#loc3)
          linalg.yield %5 : f32 loc(#loc3)
        } -> tensor<1x4x4x16xf32> loc(#loc3)
        return %3 : tensor<1x4x4x16xf32> loc(#loc3)
      } loc(#loc3)
      func.func @main_dispatch_1_maxpool_2x2_s2_16_2x2_f32(%arg0: tensor<1x4x4x16xf32> loc("relu1"(#loc))) -> tensor<1x2x2x16xf32> {
        %0 = tensor.empty() : tensor<1x2x2x16xf32> loc(#loc1)
        %1 = linalg.pooling_nhwc_max ins(%arg0, %k : tensor<1x4x4x16xf32>, tensor<2x2xf32>) outs(%0 : tensor<1x2x2x16xf32>) -> tensor<1x2x2x16xf32> loc(#loc4)
        return %1 : tensor<1x2x2x16xf32> loc(#loc4)
      } loc(#loc4)
    } loc(#loc)
  } loc(#loc)
  func.func @main(%arg0: tensor<1x6x6x8xf32> loc("x"(#loc))) -> tensor<1x2x2x16xf32> {
    %0 = flow.dispatch @mod::@main_dispatch_0_conv_3x3_8x16_4x4_bias_add_relu_f32(%arg0) : (tensor<1x6x6x8xf32>) -> tensor<1x4x4x16xf32> loc(#loc3)
    %1 = flow.dispatch @mod::@main_dispatch_1_maxpool_2x2_s2_16_2x2_f32(%0) : (tensor<1x4x4x16xf32>) -> tensor<1x2x2x16xf32> loc(#loc4)
    return %1 : tensor<1x2x2x16xf32> loc(#loc)
  } loc(#loc)
} loc(#loc)
'''
NODES = {"conv1": ("Conv", ["x", "w_init", "b"]),
         "add1": ("Add", ["conv1_out", "x2"]),
         "relu1": ("Relu", ["add1_out"]),
         "pool1": ("MaxPool", ["relu1_out"])}
PRODUCERS = {"conv1_out": "conv1", "add1_out": "add1", "relu1_out": "relu1",
             "pool1_out": "pool1"}


class Cases:
    def __init__(self):
        self.passed = self.failed = 0

    def check(self, name, ok, detail=""):
        if ok:
            self.passed += 1
            print("ok     %s" % name)
        else:
            self.failed += 1
            print("FAILED %s %s" % (name, detail))


def expect_error(fn, text):
    try:
        fn()
    except layers.LayersError as e:
        return text in str(e), str(e)
    return False, "no error"


def event(name, ts, dur, cat="dispatch", **args):
    return {"ph": "X", "cat": cat, "name": name, "ts": ts, "dur": dur,
            "args": args}


def test_locations(c):
    sites = layers.flow_sites(FLOW, NODES)
    c.check("flow sites in program order",
            [s[0] for s in sites] == [
                "main_dispatch_0_conv_3x3_8x16_4x4_bias_add_relu_f32",
                "main_dispatch_1_maxpool_2x2_s2_16_2x2_f32"], sites)
    c.check("a fused dispatch names every compute op's node (aliases, "
            "fused locations), not shared ops or block arguments",
            sites[0][1] == {"conv1", "add1", "relu1"}, sites[0][1])
    c.check("the pool's tensor.empty (conv1's location) is ignored",
            sites[1][1] == {"pool1"}, sites[1][1])
    # The stream phase: one executable for both sites of a shared body.
    stream = ('stream.cmd.dispatch @mod::@main_dispatch_0_conv_3x3_8x16_'
              '4x4_bias_add_relu_f32 bindings(%0[%c0, %c1]) loc(#loc3)\n'
              'stream.cmd.dispatch @mod::@main_dispatch_1_maxpool_2x2_s2_'
              '16_2x2_f32 bindings(%0[%c0, %c1]) loc(#loc4)\n')
    aliases = "\n".join(FLOW.splitlines()[:6]) + "\n"
    merged, aligned = layers.dispatch_sites(FLOW, aliases + stream, NODES)
    c.check("stream sites take the flow sites' nodes when they line up",
            aligned and merged[0][1] == {"conv1", "add1", "relu1"}, merged)
    shared = stream.replace("main_dispatch_1_maxpool_2x2_s2_16_2x2_f32",
                            "main_dispatch_0_conv_3x3_8x16_4x4_bias_add_"
                            "relu_f32")
    merged, aligned = layers.dispatch_sites(FLOW, aliases + shared, NODES)
    c.check("a shared executable that does not line up keeps its sites' "
            "own locations", not aligned and merged[1][1] == {"pool1"},
            merged)


# One executable at two sites (squeezenet's fire modules share theirs): its
# body names the nodes of the site it was outlined from (convA, reluA).
SHARED_FLOW = '''#loc = loc("m.onnx":0:0)
#loc1 = loc("convA"(#loc))
#loc2 = loc("reluA"(#loc))
#loc3 = loc("reluB"(#loc))
module {
  flow.executable private @mod {
    builtin.module {
      func.func @main_dispatch_0_conv_1x1_8x8_4x4_relu_f32(%arg0: tensor<1x4x4x8xf32> loc("x"(#loc))) -> tensor<1x4x4x8xf32> {
        %0 = tensor.empty() : tensor<1x4x4x8xf32> loc(#loc1)
        %1 = linalg.conv_2d_nhwc_hwcf ins(%arg0, %w : tensor<1x4x4x8xf32>, tensor<1x1x8x8xf32>) outs(%0 : tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32> loc(#loc1)
        %2 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} ins(%1 : tensor<1x4x4x8xf32>) outs(%0 : tensor<1x4x4x8xf32>) {
        ^bb0(%in: f32 loc("x"(#loc)), %out: f32 loc("x"(#loc))):
          %3 = arith.maximumf %in, %in : f32 loc(#loc2)
          linalg.yield %3 : f32 loc(#loc2)
        } -> tensor<1x4x4x8xf32> loc(#loc2)
        return %2 : tensor<1x4x4x8xf32> loc(#loc2)
      } loc(#loc2)
    } loc(#loc)
  } loc(#loc)
  func.func @main(%arg0: tensor<1x4x4x8xf32> loc("x"(#loc))) -> tensor<1x4x4x8xf32> {
    %0 = flow.dispatch @mod::@main_dispatch_0_conv_1x1_8x8_4x4_relu_f32(%arg0) : (tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32> loc(#loc2)
    %1 = flow.dispatch @mod::@main_dispatch_0_conv_1x1_8x8_4x4_relu_f32(%0) : (tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32> loc(#loc3)
    return %1 : tensor<1x4x4x8xf32> loc(#loc)
  } loc(#loc)
} loc(#loc)
'''
SHARED_NODES = {"convA": ("Conv", ["x", "wA"]),
                "reluA": ("Relu", ["convA_out"]),
                "convB": ("Conv", ["reluA_out", "wB"]),
                "reluB": ("Relu", ["convB_out"])}
SHARED_PRODUCERS = {"convA_out": "convA", "reluA_out": "reluA",
                    "convB_out": "convB", "reluB_out": "reluB"}


def test_shared_sites(c):
    sites = layers.flow_sites(SHARED_FLOW, SHARED_NODES, SHARED_PRODUCERS)
    c.check("a shared body's nodes go to the site it was outlined from",
            sites[0][1] == {"convA", "reluA"}, sites)
    c.check("the other site of a shared body takes their counterparts "
            "(walked from its own node through the same inputs)",
            sites[1][1] == {"convB", "reluB"}, sites)
    plain = layers.flow_sites(SHARED_FLOW, SHARED_NODES)
    c.check("without the graph each site of a shared body keeps its own "
            "location only",
            [s[1] for s in plain] == [{"reluA"}, {"reluB"}], plain)
    # The last op names no node (a tensor.concat): the outlined site is
    # the one whose own node's inputs the body computes.
    unnamed = SHARED_FLOW.replace('linalg.yield %3 : f32 loc(#loc2)',
                                  'linalg.yield %3 : f32 loc(#loc1)').replace(
        '%3 = arith.maximumf %in, %in : f32 loc(#loc2)',
        '%3 = arith.maximumf %in, %in : f32 loc(#loc1)').replace(
        '} -> tensor<1x4x4x8xf32> loc(#loc2)',
        '} -> tensor<1x4x4x8xf32> loc(#loc1)')
    sites = layers.flow_sites(unnamed, SHARED_NODES, SHARED_PRODUCERS)
    c.check("a body that names only its inputs' producers still finds its "
            "outlined site", [s[1] for s in sites] == [
                {"convA", "reluA"}, {"convB", "reluB"}], sites)
    other = dict(SHARED_NODES, reluB=("Sigmoid", ["convB_out"]))
    sites = layers.flow_sites(SHARED_FLOW, other, SHARED_PRODUCERS)
    c.check("a site whose own node is another op keeps its own location",
            sites[1][1] == {"reluB"}, sites)


def test_trace(c):
    conv = "main_dispatch_0_conv_3x3_8x16_4x4_f32"
    pool = "main_dispatch_1_maxpool_2x2_s2_16_2x2_f32"
    events = [event("main", 0, 100, "invocation"),
              event(conv, 1, 10), event(conv, 1, 10),  # warm-up call
              event("main", 1000, 100, "invocation"),
              # two workers' shares of one conv: 1010..1040
              event(conv, 1010, 20), event(conv, 1015, 25),
              # the pool twice (two sites): 1045..1050, 1060..1070
              event(pool, 1045, 5), event(pool, 1060, 6),
              event(pool, 1062, 8),
              event("main", 2000, 50, "invocation"),
              event(conv, 2010, 10), event(pool, 2021, 3),
              event(pool, 2030, 3)]
    calls, walls = layers.strata_calls({"traceEvents": events},
                                       {conv: 1, pool: 2}, skip=1)
    c.check("calls after the warm-up, their walls",
            walls == [0.1, 0.05], walls)
    first = calls[0]
    c.check("worker shares of one dispatch are one span",
            abs(first[(conv, 0)] - 0.030) < 1e-9, first)
    c.check("an executable run at two sites is two instances",
            abs(first[(pool, 0)] - 0.005) < 1e-9 and
            abs(first[(pool, 1)] - 0.010) < 1e-9, first)
    meds = dict(layers.medians(calls))
    c.check("medians over the calls",
            abs(meds[(conv, 0)] - 0.020) < 1e-9, meds)
    mins = dict(layers.medians(calls, min))
    c.check("minima over the calls (--statistic=min)",
            abs(mins[(conv, 0)] - 0.010) < 1e-9, mins)
    ok, msg = expect_error(lambda: layers.strata_calls({}, skip=0),
                           "traceEvents")
    c.check("a trace without traceEvents is an error naming it", ok, msg)
    ok, msg = expect_error(
        lambda: layers.strata_calls({"traceEvents": []}, skip=0),
        "invocation")
    c.check("a trace without calls is an error naming them", ok, msg)


def ort_event(name, ts, dur, op, ins, out):
    return {"cat": "Node", "name": name + "_kernel_time", "ts": ts,
            "dur": dur, "args": {"op_name": op, "input_type_shape": [
                {"float": s} for s in ins], "output_type_shape": [
                {"float": out}]}}


def test_profile(c):
    profile = [
        {"cat": "Session", "name": "model_run", "ts": 0, "dur": 50},
        ort_event("relu1_out_nchwc", 1, 10, "Conv",
                  [[1, 8, 6, 6], [16, 8, 3, 3]], [1, 16, 4, 4]),
        {"cat": "Session", "name": "model_run", "ts": 100, "dur": 60},
        ort_event("relu1_out_nchwc", 101, 20, "Conv",
                  [[1, 8, 6, 6], [16, 8, 3, 3]], [1, 16, 4, 4]),
        ort_event("pool1_out_nchwc", 125, 4, "MaxPool", [[1, 16, 4, 4]],
                  [1, 16, 2, 2]),
        ort_event("ReorderOutput", 130, 2, "ReorderOutput",
                  [[1, 16, 2, 2]], [1, 16, 2, 2]),
    ]
    runs, walls, info = layers.ort_runs(profile)
    c.check("the warm-up run is skipped", walls == [0.06] and
            len(runs) == 1 and runs[0][("relu1_out_nchwc", 0)] == 0.02,
            (runs, walls))
    c.check("node args kept for signatures", layers.ort_signature(
        info[("relu1_out_nchwc", 0)]) == ("conv", 3, 3, 4, 4, 16))
    ok, msg = expect_error(lambda: layers.ort_runs(profile[:2]),
                           "model_run")
    c.check("a profile without timed runs is an error naming them", ok,
            msg)
    ok, msg = expect_error(lambda: layers.ort_runs({}), "list of events")
    c.check("a profile that is not a list is an error", ok, msg)

    src = layers.ort_node_sources
    c.check("a fused Relu's name stands for it and its Conv",
            src("relu1_out_nchwc", "Conv", NODES, PRODUCERS) ==
            {"relu1", "add1", "conv1"},
            src("relu1_out_nchwc", "Conv", NODES, PRODUCERS))
    c.check("a node of its own name", src("pool1", "MaxPool", NODES,
                                          PRODUCERS) == {"pool1"})
    c.check("a fusion suffix after the node's name",
            src("conv1/MatMulAddFusion", "Gemm", NODES, PRODUCERS) ==
            {"conv1"}, src("conv1/MatMulAddFusion", "Gemm", NODES,
                           PRODUCERS))
    c.check("a node ONNX Runtime made names nothing",
            src("ReorderOutput", "ReorderOutput", NODES, PRODUCERS) ==
            frozenset())
    # SkipLayerNormalization-like: conv1's output and x2 in, relu1_out
    # out; add1 and relu1 were folded in.
    covered = layers.covered_nodes(["conv1_out", "x2"], ["relu1_out"],
                                   NODES, PRODUCERS,
                                   {"conv1_out", "x2", "relu1_out"})
    c.check("a fused node covers the nodes between its tensors",
            covered == {"add1", "relu1"}, covered)
    # A Split that replaced a Slice whose bounds come from a chain of
    # shape arithmetic: the walk through every input runs past the limit,
    # the walk through data inputs closes at the Slice.
    chain = dict(NODES)
    chain["slice"] = ("Slice", ["relu1_out", "start", "end"])
    chain["shape"] = ("Shape", ["relu1_out"])
    chain["div"] = ("Div", ["shape_out", "two"])
    chain["add_s"] = ("Add", ["div_out", "one"])
    producers = dict(PRODUCERS, slice_out="slice", shape_out="shape",
                     div_out="div", start="add_s", end="add_s")
    covered = layers.covered_nodes(["relu1_out"], ["slice_out"], chain,
                                   producers, {"relu1_out", "slice_out"},
                                   limit=3)
    c.check("a walk past the limit closes through data inputs",
            covered == {"slice"}, covered)
    c.check("a walk that does not close names nothing",
            layers.covered_nodes(["q"], ["relu1_out"], NODES, PRODUCERS,
                                 set(), limit=1) == frozenset())


def test_pairing(c):
    Item = layers.Item
    ours = [Item("main_dispatch_0_elementwise_1x6x6x8_f32", 0.5, {"conv1"},
                 None),
            Item("main_dispatch_1_conv_3x3_8x16_4x4_bias_add_relu_f32", 3.0,
                 {"conv1", "add1", "relu1"}, ("conv", 3, 3, 4, 4, 16)),
            Item("main_dispatch_2_maxpool_2x2_s2_16_2x2_f32", 1.0, (),
                 ("maxpool", 2, 2, 2, 2, 16)),
            Item("main_dispatch_3_matmul_1x10x64_f32", 0.2, (),
                 ("matmul", 10)),
            Item("main_dispatch_4_elementwise_1x10_f32", 0.1, (), None)]
    theirs = [Item("conv1_out_nchwc", 1.0, {"conv1"}, None),
              Item("relu1_out_nchwc", 1.5, {"relu1", "add1"}, None),
              Item("pool1_out_nchwc", 0.25, (), ("maxpool", None, None, 2,
                                                 2, 16)),
              Item("ReorderOutput", 0.05, (), None),
              Item("fc", 0.4, (), ("matmul", 10))]
    rows = layers.pair(ours, theirs)
    c.check("every item in exactly one row",
            sorted(id(i) for r in rows for i in r.ours + r.theirs) ==
            sorted(id(i) for i in ours + theirs))
    fused = [r for r in rows if r.by == "names"]
    c.check("a fused dispatch and our transpose against every ONNX Runtime "
            "node of their nodes, summed",
            len(fused) == 1 and abs(fused[0].ours_ms - 3.5) < 1e-9 and
            abs(fused[0].theirs_ms - 2.5) < 1e-9 and
            abs(fused[0].ratio - 1.4) < 1e-9, [
                (labels(r.ours), labels(r.theirs)) for r in fused])
    shape = [r for r in rows if r.by == "shape"]
    c.check("the rest by op kind and shape in order",
            sorted(r.ours[0].label for r in shape) == [
                "main_dispatch_2_maxpool_2x2_s2_16_2x2_f32",
                "main_dispatch_3_matmul_1x10x64_f32"], [
                    labels(r.ours) for r in shape])
    alone = [r for r in rows if r.by == "-"]
    c.check("one-sided rows stay, with their times",
            sorted(labels(r.ours or r.theirs) for r in alone) == [
                "ReorderOutput", "elementwise_1x10_f32"] and
            all(r.delta is None for r in alone))
    worst = layers.losses(rows, 2)
    c.check("the losses, biggest first, gains left out",
            [round(r.delta, 6) for r in worst] == [1.0, 0.75], [
                r.delta for r in worst])
    out = io.StringIO()
    layers.report("m batch 1, 1 thread(s)", rows, 10, (5.0, 4.0), False,
                  out)
    text = out.getvalue()
    c.check("the report: losses, unpaired rows with times, totals",
            "2 biggest losses (of 3 paired rows)" in text and
            "onnxrt    0.050  ReorderOutput" in text and
            "dispatches 4.800 ms, ONNX Runtime nodes 3.200 ms (1.50x)"
            in text and "wall 5.000 vs 4.000 ms (1.25x)" in text and
            "rows by names 1, by shape 2, unpaired 2" in text, text)


def test_unpaired_lines(c):
    Item = layers.Item
    rows = layers.pair([], [Item("gemm_input_reshape", 0.25, (), None),
                            Item("gemm_input_reshape_token_2", 0.5, (), None),
                            Item("/Flatten", 0.125, (), None)])
    out = io.StringIO()
    layers.report("t", rows, 10, (1.0, 1.0), False, out)
    text = out.getvalue()
    c.check("unpaired nodes of one rule are one line with count and sum",
            "unpaired (3 rows, strata 0.000 ms, onnxrt 0.875 ms)" in text and
            "onnxrt    0.750  2 x gemm_input_reshape" in text and
            "onnxrt    0.125  /Flatten" in text and
            "0 biggest losses (of 0 paired rows)" in text, text)


def labels(items):
    return layers.labels(items)


def test_cli(c):
    script = os.path.join(HERE, "layers.py")
    proc = subprocess.run([sys.executable, script, "--help"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, timeout=60)
    c.check("--help", proc.returncode == 0 and "--models" in proc.stdout
            and "unpaired" in proc.stdout, proc.stderr)
    for argv, text in ((["--models=alexnet"], "unknown model alexnet"),
                       (["--batches=0"], "positive integers"),
                       (["--threads=x"], "positive integers"),
                       (["--rounds=0"], "positive numbers"),
                       (["--ort-modules=/nonexistent"],
                        "no onnxruntime-node under /nonexistent")):
        proc = subprocess.run([sys.executable, script] + argv,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, timeout=60)
        c.check("%s is refused" % argv[0], proc.returncode == 1 and
                text in proc.stderr, proc.stderr)


def main():
    c = Cases()
    for test in (test_locations, test_shared_sites, test_trace, test_profile,
                 test_pairing, test_unpaired_lines, test_cli):
        test(c)
    print("%d passed, %d failed" % (c.passed, c.failed))
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main())
