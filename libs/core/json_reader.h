/// \file
/// Reading JSON input files (networks, LUTs, experiment configs) with errors that name the
/// file and the JSON path (RFC 6901 pointer) on one line: "<file>: /layers/3/kernel: why".
/// Unknown keys are rejected so that typos never pass silently.
#pragma once
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "libs/core/status.h"

namespace lw {

class JsonReader {
 public:
  explicit JsonReader(std::string origin) : origin_(std::move(origin)) {}
  const std::string& origin() const { return origin_; }

  /// Parses text; a syntax error names the byte offset.
  Status parse(const std::string& text, nlohmann::json* out) const;
  Status err(const std::string& path, const std::string& why) const;
  /// `j` must be an object whose keys are all in `allowed`.
  Status keys(const nlohmann::json& j, const std::string& path, const std::set<std::string>& allowed) const;

  // Optional fields keep *out when the key is absent, unless `required`.
  Status integer(const nlohmann::json& j, const std::string& key, const std::string& path, int* out,
                 bool required = false) const;
  Status number(const nlohmann::json& j, const std::string& key, const std::string& path, double* out,
                bool required = false) const;
  Status boolean(const nlohmann::json& j, const std::string& key, const std::string& path, bool* out) const;
  Status string(const nlohmann::json& j, const std::string& key, const std::string& path, std::string* out,
                bool required = false) const;
  Status strings(const nlohmann::json& j, const std::string& key, const std::string& path,
                 std::vector<std::string>* out) const;
  Status integers(const nlohmann::json& j, const std::string& key, const std::string& path,
                  std::vector<int>* out) const;

 private:
  std::string origin_;
};

}  // namespace lw
