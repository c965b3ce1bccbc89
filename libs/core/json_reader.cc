#include "libs/core/json_reader.h"

namespace lw {

using json = nlohmann::json;

Status JsonReader::parse(const std::string& text, json* out) const {
  try {
    *out = json::parse(text);
  } catch (const json::parse_error& e) {
    return parse_error(origin_ + ": byte " + std::to_string(e.byte) + ": malformed or truncated JSON");
  } catch (const json::exception& e) {  // e.g. a number too large for a double (found by fuzzing)
    return parse_error(origin_ + ": not valid JSON: " + e.what());
  }
  return Status::ok();
}

Status JsonReader::err(const std::string& path, const std::string& why) const {
  return parse_error(origin_ + ": " + (path.empty() ? "/" : path) + ": " + why);
}

Status JsonReader::keys(const json& j, const std::string& path, const std::set<std::string>& allowed) const {
  if (!j.is_object()) return err(path, "expected an object");
  for (auto it = j.begin(); it != j.end(); ++it)
    if (!allowed.count(it.key())) return err(path + "/" + it.key(), "unknown key");
  return Status::ok();
}

Status JsonReader::integer(const json& j, const std::string& key, const std::string& path, int* out, bool required) const {
  if (!j.contains(key)) return required ? err(path + "/" + key, "missing") : Status::ok();
  if (!j[key].is_number_integer()) return err(path + "/" + key, "expected an integer");
  *out = j[key].get<int>();
  return Status::ok();
}

Status JsonReader::number(const json& j, const std::string& key, const std::string& path, double* out, bool required) const {
  if (!j.contains(key)) return required ? err(path + "/" + key, "missing") : Status::ok();
  if (!j[key].is_number()) return err(path + "/" + key, "expected a number");
  *out = j[key].get<double>();
  return Status::ok();
}

Status JsonReader::boolean(const json& j, const std::string& key, const std::string& path, bool* out) const {
  if (!j.contains(key)) return Status::ok();
  if (!j[key].is_boolean()) return err(path + "/" + key, "expected true or false");
  *out = j[key].get<bool>();
  return Status::ok();
}

Status JsonReader::string(const json& j, const std::string& key, const std::string& path, std::string* out,
                          bool required) const {
  if (!j.contains(key)) return required ? err(path + "/" + key, "missing") : Status::ok();
  if (!j[key].is_string()) return err(path + "/" + key, "expected a string");
  *out = j[key].get<std::string>();
  return Status::ok();
}

Status JsonReader::strings(const json& j, const std::string& key, const std::string& path,
                           std::vector<std::string>* out) const {
  if (!j.contains(key)) return Status::ok();
  if (!j[key].is_array()) return err(path + "/" + key, "expected an array of strings");
  std::vector<std::string> v;
  for (size_t i = 0; i < j[key].size(); ++i) {
    if (!j[key][i].is_string()) return err(path + "/" + key + "/" + std::to_string(i), "expected a string");
    v.push_back(j[key][i].get<std::string>());
  }
  *out = std::move(v);
  return Status::ok();
}

Status JsonReader::integers(const json& j, const std::string& key, const std::string& path, std::vector<int>* out) const {
  if (!j.contains(key)) return Status::ok();
  if (!j[key].is_array()) return err(path + "/" + key, "expected an array of integers");
  std::vector<int> v;
  for (size_t i = 0; i < j[key].size(); ++i) {
    if (!j[key][i].is_number_integer()) return err(path + "/" + key + "/" + std::to_string(i), "expected an integer");
    v.push_back(j[key][i].get<int>());
  }
  *out = std::move(v);
  return Status::ok();
}

}  // namespace lw
