#!/usr/bin/env python3
"""Residuals of the LUT's predictions against `layerwise bench` measurements (issue 16 item 3).

usage: scripts/bench_residuals.py bench.csv steps.csv [--top 5]

Per deployment: the prediction, the end-to-end median and the thread's CPU time (a shared
machine preempts the run: CPU time is the latency without the waiting), their gaps, then the
split of the gap into steps (sum of step medians vs the LUT's figure for the same steps) and
the executor's overhead (run time minus its steps: the input / output copies, now modelled
in the LUT's `runtime`, and the step loop), the step-timed run end to end and the sum of the
steps' means (in CSVs since 2026-11-25: a plain run slower than the timed one, or a sum of
means above the sum of medians, is time a sum of LUT medians cannot show). --top lists the steps with the largest residual.
--pools splits a 2-thread deployment's steps into those whose cpu1 pool (oneDNN's OpenMP,
XNNPACK's pthreadpool, our native worker for native and OpenBLAS steps and conversions) ran the step
before ("same pool": its workers were awake) and those that hand cpu1 over from another
pool or from a 1-thread step ("hand-off": the executor parked the other pool, this one's
workers must wake), LUT vs measured for each.
Only the standard library: runs with any python3.
"""
import argparse
import collections
import csv


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bench")
    ap.add_argument("steps")
    ap.add_argument("--top", type=int, default=0)
    ap.add_argument("--pools", action="store_true")
    a = ap.parse_args()
    rows = list(csv.DictReader(open(a.bench)))
    steps = collections.defaultdict(list)
    for s in csv.DictReader(open(a.steps)):
        steps[(s["model"], s["threads"], s["deployment"])].append(s)
    print("| model | t | deployment | predicted | measured | gap % | CPU | CPU gap % | LUT of steps | steps | overhead "
          "| timed run | steps' means |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        if r["status"] != "ok":
            continue
        k = (r["model"], r["threads"], r["deployment"])
        st = steps[k]
        p, m, c = float(r["predicted_ms"]), float(r["measured_ms"]), float(r["cpu_ms"])
        lut = sum(float(s["lut_ms"]) for s in st if float(s["lut_ms"]) >= 0)
        meas = sum(float(s["measured_ms"]) for s in st)
        # CSVs from before 2026-11-25 have neither the step-timed run's median nor step means.
        timed = f"{float(r['timed_ms']):.3f}" if r.get("timed_ms") else "-"
        means = f"{sum(float(s['mean_ms']) for s in st):.3f}" if st and st[0].get("mean_ms") else "-"
        print(f"| {k[0]} | {k[1]} | {k[2]} | {p:.3f} | {m:.3f} | {100 * (m - p) / p:+.1f} | {c:.3f} | "
              f"{100 * (c - p) / p:+.1f} | {lut:.3f} | {meas:.3f} | {float(r['overhead_ms']):.3f} | {timed} | {means} |")
        if a.pools and k[1] == "2":
            print(pool_split(st))
        if a.top:
            worst = sorted(st, key=lambda s: -(float(s["measured_ms"]) - max(0.0, float(s["lut_ms"]))))[: a.top]
            for s in worst:
                print(f"|  |  | step {s['step']} {s['name']} | {float(s['lut_ms']):.3f} | {float(s['measured_ms']):.3f} | "
                      f"{float(s['measured_ms']) - float(s['lut_ms']):+.3f} ms | | | | | | | |")


def pool_of(step):
    """The cpu1 pool of a 2-thread step, None for a 1-thread one: the steps CSV's pool column
    where it has one (what the executor ran it on), else read from the name (older CSVs, from
    when native kernels always ran on our worker)."""
    if step.get("pool"):
        return None if step["pool"] == "caller" else step["pool"]
    name = step["name"]
    if not name.endswith("_t2"):
        return None
    if step["conversion"] == "1":
        # As libs/ops/descriptor.cc conversion_pool: only a conversion that moves data runs on
        # the native pool; a relabel from one thread set to the other is a no-op on the caller.
        src, _, dst = name[len("convert_"):].partition("_to_")  # "<layout>_<dtype>_t<n>" each
        return "native" if src.rsplit("_", 1)[0] != dst.rsplit("_", 1)[0] else None
    for lib in ("onednn", "xnnpack", "torch"):
        if "_" + lib + "_" in name:
            return "openmp" if lib in ("onednn", "torch") else lib
    return "native"  # native kernels and OpenBLAS, whose 2-thread GEMMs run on the native worker


def pool_split(steps):
    acc = {"same pool": [0, 0.0, 0.0], "hand-off": [0, 0.0, 0.0]}
    prev = None
    for s in steps:
        pool = pool_of(s)
        if pool is not None:
            a = acc["same pool" if pool == prev else "hand-off"]
            a[0] += 1
            a[1] += max(0.0, float(s["lut_ms"]))
            a[2] += float(s["measured_ms"])
        prev = pool
    return "".join(f"|  |  | {k}: {n} steps | {l:.3f} | {m:.3f} | {m - l:+.3f} ms | | | | | | | |\n"
                   for k, (n, l, m) in acc.items()).rstrip("\n")


if __name__ == "__main__":
    main()
