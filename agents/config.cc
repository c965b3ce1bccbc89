#include "agents/config.h"

#include <cmath>

namespace lw {

ConfigReader::ConfigReader(const std::string& agent, const std::string& text) : agent_(agent) {
  j_ = nlohmann::json::parse(text.empty() ? "{}" : text, nullptr, false);
  if (j_.is_discarded() || !j_.is_object()) status_ = parse_error(agent_ + " config: not a JSON object");
}

void ConfigReader::number(const char* key, double* out) {
  known_.insert(key);
  if (status_.is_ok() && j_.contains(key)) {
    const auto& v = j_[key];
    if (!v.is_number() || !std::isfinite(v.get<double>()))
      status_ = parse_error(agent_ + " config: /" + key + ": expected a number");
    else
      *out = v.get<double>();
  }
  resolved_[key] = *out;
}

void ConfigReader::integer(const char* key, int* out, int lo, int hi) {
  known_.insert(key);
  if (status_.is_ok() && j_.contains(key)) {
    const auto& v = j_[key];
    if (!v.is_number_integer() || v.get<int64_t>() < lo || v.get<int64_t>() > hi)
      status_ = parse_error(agent_ + " config: /" + key + ": expected an integer in [" + std::to_string(lo) + ", " +
                            std::to_string(hi) + "]");
    else
      *out = v.get<int>();
  }
  resolved_[key] = *out;
}

void ConfigReader::text(const char* key, std::string* out) {
  known_.insert(key);
  if (status_.is_ok() && j_.contains(key)) {
    if (!j_[key].is_string())
      status_ = parse_error(agent_ + " config: /" + key + ": expected a string");
    else
      *out = j_[key].get<std::string>();
  }
  resolved_[key] = *out;
}

Status ConfigReader::finish() {
  if (!status_.is_ok()) return status_;
  for (auto it = j_.begin(); it != j_.end(); ++it)
    if (!known_.count(it.key())) return parse_error(agent_ + " config: /" + it.key() + ": unknown key");
  return Status::ok();
}

}  // namespace lw
