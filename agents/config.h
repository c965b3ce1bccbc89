/// \file
/// Reading an agent's JSON config: typed fields with named defaults; unknown keys are
/// rejected with their JSON path so a typo never silently falls back to a default.
#pragma once
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "libs/core/status.h"

namespace lw {

class ConfigReader {
 public:
  /// `agent` names the config in errors: "qlearning config: /alpha: expected a number".
  ConfigReader(const std::string& agent, const std::string& text);
  Status status() const { return status_; }

  void number(const char* key, double* out);
  void integer(const char* key, int* out, int lo, int hi);
  void text(const char* key, std::string* out);
  /// Every key read so far is known; any other is an error. Returns the first error.
  Status finish();
  /// The resolved config (defaults included), compact JSON.
  std::string resolved() const { return resolved_.dump(); }

 private:
  std::string agent_;
  nlohmann::json j_;
  nlohmann::json resolved_ = nlohmann::json::object();
  std::set<std::string> known_;
  Status status_;
};

}  // namespace lw
