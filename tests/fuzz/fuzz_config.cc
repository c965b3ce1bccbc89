// libFuzzer harness: an experiment config as `layerwise run` reads it.
#include <cstddef>
#include <cstdint>
#include <string>

#include "agents/agent.h"
#include "explorer/pipeline/config.h"
#include "libs/ops/descriptor.h"

namespace {
// The vocabulary the CLI supplies (explorer/pipeline/runner.cc), less the DQN agent: linking it
// would bring LibTorch into the fuzzer; "dqn" is spelled here so its configs parse too.
lw::ConfigVocabulary vocabulary() {
  lw::ConfigVocabulary v;
  for (lw::Library l : lw::all_libraries()) v.libraries.push_back(lw::to_string(l));
  for (const auto& a : lw::agents()) v.agents.push_back(a.name);
  v.agents.push_back("dqn");
  return v;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const lw::ConfigVocabulary vocab = vocabulary();
  lw::ExperimentConfig cfg;
  if (lw::parse_config(std::string(reinterpret_cast<const char*>(data), size), "fuzz-config.json", vocab, &cfg)
          .is_ok())
    lw::resolved_config(cfg);
  return 0;
}
