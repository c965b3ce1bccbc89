/// \file
/// Shared by `layerwise search` and `layerwise compare`: loading a LUT into a Problem, the
/// progress line, and writing search results as CSV.
#pragma once
#include <string>

#include "agents/agent.h"
#include "env/lut.h"

namespace lw::cli {

/// Loads and compiles; throws UsageError with the one-line reason. A LUT measured on another
/// device is refused unless `force`.
void load_problem(const std::string& path, Lut* lut, Problem* problem, bool force);
/// A progress callback printing "\r<label> 42% ETA 3.1 s" on stderr; empty when quiet.
std::function<void(double)> progress_line(const std::string& label, bool quiet);
/// Agent config from --config: inline JSON text ("{...}") or a file path.
std::string config_arg(const std::string& value);
/// Impl names of an assignment joined by ';'.
std::string assignment_names(const Lut& lut, const std::vector<int>& a);
void write_solutions_csv(const std::string& path, const Lut& lut, const SearchResult& r);
void write_curve_csv(const std::string& path, const SearchResult& r);

}  // namespace lw::cli
