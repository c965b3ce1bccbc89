/// \file
/// Search results on disk, shared by `layerwise search`, `layerwise compare` and the
/// runner's search stage: loading a LUT into a Problem, the progress line of an agent, and
/// solutions.csv / learning_curve.csv / result.json.
#pragma once
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "agents/agent.h"
#include "env/lut.h"
#include "explorer/pipeline/run_report.h"

namespace lw {

/// Loads and compiles. A LUT measured on another device is refused unless `force`.
Status load_problem(const std::string& path, Lut* lut, Problem* problem, bool force);
/// A progress callback printing "\r<label> 42% ETA 3.1 s" on stderr; empty when quiet.
std::function<void(double)> progress_line(const std::string& label, bool quiet);
/// Impl names of an assignment joined by ';'.
std::string assignment_names(const Lut& lut, const std::vector<int>& a);
Status write_solutions_csv(const std::string& path, const Lut& lut, const SearchResult& r);
Status write_curve_csv(const std::string& path, const SearchResult& r);

/// One agent run as the run summary and result.json show it.
AgentOutcome outcome_of(const Lut& lut, const SearchResult& res, uint64_t seed);
nlohmann::json outcome_json(const AgentOutcome& a);
/// Throws nlohmann::json::exception on a malformed result.json (callers treat it as absent).
AgentOutcome outcome_from(const nlohmann::json& j);

}  // namespace lw
