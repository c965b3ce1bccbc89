#!/bin/bash
# Issue 16 item 3 (and issue 12's ratios) on a Zen 3 VM with HEAD's code: ../../zen4-today/run.sh
# (fresh LUTs of the five bench models, three rounds of bench --recheck --steps at 1 and 2
# threads) with Ref-FP32 among the labels. Needs /tmp/q/link (../../zen4-today/link.sh, which
# says how to build the probe it runs).
# usage: run.sh OUT   (ran as run.sh /tmp/q/z3, 2026-11-29, 03:39-04:31 UTC)
LABELS=ref-fp32,opt-fp32,opt-int8,opt-mixed exec bash "$(dirname "$0")/../../zen4-today/run.sh" "$@"
