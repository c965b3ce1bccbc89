#include "libs/core/json_reader.h"

#include <cmath>

namespace lw {

using json = nlohmann::json;

namespace {
std::string range_error(double lo, double hi, const json& got) {
  if (std::isinf(hi)) return "must be >= " + json(lo).dump() + ", got " + got.dump();
  return "must be in [" + json(lo).dump() + ", " + json(hi).dump() + "], got " + got.dump();
}
}  // namespace

Status JsonReader::parse(const std::string& origin, const std::string& text, json* out) {
  try {
    *out = json::parse(text);
  } catch (const json::parse_error& e) {
    return parse_error(origin + ": byte " + std::to_string(e.byte) + ": malformed or truncated JSON");
  } catch (const json::exception& e) {  // e.g. a number too large for a double (found by fuzzing)
    return parse_error(origin + ": not valid JSON: " + e.what());
  }
  return Status::ok();
}

JsonReader::JsonReader(std::string origin, const json& j, std::string path)
    : origin_(std::move(origin)), path_(std::move(path)), j_(j) {
  if (!j_.is_object()) fail("", "expected an object");
}

JsonReader JsonReader::echo(std::string origin) {
  JsonReader r(std::move(origin), json::object());
  r.echo_ = true;
  return r;
}

void JsonReader::fail(const std::string& rel, const std::string& why) {
  if (!status_.is_ok() || echo_) return;  // echo: the struct was checked when it was read
  std::string p = at(rel);
  status_ = parse_error(origin_ + ": " + (p.empty() ? "/" : p) + ": " + why);
}

const json* JsonReader::take(const char* key, bool required) {
  known_.insert(key);
  if (!status_.is_ok() || !j_.is_object()) return nullptr;
  auto it = j_.find(key);
  if (it == j_.end()) {
    if (required && !echo_) {
      fail(std::string("/") + key, "missing");
      missing_ = true;
    }
    return nullptr;
  }
  return &*it;
}

const json* JsonReader::value(const char* key, bool required) { return take(key, required); }

void JsonReader::integer(const char* key, int* out, int lo, int hi, bool required) {
  int64_t v = *out;
  integer(key, &v, lo, hi, required);
  *out = int(v);  // in [lo, hi], or unchanged
}

void JsonReader::integer(const char* key, int64_t* out, int64_t lo, int64_t hi, bool required) {
  if (const json* v = take(key, required)) {
    if (!v->is_number_integer())
      fail(std::string("/") + key, "expected an integer");
    else if (v->get<int64_t>() < lo || v->get<int64_t>() > hi)
      fail(std::string("/") + key, "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " + v->dump());
    else
      *out = v->get<int64_t>();
  }
  resolved_[key] = *out;
}

void JsonReader::uint64(const char* key, uint64_t* out, bool required) {
  if (const json* v = take(key, required)) {
    if (!v->is_number_unsigned())
      fail(std::string("/") + key, "expected a non-negative integer");
    else
      *out = v->get<uint64_t>();
  }
  resolved_[key] = *out;
}

void JsonReader::number(const char* key, double* out, double lo, double hi, bool required) {
  if (const json* v = take(key, required)) {
    if (!v->is_number() || !std::isfinite(v->get<double>()))
      fail(std::string("/") + key, "expected a number");
    else if (v->get<double>() < lo || v->get<double>() > hi)
      fail(std::string("/") + key, range_error(lo, hi, *v));
    else
      *out = v->get<double>();
  }
  resolved_[key] = *out;
}

void JsonReader::boolean(const char* key, bool* out) {
  if (const json* v = take(key, false)) {
    if (!v->is_boolean())
      fail(std::string("/") + key, "expected true or false");
    else
      *out = v->get<bool>();
  }
  resolved_[key] = *out;
}

void JsonReader::text(const char* key, std::string* out, bool required) {
  if (const json* v = take(key, required)) {
    if (!v->is_string())
      fail(std::string("/") + key, "expected a string");
    else
      *out = v->get<std::string>();
  }
  resolved_[key] = *out;
}

void JsonReader::optional_text(const char* key, std::string* out) {
  text(key, out);
  if (out->empty()) resolved_.erase(key);
}

void JsonReader::texts(const char* key, std::vector<std::string>* out) {
  if (const json* v = take(key, false)) {
    std::vector<std::string> got;
    if (!v->is_array()) fail(std::string("/") + key, "expected an array of strings");
    for (size_t i = 0; ok() && i < v->size(); ++i) {
      if (!(*v)[i].is_string()) fail(std::string("/") + key + "/" + std::to_string(i), "expected a string");
      else got.push_back((*v)[i].get<std::string>());
    }
    if (ok()) *out = std::move(got);
  }
  resolved_[key] = *out;
}

void JsonReader::integers(const char* key, std::vector<int>* out, int lo, int hi) {
  if (const json* v = take(key, false)) {
    std::vector<int> got;
    if (!v->is_array()) fail(std::string("/") + key, "expected an array of integers");
    for (size_t i = 0; ok() && i < v->size(); ++i) {
      const json& e = (*v)[i];
      if (!e.is_number_integer())
        fail(std::string("/") + key + "/" + std::to_string(i), "expected an integer");
      else if (e.get<int64_t>() < lo || e.get<int64_t>() > hi)
        fail(std::string("/") + key + "/" + std::to_string(i), range_error(lo, hi, e));
      else
        got.push_back(e.get<int>());
    }
    if (ok()) *out = std::move(got);
  }
  resolved_[key] = *out;
}

void JsonReader::object(const char* key, const std::function<void(JsonReader&)>& read) {
  const json* v = take(key, false);
  JsonReader child(origin_, v ? *v : json::object(), at(std::string("/") + key));
  child.echo_ = echo_;
  if (ok()) read(child);
  adopt(child.finish());
  resolved_[key] = child.resolved();
}

JsonReader JsonReader::element(const char* key, size_t i) const {
  return JsonReader(origin_, j_.at(key).at(i), at(std::string("/") + key + "/" + std::to_string(i)));
}

// A missing key next to an unknown one is most likely a typo of it: the unknown key is the
// error to show ("/axis: unknown key" rather than "/axes: missing").
Status JsonReader::finish() {
  if ((!status_.is_ok() && !missing_) || !j_.is_object()) return status_;
  for (auto it = j_.begin(); it != j_.end(); ++it)
    if (!known_.count(it.key())) {
      status_ = Status();
      fail("/" + it.key(), "unknown key");
      break;
    }
  return status_;
}

}  // namespace lw
