#include "libs/core/status.h"

#include <cstdio>
#include <cstdlib>

#include "libs/core/enum_names.h"

namespace lw {

namespace {
constexpr NameRow<StatusCode> kStatusNames[] = {
#define X(e, s) {StatusCode::e, s},
#include "libs/core/status.inc"
#undef X
};
}  // namespace

const char* to_string(StatusCode code) { return name_of(kStatusNames, code, "unknown"); }

std::string Status::to_string() const {
  if (is_ok()) return "ok";
  return std::string(lw::to_string(code_)) + ": " + message_;
}

void check_failed(const char* file, int line, const char* cond) {
  std::fprintf(stderr, "%s:%d: check failed: %s\n", file, line, cond);
  std::abort();
}

}  // namespace lw
