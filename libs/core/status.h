/// \file
/// Status codes at the libs/ boundary. Every public libs/ call that can fail returns a
/// Status (code + one-line reason); exceptions and exit codes live only in explorer/ (the CLI).
#pragma once
#include <string>
#include <utility>

namespace lw {

enum class StatusCode {
#define X(e, s) e,
#include "libs/core/status.inc"
#undef X
};

const char* to_string(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}
  static Status ok() { return {}; }

  bool is_ok() const { return code_ == StatusCode::kOk; }
  explicit operator bool() const { return is_ok(); }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  /// "<code>: <message>", for logs.
  std::string to_string() const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status invalid_argument(std::string m) { return {StatusCode::kInvalidArgument, std::move(m)}; }
inline Status unsupported(std::string m) { return {StatusCode::kUnsupported, std::move(m)}; }
inline Status parse_error(std::string m) { return {StatusCode::kParseError, std::move(m)}; }
inline Status io_error(std::string m) { return {StatusCode::kIoError, std::move(m)}; }
inline Status failed(std::string m) { return {StatusCode::kFailed, std::move(m)}; }

}  // namespace lw

/// Propagate a non-ok Status to the caller.
#define LW_RETURN_IF_ERROR(expr)            \
  do {                                      \
    ::lw::Status lw_status_ = (expr);       \
    if (!lw_status_.is_ok()) return lw_status_; \
  } while (0)

/// Programmer errors (broken invariants), not user errors: abort with file and line.
#define LW_CHECK(cond)                                                              \
  do {                                                                              \
    if (!(cond)) ::lw::check_failed(__FILE__, __LINE__, #cond);                     \
  } while (0)

namespace lw {
[[noreturn]] void check_failed(const char* file, int line, const char* cond);
}
