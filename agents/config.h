/// \file
/// An agent's hyperparameters (AgentRequest::config_json; "" is {}) read with the project's
/// one JSON reader (libs/core/json_reader.h): typed fields with named defaults and ranges,
/// unknown keys rejected, errors reading "qlearning config: /alpha: ...".
#pragma once
#include <string>

#include "libs/core/json_reader.h"

namespace lw {

JsonReader agent_config(const std::string& agent, const std::string& text);

}  // namespace lw
