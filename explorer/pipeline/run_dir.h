/// \file
/// A run's directory, results/<run-id>/: its name, the resolved config, and run.json (the
/// config's hash and the stages already finished), so an interrupted run of the same
/// resolved config resumes in place instead of starting over.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "libs/core/status.h"

namespace lw {

/// <model>__<agents>__<seeds>__<time>: the CleanRL naming, several agents / seeds joined by '+'.
std::string run_id(const std::string& model, const std::vector<std::string>& agents,
                   const std::vector<uint64_t>& seeds);

class RunDir {
 public:
  /// Resumes the newest unfinished run under `root` whose resolved config is `resolved`
  /// (unless `fresh`), else creates root/<id> (root/<id>-2, ... when a run started in the same
  /// second has it) and writes config.json there.
  Status open(const std::string& root, const nlohmann::json& resolved, const std::string& id,
              const std::string& config_path, bool fresh);
  const std::string& path() const { return dir_; }
  bool resumed() const { return resumed_; }
  bool done(const char* stage) const;
  Status finish(const char* stage);
  /// The content hash of the LUT this run searched ("" before its profile stage, or in a run
  /// from before it was recorded).
  std::string lut_hash() const { return state_.value("lut_hash", ""); }
  Status set_lut_hash(const std::string& hash);
  Status complete();
  /// Leaves this unfinished run for the run at `by` (its search was of another LUT): kept
  /// as it is, but never resumed again.
  Status supersede(const std::string& by);

 private:
  Status save() const;
  std::string dir_;
  nlohmann::json state_;
  bool resumed_ = false;
};

}  // namespace lw
