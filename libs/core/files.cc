#include "libs/core/files.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace lw {

Status read_file(const std::string& path, std::string* data) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return io_error(path + ": cannot open (" + std::strerror(errno) + ")");
  std::ostringstream ss;
  ss << f.rdbuf();
  *data = ss.str();
  return Status::ok();
}

Status write_file_atomic(const std::string& path, const std::string& data) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  std::error_code ec;  // (exists' throwing form would let an exception out of libs/)
  if (!parent.empty() && !std::filesystem::exists(parent, ec)) LW_RETURN_IF_ERROR(make_dirs(parent.string()));
  std::string tmp = path + ".tmp";
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) return io_error(path + ": cannot write (" + std::strerror(errno) + ")");
  bool ok = std::fwrite(data.data(), 1, data.size(), f) == data.size();
  ok = (std::fflush(f) == 0) && ok;
  ok = (std::fclose(f) == 0) && ok;
  if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return io_error(path + ": write failed (" + std::strerror(errno) + ")");
  }
  return Status::ok();
}

Status make_dirs(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  return ec ? io_error("cannot create " + dir + ": " + ec.message()) : Status::ok();
}

Status make_new_dir(const std::string& base, std::string* made) {
  std::filesystem::path p(base);
  if (p.has_parent_path()) LW_RETURN_IF_ERROR(make_dirs(p.parent_path().string()));
  for (int n = 1; n < 1000; ++n) {
    std::string dir = n == 1 ? base : base + "-" + std::to_string(n);
    std::error_code ec;
    // create_directory is false, without an error, when the folder was already there.
    if (std::filesystem::create_directory(dir, ec)) {
      *made = dir;
      return Status::ok();
    }
    if (ec) return io_error("cannot create " + dir + ": " + ec.message());
  }
  return io_error("cannot create " + base + ": 999 folders of that name exist");
}

nlohmann::json read_json_file(const std::string& path) {
  std::string text;
  if (!read_file(path, &text).is_ok()) return nlohmann::json();
  return nlohmann::json::parse(text, nullptr, false);
}

std::string time_now(const char* format, bool utc) {
  char t[64];
  std::time_t now = std::time(nullptr);
  std::strftime(t, sizeof t, format, utc ? std::gmtime(&now) : std::localtime(&now));
  return t;
}

}  // namespace lw
