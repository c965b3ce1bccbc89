#include "explorer/measure/recheck.h"

#include <algorithm>

namespace lw {

ProfileOptions recheck_options(const ProfileOptions& base, const Lut& lut) {
  ProfileOptions o = base;
  o.protocol.age_streamed_weights &= lut.protocol_json.find("\"streamed_weights_age\"") != std::string::npos;
  o.protocol.inputs_from_writers &= lut.protocol_json.find("\"inputs_start_in\"") != std::string::npos;
  o.protocol.streamed_outputs &= lut.protocol_json.find("\"streamed_outputs\"") != std::string::npos;
  o.protocol.warm_call_path &= lut.protocol_json.find("\"library_call_path\"") != std::string::npos;
  // The LUT's own duration (none in LUTs before the evening of 2026-12-02).
  const nlohmann::json proto = nlohmann::json::parse(lut.protocol_json, nullptr, false);
  o.protocol.computing_us = proto.is_object() ? proto.value("computing_us", 0.0) : 0.0;
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
