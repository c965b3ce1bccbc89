#include "explorer/cli/progress.h"

#include <cstdio>
#include <unistd.h>

namespace lw::cli {

std::string format_duration(double s) {
  char buf[32];
  long t = long(s + 0.5);
  if (t >= 3600) std::snprintf(buf, sizeof buf, "%ldh%02ldm", t / 3600, (t / 60) % 60);
  else if (t >= 60) std::snprintf(buf, sizeof buf, "%ldm%02lds", t / 60, t % 60);
  else std::snprintf(buf, sizeof buf, "%lds", t);
  return buf;
}

void ProgressLine::update(const std::string& text, double fraction, double eta_s, bool force) {
  if (quiet_) return;
  // On a terminal the line is redrawn in place; in a log file each update is its own line,
  // so it is rate-limited harder there.
  bool tty = isatty(STDERR_FILENO);
  auto now = std::chrono::steady_clock::now();
  auto min_gap = tty ? std::chrono::milliseconds(200) : std::chrono::milliseconds(5000);
  if (!force && drawn_ && now - last_ < min_gap) return;
  last_ = now;
  std::fprintf(stderr, "%s%-70.100s %5.1f%% ETA %s%s", tty ? "\r" : "", text.c_str(), 100 * fraction,
               format_duration(eta_s).c_str(), tty ? "\033[K" : "\n");
  std::fflush(stderr);
  drawn_ = true;
}

void ProgressLine::finish() {
  if (quiet_ || !drawn_) return;
  if (isatty(STDERR_FILENO)) std::fputc('\n', stderr);
  drawn_ = false;
}

std::function<void(int, int, const std::string&)> counted_progress(ProgressLine& line, std::string prefix) {
  const auto start = std::chrono::steady_clock::now();
  return [&line, prefix = std::move(prefix), start](int done, int total, const std::string& what) {
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    line.update(prefix + " [" + std::to_string(done) + "/" + std::to_string(total) + "] " + what,
                total > 0 ? double(done) / total : 1, done > 0 ? s / done * (total - done) : 0);
  };
}

}  // namespace lw::cli
