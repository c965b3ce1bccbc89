/// \file
/// The one progress line long commands print on stderr: "<what> [i/N] <detail> ETA 1m05s",
/// redrawn in place at most a few times a second; silent with --quiet.
#pragma once
#include <chrono>
#include <functional>
#include <string>

namespace lw::cli {

class ProgressLine {
 public:
  explicit ProgressLine(bool quiet) : quiet_(quiet) {}
  ~ProgressLine() { finish(); }
  /// Redraws the line (rate-limited unless `force`).
  void update(const std::string& text, double fraction, double eta_s, bool force = false);
  /// Ends the line so the next output starts on a fresh one.
  void finish();

 private:
  bool quiet_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_{};
};

/// A progress callback for work counted in items ("<prefix> [done/total] <what>"), its ETA
/// from the time per item so far, measured from this call.
std::function<void(int done, int total, const std::string& what)> counted_progress(ProgressLine& line,
                                                                                  std::string prefix);

/// "1h02m", "3m05s", "12s".
std::string format_duration(double seconds);

}  // namespace lw::cli
