/// \file
/// Which deployment a command acts on, from exactly one of --filter DIR/filter.json
/// [--pick chosen|<label>] / --solutions DIR/solutions.csv / --baseline <label>: shared by
/// `layerwise replay` and `layerwise export`.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "env/lut.h"
#include "explorer/cli/cli.h"

namespace lw::cli {

/// The option names it reads (merge into the command's own).
inline constexpr const char* kPickOptionNames[] = {"filter", "pick", "solutions", "baseline", "threads"};

/// (label, one implementation name per LUT layer); throws UsageError with one line.
std::pair<std::string, std::vector<std::string>> pick_deployment(const Args& args, const Lut& lut);

}  // namespace lw::cli
