/// \file
/// The measurement-protocol options every measuring command shares (profile, bench):
/// --warmup, --runs, --max-runs, --cv, --max-seconds, --warm-cache, --no-weight-age,
/// --no-streamed-outputs, --cold-call-path, --computing-us, --in-network; and those of a
/// profile (--exhaustive, --median-ci, --early-stop, --far-wait).
#pragma once
#include <algorithm>

#include "env/measure.h"
#include "explorer/cli/cli.h"

namespace lw::cli {

/// `base`: the protocol the flags start from.
inline Protocol protocol_from_args(const Args& args, Protocol p = Protocol{}) {
  p.warmup = args.get_int("warmup", p.warmup);
  p.runs = args.get_int("runs", p.runs);
  p.max_runs = std::max(p.runs, args.get_int("max-runs", p.max_runs));
  p.cv_threshold = args.get_double("cv", p.cv_threshold);
  p.max_seconds = args.get_double("max-seconds", p.max_seconds);
  p.cold_cache = !args.flag("warm-cache");
  p.age_streamed_weights = !args.flag("no-weight-age");
  p.streamed_outputs = !args.flag("no-streamed-outputs");
  p.warm_call_path = !args.flag("cold-call-path");
  p.computing_us = args.get_double("computing-us", p.computing_us);
  if (p.computing_us < 0 || p.computing_us > 1e6) throw UsageError("--computing-us must be 0 ... 1000000");
  if (p.runs < 1 || p.warmup < 0) throw UsageError("--runs must be >= 1 and --warmup >= 0");
  return p;
}

/// The protocol a profile runs with (`profile`, and `bench` when it profiles): the quick one
/// unless --exhaustive, then the flags above and --median-ci, --early-stop, --far-wait.
inline Protocol profiling_protocol_from_args(const Args& args) {
  Protocol p = protocol_from_args(args, protocol_base(args.flag("exhaustive") ? kExhaustiveProtocol : kQuickProtocol));
  p.median_ci = args.get_double("median-ci", p.median_ci);
  p.early_stop_margin = args.get_double("early-stop", p.early_stop_margin);
  p.far_cores_wait_s = args.get_double("far-wait", p.far_cores_wait_s);
  if (p.early_stop_margin < 0 || p.median_ci < 0 || p.far_cores_wait_s < 0)
    throw UsageError("--early-stop, --median-ci and --far-wait must be >= 0 (0: off)");
  return p;
}

/// --in-network R (`profile`, `bench`): rounds per deployment when the profiled LUT's
/// contenders are then timed in the network (explorer/measure/in_network.h); 0 (default): off.
inline int in_network_rounds_arg(const Args& args) {
  const int rounds = args.get_int("in-network", 0);
  if (rounds != 0 && rounds < 3) throw UsageError("--in-network: at least 3 rounds (0: off)");
  return rounds;
}

}  // namespace lw::cli
