#include "agents/config.h"

namespace lw {

JsonReader agent_config(const std::string& agent, const std::string& text) {
  // Not an object (or not JSON): the reader reports "<agent> config: /: expected an object".
  nlohmann::json j = nlohmann::json::parse(text.empty() ? "{}" : text, nullptr, false);
  return JsonReader(agent + " config", j.is_discarded() ? nlohmann::json() : j);
}

}  // namespace lw
