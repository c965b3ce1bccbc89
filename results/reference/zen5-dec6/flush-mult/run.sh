#!/bin/bash
# A probe, not landed: the profiler's flush before each timed run (env/profiler_warm.cc
# flush_bytes_for) with the network's weights and arena counted MULT times, in an experiment
# build: `static const int64_t mult = getenv("LW_EXP_FLUSH_MULT") ? atoi(getenv("LW_EXP_FLUSH_MULT")) : 1;`
# and `mult * net_weights_, mult * net_arena_` in its cold_flush_bytes call. SqueezeNet 1.1,
# 1 thread: profile, then bench with --recheck (timed under the same flush) and --steps; MULT 1, 3, 1, 3.
set -u
L=${LW:-/tmp/q/layerwise.exp}
for r in 1 2; do for m in 1 3; do d=m$m.r$r; mkdir -p $d/luts
  LW_EXP_FLUSH_MULT=$m $L profile --model squeezenet1_1 --out $d/luts/squeezenet1_1.lut.json --libs native,openblas,xnnpack,onednn --threads 1 --quiet > $d/profile.out 2>&1
  LW_EXP_FLUSH_MULT=$m $L bench --lut-dir $d/luts --models squeezenet1_1 --threads 1 --repeats 15 --labels ref-fp32,opt-fp32,opt-int8 --recheck --steps $d/steps.csv --out $d/b.csv --md $d/b.md --quiet > /dev/null 2> $d/bench.err
done; done
