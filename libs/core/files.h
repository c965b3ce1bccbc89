/// \file
/// Whole-file input and output for every reader and writer of the project: results are
/// written through a temporary file and a rename, so a reader (or a resumed run) never sees
/// half a file.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "libs/core/status.h"

namespace lw {

Status read_file(const std::string& path, std::string* data);
/// Writes `data` to `path` via a temporary file and rename, creating the folders on the path
/// that do not exist yet (a results path a user names, `--out runs/today/lut.json`, is written
/// where it says instead of failing after the minutes of work it holds).
Status write_file_atomic(const std::string& path, const std::string& data);
/// Creates `dir` and its parents (no error when it exists).
Status make_dirs(const std::string& dir);
/// Creates a directory that did not exist: `base`, or `base-2`, `base-3`, ... when it is
/// taken (two runs started in the same second must not write into one folder). `*made` is
/// the one created; its parents are created as needed.
Status make_new_dir(const std::string& base, std::string* made);
/// A JSON file the program wrote itself (run state, manifests, status files): null when it
/// cannot be read (not there yet), discarded when it is not JSON (cut short by a kill).
/// User input goes through JsonReader (libs/core/json_reader.h) instead.
nlohmann::json read_json_file(const std::string& path);

/// The time now through strftime `format`, in UTC or local time (run names, status files).
std::string time_now(const char* format, bool utc);

}  // namespace lw
