#include "explorer/pipeline/run_dir.h"

#include <algorithm>
#include <ctime>
#include <filesystem>

#include "libs/core/files.h"
#include "libs/core/hash.h"

namespace lw {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

// A run folder's age: "<...>__<YYYYmmdd-HHMMSS>", then make_new_dir's "-N" for runs started
// in the same second (N = 1 without one). Compared as numbers: as text "-10" < "-9".
std::pair<std::string, long> age_of(const std::string& name) {
  constexpr size_t kStamp = 15;  // YYYYmmdd-HHMMSS
  const size_t at = name.rfind("__");
  if (at == std::string::npos || name.size() <= at + 2 + kStamp + 1 || name[at + 2 + kStamp] != '-') return {name, 1};
  const std::string n = name.substr(at + 2 + kStamp + 1);
  if (n.size() > 9 || n.find_first_not_of("0123456789") != std::string::npos) return {name, 1};
  return {name.substr(0, at + 2 + kStamp), std::stol(n)};
}

std::string find_unfinished(const std::string& root, const std::string& hash) {
  std::error_code ec;
  std::string best;
  for (const auto& e : fs::directory_iterator(root, ec)) {
    json st = read_json_file((e.path() / "run.json").string());
    if (st.is_object() && st.value("config_hash", "") == hash && !st.value("complete", false) &&
        !st.contains("superseded_by") &&
        (best.empty() || age_of(fs::path(best).filename().string()) < age_of(e.path().filename().string())))
      best = e.path().string();  // the newest
  }
  return best;
}

}  // namespace

std::string run_id(const std::string& model, const std::vector<std::string>& agents,
                   const std::vector<uint64_t>& seeds) {
  std::vector<std::string> s;
  for (uint64_t x : seeds) s.push_back(std::to_string(x));
  return model + "__" + join(agents, "+") + "__" + join(s, "+") + "__" + time_now("%Y%m%d-%H%M%S", false);
}

Status RunDir::open(const std::string& root, const json& resolved, const std::string& id,
                    const std::string& config_path, bool fresh) {
  std::string hash = fnv1a_hex(resolved.dump());
  LW_RETURN_IF_ERROR(make_dirs(root));
  dir_ = fresh ? "" : find_unfinished(root, hash);
  resumed_ = !dir_.empty();
  if (resumed_) {
    state_ = read_json_file(dir_ + "/run.json");
    return Status::ok();
  }
  LW_RETURN_IF_ERROR(make_new_dir(root + "/" + id, &dir_));
  state_ = {{"config", config_path}, {"config_hash", hash}, {"complete", false}, {"stages", json::object()}};
  LW_RETURN_IF_ERROR(write_file_atomic(dir_ + "/config.json", resolved.dump(1) + "\n"));
  return save();
}

bool RunDir::done(const char* stage) const { return state_["stages"].value(stage, false); }

Status RunDir::finish(const char* stage) {
  state_["stages"][stage] = true;
  return save();
}

Status RunDir::set_lut_hash(const std::string& hash) {
  state_["lut_hash"] = hash;
  return save();
}

Status RunDir::complete() {
  state_["complete"] = true;
  return save();
}

Status RunDir::supersede(const std::string& by) {
  state_["superseded_by"] = by;
  return save();
}

Status RunDir::save() const { return write_file_atomic(dir_ + "/run.json", state_.dump(1) + "\n"); }

}  // namespace lw
