#include "explorer/measure/recheck.h"

#include <algorithm>

namespace lw {

ProfileOptions recheck_options(const ProfileOptions& base, const Lut& lut) {
  ProfileOptions o = base;
  nlohmann::json proto = nlohmann::json::parse(lut.protocol_json, nullptr, false);
  if (!proto.is_object()) proto = nlohmann::json::object();  // (no key: none of the below)
  Protocol& p = o.protocol;
  p.age_streamed_weights &= proto.contains("streamed_weights_age");
  p.inputs_from_writers &= proto.contains("inputs_start_in");
  p.streamed_outputs &= proto.contains("streamed_outputs");
  p.warm_call_path &= proto.contains("library_call_path");
  // The LUT's own duration (none in LUTs before the evening of 2026-12-02) and share.
  p.computing_us = proto.value("computing_us", 0.0);
  p.big_weights_share = proto.value("weights_aged_from_shared_cache", 0.0);
  // The LUT's run counts: an exhaustive LUT rechecked with the command's quick counts would
  // compare medians of 5-20 runs with medians of 20-100. Absent keys keep the command's.
  p.warmup = proto.value("warmup", p.warmup);
  p.runs = proto.value("runs", p.runs);
  p.cv_threshold = proto.value("cv_threshold", p.cv_threshold);
  p.max_runs = proto.value("max_runs", p.max_runs);
  p.max_seconds = proto.value("max_seconds", p.max_seconds);
  p.median_ci = proto.value("median_ci", 0.0);  // absent when the profile had none
  return o;
}

std::vector<std::pair<int, std::string>> layer_impls_of(const Executor& ex) {
  std::vector<std::pair<int, std::string>> which;
  for (const ExecStep& s : ex.steps())
    if (!s.conversion && s.layer > 0) which.emplace_back(s.layer, s.name);
  std::sort(which.begin(), which.end());
  which.erase(std::unique(which.begin(), which.end()), which.end());
  return which;
}

std::vector<std::pair<int, std::string>> slice_of(const std::vector<std::pair<int, std::string>>& which, int part,
                                                  int parts) {
  if (parts < 1 || part < 0 || part >= parts) return {};
  const size_t from = which.size() * size_t(part) / size_t(parts), to = which.size() * size_t(part + 1) / size_t(parts);
  return {which.begin() + long(from), which.begin() + long(to)};
}

}  // namespace lw
