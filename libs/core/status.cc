#include "libs/core/status.h"

#include <cstdio>
#include <cstdlib>

namespace lw {

const char* to_string(StatusCode code) {
  switch (code) {
#define X(e, s) \
  case StatusCode::e: return s;
#include "libs/core/status.inc"
#undef X
  }
  return "unknown";
}

std::string Status::to_string() const {
  if (is_ok()) return "ok";
  return std::string(lw::to_string(code_)) + ": " + message_;
}

void check_failed(const char* file, int line, const char* cond) {
  std::fprintf(stderr, "%s:%d: check failed: %s\n", file, line, cond);
  std::abort();
}

}  // namespace lw
