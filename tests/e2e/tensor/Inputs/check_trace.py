"""Checks a Chrome trace written by strata-run --trace.

Usage: check_trace.py [--inline] TRACE.json FUNCTION DISPATCH:WORKGROUPS...
(WORKGROUPS "*": whatever the recorded grid holds, for a dispatch whose
grid depends on a size known at run time).
Fails (exit 1, with the reason) unless the file parses as JSON and holds
one invocation of FUNCTION on the host track, at least one queue.execute on
the queue track and one fence.wait on the host track (with --inline, every
wait found its fences reached: local-sync runs the work inside the
submission, so nothing is left to wait for), and for each named
dispatch, events on worker tracks whose workgroup counts add up to its
grid's total; every track used is named.
"""
import json
import sys


def fail(message):
    print(f"check_trace: {message}")
    sys.exit(1)


def main():
    args = sys.argv[1:]
    inline = args[0] == "--inline"
    if inline:
        args = args[1:]
    path, function, *dispatches = args
    with open(path) as f:
        trace = json.load(f)
    events = trace["traceEvents"]
    complete = [e for e in events if e.get("ph") == "X"]
    for e in complete:
        if e["dur"] < 0 or e["ts"] < 0:
            fail(f"negative time in {e}")
    named = {e["tid"] for e in events
             if e.get("ph") == "M" and e["name"] == "thread_name"}
    for e in complete:
        if e["tid"] not in named:
            fail(f"track {e['tid']} of {e['name']} has no thread_name")
    invocations = [e for e in complete
                   if e["cat"] == "invocation" and e["name"] == function]
    if len(invocations) != 1 or invocations[0]["tid"] != 1:
        fail(f"expected one invocation of {function} on the host track, "
             f"got {invocations}")
    if not any(e["name"] == "queue.execute" and e["tid"] == 2
               for e in complete):
        fail("no queue.execute on the queue track")
    waits = [e for e in complete if e["name"] == "fence.wait"]
    if not inline and not any(e["tid"] == 1 for e in waits):
        fail("no fence.wait on the host track")
    blocked = [e for e in waits if not e.get("args", {}).get("reached")]
    if inline and blocked:
        fail(f"local-sync waited: {blocked}")
    for spec in dispatches:
        name, total = spec.rsplit(":", 1)
        shares = [e for e in complete
                  if e["cat"] == "dispatch" and e["name"] == name]
        if not shares:
            fail(f"no event for dispatch {name}")
        if any(e["tid"] < 16 for e in shares):
            fail(f"dispatch {name} recorded off the worker tracks")
        ran = sum(e["args"]["workgroups"] for e in shares)
        grid = shares[0]["args"]["grid"]
        if total == "*":
            total = grid[0] * grid[1] * grid[2]
        if ran != int(total):
            fail(f"dispatch {name}: workers ran {ran} workgroups, "
                 f"grid has {total}")
        if grid[0] * grid[1] * grid[2] != int(total):
            fail(f"dispatch {name}: grid {grid} is not {total} workgroups")
    print(f"check_trace: {len(complete)} events OK")


main()
