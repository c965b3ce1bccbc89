// libFuzzer harness: a LUT as `search`, `compare` and `run` read it, and the flat cost tables
// every agent is then built on (a LUT that loads must compile or be refused, never crash).
#include <cstddef>
#include <cstdint>
#include <string>

#include "env/cost.h"
#include "env/lut.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  lw::Lut lut;
  if (!lw::lut_from_json(std::string(reinterpret_cast<const char*>(data), size), "fuzz.lut.json", &lut).is_ok())
    return 0;
  lw::Problem problem;
  if (!lw::compile_problem(lut, &problem).is_ok()) return 0;
  lw::lut_to_json(lut);
  return 0;
}
