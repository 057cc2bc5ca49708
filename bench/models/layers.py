#!/usr/bin/python3
"""layers.py - bench/models layer by layer: each Strata dispatch (a
strata-benchmark --trace) paired with the ONNX Runtime nodes (its own
profiler, every node's kernel time) that compute the same part of the same
ONNX model, and per model the ten biggest losses.

  bench/models/layers.py [--models=a,b] [--batches=1,8] [--threads=1,2]
                         [--rounds=3] [--calls=10] [--top=10] [--all]
                         [--statistic=median|min]
                         [--build=DIR] [--ort-modules=DIR]

How a row is paired (its "by" column):
  names  the ONNX nodes a dispatch came from, read from the compiler's
         location info (strata-compile --compile-to=flow
         --mlir-print-debuginfo: every op of a dispatch's body keeps the
         name of the ONNX node it was imported from; a body that several
         sites share names the site it was outlined from, and each other
         site takes the counterparts of those nodes, walked from its own
         location's node (its last op's) through the same inputs of the
         same op types), against the ONNX
         nodes each ONNX Runtime node stands for: its name, or for a node
         ONNX Runtime made, like the NCHWc convolution
         "/relu/Relu_output_0_nchwc", the producer of the tensor it is
         named after (with the Conv before a Relu it fused), a fusion's
         leading name ("/layers.0/linear2/MatMul/MatMulAddFusion"), and
         the model's nodes between its tensors in the graph ONNX Runtime
         runs (its optimized model, which ort_peer.js writes: a
         SkipLayerNormalization covers an Add and a LayerNormalization).
         Dispatches and nodes sharing an ONNX node form one
         row: a fused dispatch (conv + add + relu) against every ONNX
         Runtime node of those ONNX nodes, times summed; our layout
         transposes join the convolution they were made for.
  shape  what was left over on both sides, by op kind and output shape
         (convolution or depthwise convolution, window, output size;
         pools; matmul columns) in execution order.
  -      unpaired: one side only (ONNX Runtime's reorders, work one side
         fuses away); listed with its time, never dropped.

Rounds interleave the two for every cell (model, batch, threads): a new
strata-benchmark process (3 warm-up calls, then --calls traced calls), then
as many calls of the cell's profiling ONNX Runtime session (loaded and
warmed up once). Every time is the median over all calls of all rounds.
With several workers a dispatch is the span from its first worker's start
to its last worker's end. Wall times are each side's own call time under
its profiler (the trace's invocation, ONNX Runtime's model_run); the sum
of a side's rows is its busy time, the call also holds the gaps between.

ONNX Runtime comes from npm (bench/models/setup_peers.sh); the models and
modules are made as run.py makes them (its prepare()).
"""
import argparse
import glob
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run  # noqa: E402  (prepare, OrtPeer, cpu_name, cpu_isa, the tools)

# conv_3x3_s2_64x128_28x28..., dwconv_3x3_s2_96_56x56...,
# maxpool_3x3_s2_64_56x56..., matmul_1x1000x1280...
STRATA_WINDOW = re.compile(
    r"(?P<kind>dwconv|conv|maxpool|sumpool)_(?P<kh>\d+)x(?P<kw>\d+)"
    r"(?:_s\d+)?(?:_d\d+)?_(?:\d+x)?(?P<out>\d+)_(?P<h>\d+)x(?P<w>\d+)")
STRATA_MATMUL = re.compile(r"matmul_(?P<m>\d+)x(?P<n>\d+)x(?P<k>\d+)")
KERNEL_TIME = "_kernel_time"


class LayersError(Exception):
    """Input this script cannot read: the message names the file or the
    thing at fault."""


# ---------------------------------------------------------------- signatures


def strata_signature(name):
    m = STRATA_WINDOW.search(name)
    if m:
        return (m["kind"], int(m["kh"]), int(m["kw"]), int(m["h"]),
                int(m["w"]), int(m["out"]))
    m = STRATA_MATMUL.search(name)
    if m:
        return ("matmul", int(m["n"]))
    return None


def ort_signature(args):
    """The same tuple for an ONNX Runtime node event's args."""
    op = args.get("op_name")
    ins = [next(iter(s.values())) for s in args.get("input_type_shape", [])
           if s]
    outs = [next(iter(s.values())) for s in args.get("output_type_shape", [])
            if s]
    if op in ("Conv", "FusedConv") and len(ins) >= 2 and len(ins[1]) == 4 \
            and outs and len(outs[0]) == 4:
        weight, out = ins[1], outs[0]
        depthwise = weight[1] == 1 and ins[0][1] == weight[0] > 1
        return ("dwconv" if depthwise else "conv", weight[2], weight[3],
                out[2], out[3], out[1])
    if op == "MaxPool" and outs and len(outs[0]) == 4:
        # ONNX Runtime's MaxPool events do not say the window.
        return ("maxpool", None, None, outs[0][2], outs[0][3], outs[0][1])
    if op in ("Gemm", "MatMul", "FusedGemm", "FusedMatMul") and outs:
        return ("matmul", outs[0][-1])
    return None


