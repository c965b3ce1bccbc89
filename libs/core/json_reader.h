/// \file
/// The one way the project reads JSON input (experiment and sweep configs, agent
/// hyperparameters, network files): a reader walks one object and reads it as it goes.
/// Each call names a key once, checks its type and range in the same call, keeps the
/// caller's default when the key is absent, and echoes the value (given or default) into
/// resolved(); finish() rejects every key no call asked for, so a typo never silently falls
/// back to a default. Errors are one line naming the file and the JSON path (RFC 6901):
/// "exp.json: /filter/candidates: expected an integer in [1, 10000]". The first error wins;
/// later calls do nothing.
///
/// The same reading function also writes a config: run it in echo mode (JsonReader::echo)
/// on a filled struct and resolved() is that struct as JSON, so each key is spelled once.
#pragma once
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "libs/core/status.h"

namespace lw {

class JsonReader {
 public:
  /// Parses `text` (the whole of `origin`); a syntax error names the byte offset.
  static Status parse(const std::string& origin, const std::string& text, nlohmann::json* out);
  /// Reads the object `j` found at JSON path `path` of `origin`.
  JsonReader(std::string origin, const nlohmann::json& j, std::string path = "");
  /// A reader of nothing that echoes what the struct holds (required keys are not missing).
  static JsonReader echo(std::string origin = "echo");

  void integer(const char* key, int* out, int lo, int hi, bool required = false);
  void integer(const char* key, int64_t* out, int64_t lo, int64_t hi, bool required = false);
  void uint64(const char* key, uint64_t* out, bool required = false);
  /// Finite numbers only; hi = infinity means "no upper bound".
  void number(const char* key, double* out, double lo, double hi, bool required = false);
  void boolean(const char* key, bool* out);
  void text(const char* key, std::string* out, bool required = false);
  /// An optional path or name ("" = none): like text(), echoed only when not empty.
  void optional_text(const char* key, std::string* out);
  void texts(const char* key, std::vector<std::string>* out);
  void integers(const char* key, std::vector<int>* out, int lo, int hi);
  /// A nested object read by `read` with a reader of its own; echoed under `key`.
  void object(const char* key, const std::function<void(JsonReader&)>& read);
  /// A value the caller reads itself (arrays of objects, unions): nullptr when absent or
  /// after an error. The caller echoes it with echo_value() and reports errors with fail().
  const nlohmann::json* value(const char* key, bool required = false);
  void echo_value(const char* key, nlohmann::json v) { resolved_[key] = std::move(v); }
  /// Records an error at `rel` below this object's path ("" = the object, "/x/3" = deeper).
  void fail(const std::string& rel, const std::string& why);
  /// A reader of element `i` of the array at `key` (for arrays of objects); its finish()
  /// goes back through adopt().
  JsonReader element(const char* key, size_t i) const;
  /// Keeps `s` as this reader's error unless it has one already (a child reader's finish()).
  void adopt(const Status& s) {
    if (status_.is_ok() && !echo_) status_ = s;
  }

  bool ok() const { return status_.is_ok(); }
  /// The first error so far, including unknown keys.
  Status finish();
  const nlohmann::json& resolved() const { return resolved_; }
  const std::string& origin() const { return origin_; }
  const std::string& path() const { return path_; }

 private:
  const nlohmann::json* take(const char* key, bool required);
  std::string at(const std::string& rel) const { return path_ + rel; }

  std::string origin_, path_;
  nlohmann::json j_;
  bool echo_ = false;
  bool missing_ = false;  // the error is a missing required key
  nlohmann::json resolved_ = nlohmann::json::object();
  std::set<std::string> known_;
  Status status_;
};

}  // namespace lw
