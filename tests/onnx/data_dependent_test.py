#!/usr/bin/env python3
"""data_dependent_test.py - ONNX ops whose result's shape depends on the
data (NonZero, Compress with a run-time condition, Unique,
NonMaxSuppression) on models made here with onnx.helper, each compiled,
run with strata-run and compared with a numpy reference (values, dtype and
shape); empty results (NonZero of zeros, a condition that keeps nothing, no
box above the threshold) flowing into later ops; a trace showing that the
fill kernel of an empty result is never launched; and the error of a
wrong-typed input, naming the node. Prints one line per case and `N
passed, N failed`."""

import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
from onnx import TensorProto, helper

from model_cases import Cases, arguments, model

F32 = TensorProto.FLOAT
I64 = TensorProto.INT64
BOOL = TensorProto.BOOL


def vi(name, shape, elem=F32):
    return helper.make_tensor_value_info(name, elem, shape)


def unique_ref(x, axis, sorted_):
    """ONNX's Unique: numpy's, reordered by first occurrence unless
    sorted."""
    y, indices, inverse, counts = np.unique(x, True, True, True, axis=axis)
    inverse = inverse.reshape(-1)
    if not sorted_:
        order = np.argsort(indices, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        indices = indices[order]
        if axis is None:
            y = x.reshape(-1)[indices]
        else:
            y = np.take(x, indices, axis=axis)
        inverse = rank[inverse]
        counts = counts[order]
    return [y, indices.astype(np.int64), inverse.astype(np.int64),
            counts.astype(np.int64)]


def iou_over(a, b, threshold, center):
    """ONNX Runtime's SuppressByIOU on two boxes, in float32."""
    a = a.astype(np.float32)
    b = b.astype(np.float32)
    if center:
        def corners(box):
            half_w, half_h = box[2] / np.float32(2), box[3] / np.float32(2)
            return (box[1] - half_h, box[0] - half_w, box[1] + half_h,
                    box[0] + half_w)
    else:
        def corners(box):
            return (min(box[0], box[2]), min(box[1], box[3]),
                    max(box[0], box[2]), max(box[1], box[3]))
    ay1, ax1, ay2, ax2 = corners(a)
    by1, bx1, by2, bx2 = corners(b)
    inter = (np.float32(max(min(ax2, bx2) - max(ax1, bx1), 0)) *
             np.float32(max(min(ay2, by2) - max(ay1, by1), 0)))
    area_a = (ax2 - ax1) * (ay2 - ay1)
    area_b = (bx2 - bx1) * (by2 - by1)
    union = area_a + area_b - inter
    if inter <= 0 or area_a <= 0 or area_b <= 0 or union <= 0:
        return False
    return inter / union > threshold


def nms_ref(boxes, scores, most, iou, score_threshold, center=False):
    rows = []
    for b in range(scores.shape[0]):
        for c in range(scores.shape[1]):
            s = scores[b, c]
            # Higher scores first, ties by index, NaN last.
            order = sorted(range(len(s)), key=lambda i: (
                bool(np.isnan(s[i])), 0 if np.isnan(s[i]) else -s[i], i))
            chosen = []
            for i in order:
                if len(chosen) >= most:
                    break
                if score_threshold is not None and not s[i] > score_threshold:
                    continue
                if any(iou_over(boxes[b, i], boxes[b, j], iou, center)
                       for j in chosen):
                    continue
                chosen.append(i)
            rows += [[b, c, i] for i in chosen]
    return np.array(rows, dtype=np.int64).reshape(-1, 3)


def trace_names(args, vmfb, inputs, work):
    """The names of the trace events of one strata-run call."""
    trace = os.path.join(work, "trace.json")
    cmd = [args.strata_run, "--module=" + vmfb, "--trace=" + trace]
    for i, x in enumerate(inputs):
        p = os.path.join(work, "trace_in%d.npy" % i)
        np.save(p, x)
        cmd.append("--input=@" + p)
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if run.returncode != 0:
        return None
    with open(trace) as f:
        data = json.load(f)
    events = data["traceEvents"] if isinstance(data, dict) else data
    return [e.get("name", "") for e in events]


def run(cases, args, work):
    rng = np.random.default_rng(11)

    # NonZero: one row per dimension, the elements in row-major order.
    x = rng.standard_normal((3, 4, 5)).astype(np.float32)
    x[rng.random(x.shape) < 0.5] = 0
    cases.run_model("NonZero of a 3-D float tensor", model(
        [helper.make_node("NonZero", ["x"], ["y"], name="nz")],
        [vi("x", [3, 4, 5])], [vi("y", None, I64)]), [x],
        [np.array(np.nonzero(x), dtype=np.int64)])
    big = (rng.random(5000) < 0.3).astype(np.int32)
    cases.run_model("NonZero of 5000 int32 (13 scan steps)", model(
        [helper.make_node("NonZero", ["x"], ["y"], name="nz")],
        [vi("x", [5000], TensorProto.INT32)], [vi("y", None, I64)]), [big],
        [np.array(np.nonzero(big), dtype=np.int64)])
    zeros = np.zeros((2, 3), np.float32)
    nonzero_model = model(
        [helper.make_node("NonZero", ["x"], ["i"], name="nz"),
         helper.make_node("Cast", ["i"], ["f"], name="cast", to=F32),
         helper.make_node("Add", ["f", "f"], ["y"], name="add")],
        [vi("x", [2, 3])], [vi("y", None)])
    cases.run_model("NonZero of zeros is 2x0 and flows into Cast and Add",
                    nonzero_model, [zeros], [np.zeros((2, 0), np.float32)])
    ones = np.ones((2, 3), np.float32)
    cases.run_model("the same model on ones", nonzero_model, [ones],
                    [2 * np.array(np.nonzero(ones), dtype=np.float32)])

    # The fill kernels of an empty result are never launched: the trace of
    # the call on zeros has no dispatch after the count's, the call on
    # ones has them.
    path = cases.save(nonzero_model, "nonzero_trace")
    vmfb = path[:-5] + ".vmfb"
    compiled = cases.compile(path, "-o", vmfb)
    empty_names = trace_names(args, vmfb, [zeros], work)
    full_names = trace_names(args, vmfb, [ones], work)
    ok = compiled.returncode == 0 and empty_names is not None and \
        full_names is not None
    def dispatches(names):
        return set(n for n in (names or []) if "_dispatch_" in n)

    # The fill is the two dispatches of dynamic size ("D"): the positions,
    # then the coordinates, with Cast and Add fused into them.
    skipped = dispatches(full_names) - dispatches(empty_names)
    cases.check("an empty result's fill dispatches are not launched",
                ok and len(skipped) == 2 and
                all(re.search(r"[_x]D_", n) for n in skipped) and
                dispatches(empty_names) <= dispatches(full_names),
                "compile %d; dispatches with elements %s, without %s" % (
                    compiled.returncode, sorted(dispatches(full_names)),
                    sorted(dispatches(empty_names))))

    # Compress with a condition given at run time.
    data = rng.standard_normal((3, 5)).astype(np.float32)
    compress = model(
        [helper.make_node("Compress", ["x", "c"], ["y"], name="cp", axis=1)],
        [vi("x", [3, 5]), vi("c", [4], BOOL)], [vi("y", None)])
    for cond in ([True, False, True, True], [False] * 4, [True] * 4):
        c = np.array(cond)
        cases.run_model("Compress axis 1 by %s" % cond, compress, [data, c],
                        [np.compress(c, data[:, :4], axis=1)
                         if c.any() else np.zeros((3, 0), np.float32)])
    flat = model(
        [helper.make_node("Compress", ["x", "c"], ["y"], name="cp")],
        [vi("x", [3, 5]), vi("c", [15], BOOL)], [vi("y", None)])
    c = rng.random(15) < 0.5
    cases.run_model("Compress without an axis", flat, [data, c],
                    [np.compress(c, data)])
    joined = model(
        [helper.make_node("Compress", ["x", "c"], ["k"], name="cp", axis=0),
         helper.make_node("Concat", ["k", "x"], ["y"], name="cat", axis=0)],
        [vi("x", [3, 5]), vi("c", [3], BOOL)], [vi("y", None)])
    none = np.zeros(3, bool)
    cases.run_model("Concat takes Compress's empty result", joined,
                    [data, none], [data])
    some = np.array([False, True, False])
    cases.run_model("Concat takes Compress's one row", joined, [data, some],
                    [np.concatenate([data[1:2], data])])

    # Symbolic dimensions: one module for every size, the scan's steps in
    # a host loop; a data-dependent result feeds the next one.
    dynamic = model(
        [helper.make_node("Compress", ["x", "c"], ["k"], name="cp", axis=0),
         helper.make_node("NonZero", ["k"], ["y"], name="nz")],
        [vi("x", ["N", 3]), vi("c", ["M"], BOOL)], [vi("y", None, I64)])
    for rows, kept in ((7, 5), (0, 0), (40, 33), (3, 6)):
        x = rng.standard_normal((rows, 3)).astype(np.float32)
        x[rng.random(x.shape) < 0.4] = 0
        c = rng.random(kept) < 0.6
        want = np.compress(c[:rows], x, axis=0)
        cases.run_model("Compress then NonZero, N=%d, M=%d" % (rows, kept),
                        dynamic, [x, c],
                        [np.array(np.nonzero(want), dtype=np.int64)])

    # Unique: every output, sorted or in order of first occurrence, with
    # and without an axis.
    values = rng.integers(0, 6, 20).astype(np.float32)
    for sorted_ in (1, 0):
        cases.run_model("Unique of 20 floats, sorted=%d" % sorted_, model(
            [helper.make_node("Unique", ["x"], ["y", "i", "v", "n"],
                              name="uq", sorted=sorted_)],
            [vi("x", [20])],
            [vi("y", None), vi("i", None, I64), vi("v", None, I64),
             vi("n", None, I64)]), [values],
            unique_ref(values, None, sorted_))
    rows = rng.integers(0, 2, (6, 3)).astype(np.int64)
    for axis in (0, 1):
        cases.run_model("Unique of int64 slices along axis %d" % axis, model(
            [helper.make_node("Unique", ["x"], ["y", "i", "v", "n"],
                              name="uq", axis=axis)],
            [vi("x", [6, 3], I64)],
            [vi("y", None, I64), vi("i", None, I64), vi("v", None, I64),
             vi("n", None, I64)]), [rows], unique_ref(rows, axis, True))
    cases.run_model("Unique with only its first output", model(
        [helper.make_node("Unique", ["x"], ["y"], name="uq", sorted=0)],
        [vi("x", [20])], [vi("y", None)]), [values],
        unique_ref(values, None, 0)[:1])

    # NonMaxSuppression: more boxes than one 64-bit mask holds, several
    # batches and classes, a score threshold.
    def nms_model(batches, classes, count, center=0, with_threshold=True):
        inputs = [vi("boxes", [batches, count, 4]),
                  vi("scores", [batches, classes, count]),
                  vi("most", [1], I64), vi("iou", [1])]
        names = ["boxes", "scores", "most", "iou"]
        if with_threshold:
            inputs.append(vi("score_threshold", [1]))
            names.append("score_threshold")
        return model(
            [helper.make_node("NonMaxSuppression", names, ["y"], name="nms",
                              center_point_box=center)],
            inputs, [vi("y", None, I64)], opset=11)

    def random_boxes(batches, count):
        corner = rng.random((batches, count, 2)).astype(np.float32) * 10
        size = rng.random((batches, count, 2)).astype(np.float32) * 3 + 0.5
        return np.concatenate([corner, corner + size], axis=2)

    for batches, classes, count in ((2, 3, 100), (1, 2, 64), (1, 1, 130)):
        boxes = random_boxes(batches, count)
        scores = rng.random((batches, classes, count)).astype(np.float32)
        most = np.array([20], np.int64)
        iou = np.array([0.3], np.float32)
        threshold = np.array([0.2], np.float32)
        cases.run_model(
            "NonMaxSuppression of %dx%dx%d boxes" % (batches, classes, count),
            nms_model(batches, classes, count),
            [boxes, scores, most, iou, threshold],
            [nms_ref(boxes, scores, 20, 0.3, 0.2)])
    boxes = random_boxes(1, 40)
    scores = rng.random((1, 2, 40)).astype(np.float32)
    centers = np.concatenate([boxes[..., :2] + 1, boxes[..., 2:] -
                              boxes[..., :2]], axis=2)
    cases.run_model(
        "NonMaxSuppression of center-point boxes without a score threshold",
        nms_model(1, 2, 40, center=1, with_threshold=False),
        [centers, scores, np.array([40], np.int64),
         np.array([0.25], np.float32)],
        [nms_ref(centers, scores, 40, 0.25, None, center=True)])
    nan_scores = scores.copy()
    nan_scores[0, 0, ::3] = np.nan
    cases.run_model(
        "NonMaxSuppression skips NaN scores", nms_model(1, 2, 40),
        [boxes, nan_scores, np.array([40], np.int64),
         np.array([0.3], np.float32), np.array([0.1], np.float32)],
        [nms_ref(boxes, nan_scores, 40, 0.3, 0.1)])
    cases.run_model(
        "NonMaxSuppression with no box above the threshold is 0x3",
        nms_model(1, 2, 40),
        [boxes, scores, np.array([5], np.int64),
         np.array([0.5], np.float32), np.array([2.0], np.float32)],
        [np.zeros((0, 3), np.int64)])

    # A wrong-typed input is refused, naming the node.
    cases.expect_error("NonMaxSuppression with int32 boxes", model(
        [helper.make_node("NonMaxSuppression", ["boxes", "scores"], ["y"],
                          name="nms")],
        [vi("boxes", [1, 4, 4], TensorProto.INT32), vi("scores", [1, 1, 4])],
        [vi("y", None, I64)], opset=11),
        "onnx node 'nms' (NonMaxSuppression, opset 11): input 0 has element "
        "type i32; the op type takes a floating-point tensor")
    cases.expect_error("NonMaxSuppression with 3 coordinates per box", model(
        [helper.make_node("NonMaxSuppression", ["boxes", "scores"], ["y"],
                          name="nms")],
        [vi("boxes", [1, 4, 3]), vi("scores", [1, 1, 4])],
        [vi("y", None, I64)], opset=11),
        "onnx node 'nms' (NonMaxSuppression, opset 11): input 0 (boxes) has "
        "3 coordinates per box; it takes 4")
    return cases.summary()


def main():
    args = arguments(__doc__)
    with tempfile.TemporaryDirectory() as work:
        return run(Cases(args, work), args, work)


if __name__ == "__main__":
    sys.exit(main())
