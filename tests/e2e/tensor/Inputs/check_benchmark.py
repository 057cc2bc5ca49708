"""Checks strata-benchmark --format=json output (read from stdin).

Usage: check_benchmark.py FUNCTION DEVICE REPETITIONS
Fails unless it parses, names FUNCTION and DEVICE, holds REPETITIONS
positive times, and min <= median <= p90 <= p99 are order statistics of
them.
"""
import json
import sys

function, device, repetitions = sys.argv[1], sys.argv[2], int(sys.argv[3])
result = json.load(sys.stdin)


def fail(message):
    print(f"check_benchmark: {message}: {result}")
    sys.exit(1)


if result["function"] != function or result["device"] != device:
    fail("wrong function or device")
times = result["times_ms"]
if result["repetitions"] != repetitions or len(times) != repetitions:
    fail(f"expected {repetitions} times")
if any(t <= 0 for t in times):
    fail("a time is not positive")
ordered = sorted(times)
stats = [result[k] for k in ("min_ms", "median_ms", "p90_ms", "p99_ms")]
if stats != sorted(stats) or stats[0] != ordered[0] or stats[3] > ordered[-1]:
    fail("statistics out of order")
if any(s not in times for s in stats):
    fail("a statistic is not one of the times")
print(f"check_benchmark: {repetitions} times OK")