def same_channels(ours, theirs):
    # ONNX Runtime's blocked layout rounds channel counts up (24 -> 32).
    return any((ours + r - 1) // r * r == theirs for r in (1, 8, 16))


def signatures_match(a, b):
    if a is None or b is None or a[0] != b[0] or len(a) != len(b):
        return False
    if not all(x == y or x is None or y is None
               for x, y in zip(a[:-1], b[:-1])):
        return False
    return same_channels(a[-1], b[-1])


# ------------------------------------------------- the compiler's locations

LOC_ALIAS = re.compile(r"^(#loc\d*) = loc\((.*)\)\s*$")
TRAILING_LOC = re.compile(r"\sloc\((.*)\)\s*$")
SITE = re.compile(r"(?:flow|stream\.cmd)\.dispatch @[\w$.-]+::@([\w$.-]+)"
                  r"[\s(]")
FUNC = re.compile(r"^\s*func\.func (?:private )?@([\w$.-]+)\(")
QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"')
OP_NAME = re.compile(r"^(?:%[\w#:, ]+ = )?([a-z_]+\.[\w.]+)")
# Ops whose location names the ONNX node they compute for. Constants,
# empty tensors, fills and reshapes are shared (CSE keeps the first one's
# location), so they would name unrelated nodes.
SKIPPED_OPS = {"linalg.fill", "linalg.yield", "linalg.index",
               "arith.constant"}


def computes(op):
    return op is not None and op.split(".")[0] in ("linalg", "arith",
                                                   "math") \
        and op not in SKIPPED_OPS


def dispatch_sites(flow, stream, node_names, producers=None):
    """The dispatch sites as they run (the stream phase's, where identical
    executables are one), each with the ONNX nodes of the same site in the
    flow phase (where fewer sites share an executable, so more bodies name
    their own site's nodes): a list of (executable name, frozenset of node
    names), and whether the flow phase's sites lined up with the stream
    phase's."""
    ours = flow_sites(stream, node_names, producers)
    theirs = flow_sites(flow, node_names, producers)
    if len(ours) == len(theirs) and all(
            short(a) == short(b) for (a, _), (b, _) in zip(ours, theirs)):
        return [(a, nodes) for (a, _), (_, nodes) in zip(ours, theirs)], True
    return ours, False


def mirrored(body, origin, anchor, nodes, producers):
    """The nodes of another site of a shared body: `body` (the nodes the
    body's ops name, those of the site it was outlined from, whose own
    node is `origin`) walked up from `origin` through its inputs, each
    step taken in step from `anchor` (the other site's own node) through
    the input of the same index while the op types agree."""
    mapping = {origin: anchor}
    stack = [origin]
    while stack:
        a = stack.pop()
        a_inputs, b_inputs = nodes[a][1], nodes[mapping[a]][1]
        for i, tensor in enumerate(a_inputs[:len(b_inputs)]):
            pa, pb = producers.get(tensor), producers.get(b_inputs[i])
            if pa in body and pa not in mapping and pb in nodes and \
                    nodes[pb][0] == nodes[pa][0]:
                mapping[pa] = pb
                stack.append(pa)
    return set(mapping.values())


def flow_sites(flow_text, node_names, producers=None):
    """The dispatch sites of a flow- or stream-phase module printed with
    --mlir-print-debuginfo, in program order: a list of (executable name,
    frozenset of ONNX node names). A site's nodes are its own location's
    and, when its executable runs at this site only, those of every op in
    the executable's body. A body shared by several sites names the nodes
    of the one it was outlined from: with the model's graph (node_names
    as {name: (op type, inputs)} and `producers`), that site takes them
    and every other site their counterparts, walked from its own node
    through the same inputs (mirrored); without it each keeps its own
    location's."""
    aliases = {}
    for line in flow_text.splitlines():
        m = LOC_ALIAS.match(line)
        if m:
            aliases[m[1]] = m[2]
    resolved = {}

    def names(expr, depth=0):
        if depth > 64:
            raise LayersError("location aliases nest more than 64 deep")
        found = set()
        for alias in re.findall(r"#loc\d*", expr):
            if alias not in resolved:
                resolved[alias] = names(aliases.get(alias, ""), depth + 1)
            found |= resolved[alias]
        found |= {n for n in QUOTED.findall(expr) if n in node_names}
        return found

    sites, bodies, current, stack = [], {}, None, []
    for line in flow_text.splitlines():
        m = FUNC.match(line)
        if m:
            current, stack = m[1], []
            bodies[current] = set()
            continue
        m = SITE.search(line)
        if m:
            loc = TRAILING_LOC.search(line)
            sites.append((m[1], names(loc[1]) if loc else set()))
            continue
        stripped = line.strip()
        if current is None or stripped.startswith("^"):
            continue  # block arguments name the producers of the inputs
        if stripped.startswith("}"):
            # The end of a region: the location is its op's.
            if not stack:
                current = None  # the function's end
                continue
            op = stack.pop()
        else:
            m = OP_NAME.match(stripped)
            op = m[1] if m else None
        if stripped.endswith("{"):
            stack.append(op)
            continue
        loc = TRAILING_LOC.search(line)
        if loc and computes(op):
            bodies[current] |= names(loc[1])
    uses = {}
    for name, _ in sites:
        uses[name] = uses.get(name, 0) + 1
    result = []
    for name, nodes in sites:
        body = bodies.get(name, set())
        if uses[name] > 1 and producers is not None:
            # The outlined site's own node: one the body names, or whose
            # inputs it computes (a tensor.concat names no node of its
            # own: only linalg, arith and math ops count).
            origins = [n for other, own in sites if other == name
                       for n in own if n in body or any(
                           producers.get(t) in body
                           for t in node_names[n][1])]
            anchors = [n for n in nodes if origins and
                       node_names[n][0] == node_names[origins[0]][0]]
            if origins and anchors:
                body = mirrored(body, origins[0], anchors[0], node_names,
                                producers)
            else:
                body = set()
        elif uses[name] > 1:
            body = set()
        result.append((name, frozenset(nodes | body)))
    return result


def onnx_graph_names(onnx_path):
    """A model's main graph: ({node name: (op type, [input names])},
    {tensor name: producing node's name})."""
    import onnx
    model = onnx.load(onnx_path, load_external_data=False)
    nodes, producers = {}, {}
    for node in model.graph.node:
        if node.name:
            nodes[node.name] = (node.op_type, list(node.input))
            for out in node.output:
                producers[out] = node.name
    return nodes, producers


# ONNX Runtime's fused forms of ONNX ops.
FUSED_OPS = {"FusedConv": "Conv", "FusedGemm": "Gemm",
             "FusedMatMul": "MatMul"}


def ort_node_sources(name, op_name, nodes, producers):
    """The ONNX nodes an ONNX Runtime node stands for: the node of its name,
    or the producer of the tensor a node ONNX Runtime made is named after
    ("<tensor>_nchwc" for its blocked convolutions and pools). A node of
    another op than the one ONNX Runtime ran (a Relu or Clip that it fused
    into the Conv before it, which then carries the Relu's output name)
    also stands for its first-input ancestors up to the first node of
    that op."""
    found = None
    base = re.sub(r"(_nchwc|_token_\d+)+$", "", name)
    # Fused nodes: "/layers.0/self_attn/MatMul_2/MatmulTransposeFusion/".
    parts = name.split("/")
    prefixes = [p for p in ("/".join(parts[:n])
                            for n in range(len(parts) - 1, 0, -1)) if p]
    for candidate in [name, base] + prefixes:
        if candidate in nodes:
            found = candidate
        elif candidate in producers:
            found = producers[candidate]
        if found:
            break
    if found is None:
        return frozenset()
    op_name = FUSED_OPS.get(op_name, op_name)
    chain, node = [found], found
    while op_name and nodes[node][0] != op_name and len(chain) <= 4:
        inputs = nodes[node][1]
        node = producers.get(inputs[0]) if inputs else None
        if node is None:
            return frozenset([found])  # no such ancestor: the node alone
        chain.append(node)
    if op_name and nodes[chain[-1]][0] != op_name:
        return frozenset([found])
    return frozenset(chain)


def strip_nchwc(tensor):
    return re.sub(r"(_nchwc)+$", "", tensor)


def optimized_graph(onnx_path):
    """The graph ONNX Runtime runs (its optimizedModelFilePath):
    ({node name: ([input names], [output names])}, {every tensor name})."""
    import onnx
    try:
        model = onnx.load(onnx_path, load_external_data=False)
    except Exception as e:  # onnx raises several kinds
        raise LayersError("cannot read ONNX Runtime's optimized model %s: "
                          "%s" % (onnx_path, e))
    graph = {n.name: (list(n.input), list(n.output))
             for n in model.graph.node if n.name}
    present = {strip_nchwc(t) for n in model.graph.node
               for t in list(n.input) + list(n.output)}
    return graph, present


def covered_nodes(inputs, outputs, nodes, producers, present, limit=8,
                  first_only=False):
    """The model's nodes a node of ONNX Runtime's optimized graph replaced:
    from the producers of its outputs (tensors of the model) back to
    tensors its graph still has (present: every tensor of the optimized
    graph) or its own inputs. When that walk does not close within limit
    nodes (a Slice whose bounds the model computes from shapes), again
    through each node's first input only (its data). Empty when its
    outputs are tensors ONNX Runtime made, or when neither walk closes."""
    frontier = [strip_nchwc(t) for t in outputs]
    stop = ({strip_nchwc(t) for t in inputs} | set(present)) - set(frontier)
    if not frontier or any(t not in producers for t in frontier):
        return frozenset()
    found = set()
    while frontier:
        node = producers.get(frontier.pop())
        if node is None or node in found or nodes[node][0] == "Constant":
            continue
        found.add(node)
        if len(found) > limit:
            if first_only:
                return frozenset()
            return covered_nodes(inputs, outputs, nodes, producers, present,
                                 limit, first_only=True)
        follow = nodes[node][1][:1] if first_only else nodes[node][1]
        frontier += [t for t in follow if t and t not in stop]
    return frozenset(found)


# ------------------------------------------------------------------ traces


def strata_calls(trace, sites_per_name=None, skip=0):
    """A strata-benchmark trace (Chrome trace JSON) -> per timed call, a
    dict {(dispatch name, occurrence): ms}, and each call's wall ms. A
    dispatch's events (one per worker that took part) are one instance;
    with sites_per_name (name -> sites per call) a name's events are split
    into that many instances at the widest gaps, else at every gap."""
    events = trace.get("traceEvents") if isinstance(trace, dict) else None
    if not isinstance(events, list):
        raise LayersError("the trace has no traceEvents list")
    calls = sorted((e for e in events if e.get("cat") == "invocation"),
                   key=lambda e: e["ts"])[skip:]
    if not calls:
        raise LayersError("the trace has no invocation events")
    dispatches = sorted((e for e in events if e.get("cat") == "dispatch"),
                        key=lambda e: e["ts"])
    per_call, walls = [], []
    for call in calls:
        start, end = call["ts"], call["ts"] + call["dur"]
        by_name = {}
        for e in dispatches:
            if start <= e["ts"] < end:
                by_name.setdefault(e["name"], []).append(e)
        times = {}
        for name, evs in by_name.items():
            want = (sites_per_name or {}).get(name)
            groups = split_instances(evs, want)
            for i, group in enumerate(groups):
                first = min(e["ts"] for e in group)
                last = max(e["ts"] + e["dur"] for e in group)
                times[(name, i)] = (last - first) / 1000.0
        per_call.append(times)
        walls.append(call["dur"] / 1000.0)
    return per_call, walls


def split_instances(events, want=None):
    """Events of one dispatch name in one call (sorted by start) ->
    instances. Worker shares of one instance overlap; a gap (an event
    starting after all before it ended) starts a new one. With want, only
    the want - 1 widest gaps split."""
    gaps, reach = [], None
    for i, e in enumerate(events):
        if reach is not None and e["ts"] >= reach:
            gaps.append((e["ts"] - reach, i))
        reach = max(reach or e["ts"], e["ts"] + e["dur"])
    if want is not None:
        gaps = sorted(gaps, reverse=True)[:max(want - 1, 0)]
    cuts = sorted(i for _, i in gaps)
    groups, prev = [], 0
    for cut in cuts + [len(events)]:
        groups.append(events[prev:cut])
        prev = cut
    return groups


def ort_runs(events, skip=1):
    """An ONNX Runtime profile (a JSON list of events) -> per run after the
    first skip (the session's warm-up), {(node name, occurrence): ms}; each
    run's wall ms (model_run); and each node's event args."""
    if not isinstance(events, list):
        raise LayersError("the ONNX Runtime profile is not a list of events")
    runs = sorted((e for e in events if e.get("cat") == "Session" and
                   e.get("name") == "model_run"), key=lambda e: e["ts"])
    runs = runs[skip:]
    if not runs:
        raise LayersError("the ONNX Runtime profile has no timed model_run")
    nodes = sorted((e for e in events if e.get("cat") == "Node" and
                    e.get("name", "").endswith(KERNEL_TIME)),
                   key=lambda e: e["ts"])
    per_run, walls, info = [], [], {}
    for r in runs:
        start, end = r["ts"], r["ts"] + r["dur"]
        times, seen = {}, {}
        for e in nodes:
            if start <= e["ts"] < end:
                name = e["name"][:-len(KERNEL_TIME)]
                key = (name, seen.get(name, 0))
                seen[name] = key[1] + 1
                times[key] = times.get(key, 0.0) + e["dur"] / 1000.0
                info.setdefault(key, e.get("args", {}))
        per_run.append(times)
        walls.append(r["dur"] / 1000.0)
    return per_run, walls, info


def medians(per_call, statistic=statistics.median):
    """{key: median ms over the calls that ran it}, keys in the order of
    their first appearance (execution order of the first call);
    `statistic` (min with --statistic=min) in place of the median."""
    order, values = [], {}
    for call in per_call:
        for key, ms in call.items():
            if key not in values:
                order.append(key)
                values[key] = []
            values[key].append(ms)
    return [(key, statistic(values[key])) for key in order]


# ----------------------------------------------------------------- pairing


class Item:
    """One dispatch instance or ONNX Runtime node: label, median ms, the
    ONNX nodes it stands for, its op-kind/shape signature."""

    def __init__(self, label, ms, nodes, signature):
        self.label, self.ms = label, ms
        self.nodes, self.signature = frozenset(nodes), signature


class Row:
    def __init__(self, ours, theirs, by):
        self.ours, self.theirs, self.by = ours, theirs, by

    @property
    def ours_ms(self):
        return sum(i.ms for i in self.ours) if self.ours else None

    @property
    def theirs_ms(self):
        return sum(i.ms for i in self.theirs) if self.theirs else None

    @property
    def delta(self):
        if self.ours and self.theirs:
            return self.ours_ms - self.theirs_ms
        return None

    @property
    def ratio(self):
        if self.ours and self.theirs and self.theirs_ms > 0:
            return self.ours_ms / self.theirs_ms
        return None


def pair(ours, theirs, window=12):
    """Rows pairing dispatches (ours, execution order) with ONNX Runtime
    nodes (theirs, execution order); every item lands in exactly one row.
    First by ONNX node names (connected groups: items sharing a node name
    are one row); then what is left by signature in execution order (each
    dispatch takes the first node left, at most `window` places past the
    last one taken, with the same signature); the rest one-sided."""
    parent = {}

    def find(x):
        parent.setdefault(x, x)
        while parent[x] != x:
            x = parent[x]
        return x

    def union(a, b):
        parent[find(a)] = find(b)

    theirs_nodes = set().union(*(t.nodes for t in theirs)) if theirs else set()
    ours_nodes = set().union(*(o.nodes for o in ours)) if ours else set()
    shared = theirs_nodes & ours_nodes
    for side, items in (("o", ours), ("t", theirs)):
        for i, item in enumerate(items):
            for node in item.nodes & shared:
                union((side, i), ("n", node))
    groups = {}
    for side, items in (("o", ours), ("t", theirs)):
        for i, item in enumerate(items):
            if item.nodes & shared:
                groups.setdefault(find((side, i)), ([], []))[
                    0 if side == "o" else 1].append(i)
    rows, used_ours, used_theirs = [], set(), set()
    for o_idx, t_idx in groups.values():
        rows.append(Row([ours[i] for i in o_idx], [theirs[i] for i in t_idx],
                        "names"))
        used_ours |= set(o_idx)
        used_theirs |= set(t_idx)

    left_theirs = [i for i in range(len(theirs)) if i not in used_theirs]
    taken = set()
    j = last = 0
    for i, item in enumerate(ours):
        if i in used_ours:
            continue
        while j < len(left_theirs) and left_theirs[j] in taken:
            j += 1
        end = min(max(j, last) + window, len(left_theirs))
        found = next((k for k in range(j, end)
                      if left_theirs[k] not in taken and signatures_match(
                          item.signature, theirs[left_theirs[k]].signature)),
                     None)
        if found is None:
            rows.append(Row([item], [], "-"))
            continue
        taken.add(left_theirs[found])
        last = found
        rows.append(Row([item], [theirs[left_theirs[found]]], "shape"))
    for k in left_theirs:
        if k not in taken:
            rows.append(Row([], [theirs[k]], "-"))
    return rows


def losses(rows, top):
    """The paired rows that lose most (largest positive delta), at most
    top of them."""
    paired = [r for r in rows if r.delta is not None and r.delta > 0]
    return sorted(paired, key=lambda r: -r.delta)[:top]


# ------------------------------------------------------------------ output


def short(name):
    return re.sub(r"^[a-z_0-9]*?_dispatch_\d+_", "", name)


def labels(items):
    return " + ".join(short(i.label) for i in items) if items else "-"


def ms(value):
    return "%.3f" % value if value is not None else "-"


def report(title, rows, top, walls, show_all, out=sys.stdout):
    """Prints one cell: its losses, its unpaired rows and its totals."""
    print("\n== %s" % title, file=out)
    worst = losses(rows, top)
    print("%d biggest losses (of %d paired rows):" % (
        len(worst), sum(1 for r in rows if r.delta is not None)), file=out)
    header = "%3s %8s %8s %7s %8s  %-5s %s" % (
        "#", "strata", "onnxrt", "ratio", "delta", "by",
        "dispatch(es) | ONNX Runtime node(s)")
    print(header, file=out)
    for n, r in enumerate(worst, 1):
        print("%3d %8s %8s %6.2fx %+8.3f  %-5s %s | %s" % (
            n, ms(r.ours_ms), ms(r.theirs_ms), r.ratio, r.delta, r.by,
            labels(r.ours), labels(r.theirs)), file=out)
    one_sided = [r for r in rows if r.delta is None]
    if one_sided:
        # Rows of the same dispatch, or of ONNX Runtime nodes made by the
        # same rule (gemm_input_reshape_token_N), are one line: their
        # count and summed time.
        same = {}
        for r in one_sided:
            side = "strata" if r.ours else "onnxrt"
            label = re.sub(r"_token_\d+$", "", labels(r.ours or r.theirs))
            total, count = same.get((side, label), (0.0, 0))
            same[(side, label)] = (total + (r.ours_ms or r.theirs_ms),
                                   count + 1)
        print("unpaired (%d rows, strata %.3f ms, onnxrt %.3f ms):" % (
            len(one_sided),
            sum(t for (side, _), (t, _) in same.items() if side == "strata"),
            sum(t for (side, _), (t, _) in same.items() if side == "onnxrt")),
            file=out)
        for (side, label), (total, count) in same.items():
            print("    %-6s %8s  %s%s" % (side, ms(total), "%d x " % count
                                         if count > 1 else "", label),
                  file=out)
    if show_all:
        print("all paired rows:", file=out)
        for r in rows:
            if r.delta is not None:
                print("    %8s %8s %6.2fx %-5s %s | %s" % (
                    ms(r.ours_ms), ms(r.theirs_ms), r.ratio, r.by,
                    labels(r.ours), labels(r.theirs)), file=out)
    paired_ours = sum(r.ours_ms for r in rows if r.delta is not None)
    paired_theirs = sum(r.theirs_ms for r in rows if r.delta is not None)
    sum_ours = sum(r.ours_ms for r in rows if r.ours)
    sum_theirs = sum(r.theirs_ms for r in rows if r.theirs)
    by = {}
    for r in rows:
        by[r.by] = by.get(r.by, 0) + 1
    print("totals: dispatches %.3f ms, ONNX Runtime nodes %.3f ms (%s); "
          "paired rows %.3f vs %.3f ms (%s); wall %.3f vs %.3f ms (%s); "
          "rows by names %d, by shape %d, unpaired %d" % (
              sum_ours, sum_theirs, ratio_text(sum_ours, sum_theirs),
              paired_ours, paired_theirs,
              ratio_text(paired_ours, paired_theirs), walls[0], walls[1],
              ratio_text(walls[0], walls[1]), by.get("names", 0),
              by.get("shape", 0), by.get("-", 0)), file=out)


def ratio_text(a, b):
    return "%.2fx" % (a / b) if b else "-"


# --------------------------------------------------------------- measuring


def phase_text(args, onnx_path, phase):
    tools = run.kernel_bench.tools(args.build)
    proc = subprocess.run(
        [tools["compile"], onnx_path, "--target-cpu=host",
         "--compile-to=" + phase, "--mlir-print-debuginfo",
         "--mlir-elide-elementsattrs-if-larger=16", "-o", "-"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        raise LayersError("strata-compile --compile-to=%s %s failed: %s" % (
            phase, onnx_path, proc.stderr.strip()[-2000:]))
    return proc.stdout


def run_strata(args, cell, trace_path):
    tools = run.kernel_bench.tools(args.build)
    cmd = [tools["benchmark"], "--module=" + cell["vmfb"],
           "--input=@" + cell["input_npy"],
           "--task_workers=%d" % cell["threads"], "--warmup=3",
           "--repetitions=%d" % args.calls, "--trace=" + trace_path]
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        raise LayersError("%s failed: %s" % (" ".join(cmd),
                                             proc.stderr.strip()))
    try:
        with open(trace_path) as f:
            trace = json.load(f)
    except (OSError, ValueError) as e:
        raise LayersError("cannot read the trace %s: %s" % (trace_path, e))
    return strata_calls(trace, cell["sites_per_name"], skip=3)


def read_ort_profile(prefix):
    files = sorted(glob.glob(prefix + "*.json"))
    if not files:
        raise LayersError("ONNX Runtime wrote no profile at %s*.json" %
                          prefix)
    try:
        with open(files[-1]) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise LayersError("cannot read the ONNX Runtime profile %s: %s" % (
            files[-1], e))


def build_rows(cell, strata_per_call, ort_per_run, ort_info, optimized,
               statistic=statistics.median):
    sites = cell["sites"]
    site_nodes = {}
    seen = {}
    for name, nodes in sites:
        site_nodes[(name, seen.get(name, 0))] = nodes
        seen[name] = seen.get(name, 0) + 1
    ours = [Item(key[0], value, site_nodes.get(key, ()),
                 strata_signature(key[0]))
            for key, value in medians(strata_per_call, statistic)]
    theirs = []
    for key, value in medians(ort_per_run, statistic):
        args = ort_info.get(key, {})
        nodes = ort_node_sources(key[0], args.get("op_name"),
                                 cell["node_names"], cell["producers"])
        graph, present = optimized
        if key[0] in graph:
            nodes |= covered_nodes(*graph[key[0]], cell["node_names"],
                                   cell["producers"], present)
        theirs.append(Item(key[0], value, nodes, ort_signature(args)))
    return pair(ours, theirs)


ISA_FLAGS = ("avx2", "fma", "avx512f", "avx512_vnni", "avx_vnni",
             "avx512_bf16", "avx512_fp16", "amx_bf16", "amx_int8")


def lscpu_header():
    """The CPU's model name and vector ISA flags as lscpu gives them
    (run.py's reading of /proc/cpuinfo without lscpu)."""
    try:
        text = subprocess.run(["lscpu"], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True,
                              timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        text = ""
    fields = dict(line.split(":", 1) for line in text.splitlines()
                  if ":" in line)
    model = fields.get("Model name", "").strip() or run.cpu_name()
    flags = fields.get("Flags", "").split()
    isa = [f for f in ISA_FLAGS if f in flags]
    return "%s (%s%s)" % (model, run.cpu_isa(),
                          "; lscpu flags: " + " ".join(isa) if isa else "")


def parse_list(text, what, allowed=None, number=False):
    values = [v for v in text.split(",") if v]
    if not values:
        raise LayersError("--%s is empty" % what)
    if number:
        try:
            values = [int(v) for v in values]
        except ValueError:
            raise LayersError("--%s takes positive integers, got %r" % (
                what, text))
        if min(values) < 1:
            raise LayersError("--%s takes positive integers, got %r" % (
                what, text))
    if allowed is not None:
        for v in values:
            if v not in allowed:
                raise LayersError("unknown model %s (known: %s)" % (
                    v, ", ".join(allowed)))
    return values


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="\n\n".join(__doc__.split("\n\n")[1:]),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=os.path.join(run.ROOT, "build"))
    parser.add_argument("--work", default=None,
                        help="models and modules (default BUILD/bench/models)")
    parser.add_argument("--models", default=",".join(run.MODELS))
    parser.add_argument("--batches", default="1,8")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--calls", type=int, default=10,
                        help="traced calls per side per round")
    parser.add_argument("--top", type=int, default=10,
                        help="losses listed per cell")
    parser.add_argument("--all", action="store_true",
                        help="also list every paired row")
    parser.add_argument("--statistic", choices=("median", "min"),
                        default="median",
                        help="per row and wall over all calls of all "
                        "rounds: the median (the default) or the minimum, "
                        "which load from other processes disturbs least")
    parser.add_argument("--ort-modules", default=os.environ.get(
        "STRATA_ORT_MODULES", os.path.expanduser(
            "~/.cache/strata-peers/node_modules")))
    args = parser.parse_args(argv)
    try:
        models = parse_list(args.models, "models",
                            run.MODELS + run.INT8_MODELS + run.QOP_MODELS)
        batches = parse_list(args.batches, "batches", number=True)
        threads_list = parse_list(args.threads, "threads", number=True)
        if min(args.rounds, args.calls, args.top) < 1:
            raise LayersError("--rounds, --calls and --top take positive "
                              "numbers")
        if not os.path.isdir(os.path.join(args.ort_modules,
                                          "onnxruntime-node")):
            raise LayersError("no onnxruntime-node under %s (run "
                              "bench/models/setup_peers.sh)" %
                              args.ort_modules)
        for tool in run.kernel_bench.tools(args.build).values():
            if not os.access(tool, os.X_OK):
                raise LayersError("%s is missing: build first, or pass "
                                  "--build" % tool)
        return measure(args, models, batches, threads_list)
    except LayersError as e:
        print("layers.py: %s" % e, file=sys.stderr)
        return 1


def measure(args, models, batches, threads_list):
    args.work = args.work or os.path.join(args.build, "bench", "models")
    # run.prepare's options, unused here
    args.alt_target_cpu = None
    args.alt_compiler = None
    os.makedirs(args.work, exist_ok=True)
    # Traces, profiles and ONNX Runtime's optimized models.
    with tempfile.TemporaryDirectory(prefix="layers-") as scratch:
        return measure_in(args, models, batches, threads_list, scratch)


def measure_in(args, models, batches, threads_list, scratch):
    cells = []
    for name in models:
        for batch in batches:
            onnx_path, vmfb, input_npy, input_bin, dims = run.prepare(
                args, name, batch)
            node_names, producers = onnx_graph_names(onnx_path)
            sites, aligned = dispatch_sites(
                phase_text(args, onnx_path, "flow"),
                phase_text(args, onnx_path, "stream"), node_names, producers)
            if not aligned:
                print("note: %s batch %d: the flow and stream phases' "
                      "dispatch sites differ; a shared executable's rows "
                      "name the nodes of its site's location only" % (
                          name, batch))
            per_name = {}
            for site, _ in sites:
                per_name[site] = per_name.get(site, 0) + 1
            optimized = os.path.join(scratch, "%s_b%d.ort.onnx" % (
                name, batch))
            for threads in threads_list:
                key = "%s_b%d_t%d" % (name, batch, threads)
                cells.append({
                    "key": key, "model": name, "batch": batch,
                    "threads": threads, "onnx": onnx_path, "vmfb": vmfb,
                    "input_npy": input_npy, "input_bin": input_bin,
                    "dims": dims, "sites": sites, "sites_per_name": per_name,
                    "node_names": node_names, "producers": producers,
                    "profile": os.path.join(scratch, key),
                    # ONNX Runtime's graph does not depend on the threads.
                    "optimized": optimized,
                    "write_optimized": threads == threads_list[0],
                    "strata": [], "strata_walls": []})

    peer = run.OrtPeer(args.ort_modules)
    try:
        for cell in cells:
            peer.load(cell["key"], cell["onnx"], cell["input_bin"],
                      cell["dims"], cell["threads"], cell["profile"],
                      cell["optimized"] if cell["write_optimized"] else None)
        for _ in range(args.rounds):
            for cell in cells:
                run.settle()
                calls, walls = run_strata(
                    args, cell, os.path.join(scratch, "trace.json"))
                cell["strata"] += calls
                cell["strata_walls"] += walls
                run.settle()
                peer.run(cell["key"], args.calls)
        for cell in cells:
            peer.ask("endprofile " + cell["key"])
    except RuntimeError as e:
        raise LayersError(str(e))
    finally:
        peer.close()

    statistic = statistics.median if args.statistic == "median" else min
    print("bench/models/layers.py: %s, %s; %d interleaved rounds of %d "
          "calls per side, %s; load average %s" % (
              lscpu_header(), time.strftime("%Y-%m-%d %H:%M"),
              args.rounds, args.calls,
              "medians" if args.statistic == "median" else "minima",
              run.kernel_bench.load_average()))
    print("ms per call; ratio and delta are Strata against ONNX Runtime; "
          "'by': names = ONNX node names from the compiler's locations, "
          "shape = op kind and output shape in execution order")
    graphs = {}
    for cell in cells:
        per_run, ort_walls, info = ort_runs(read_ort_profile(
            cell["profile"]))
        if cell["optimized"] not in graphs:
            graphs[cell["optimized"]] = optimized_graph(cell["optimized"])
        rows = build_rows(cell, cell["strata"], per_run, info,
                          graphs[cell["optimized"]], statistic)
        report("%s batch %d, %d thread(s)" % (
            cell["model"], cell["batch"], cell["threads"]), rows, args.top,
            (statistic(cell["strata_walls"]), statistic(ort_walls)),
            args.all)
    return 0


if __name__ == "__main__":
    sys.exit(main())
