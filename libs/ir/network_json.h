/// \file
/// Reading and writing networks as JSON (topology) plus an optional binary weights file.
/// The format is documented in README.md ("Network files"). Errors name the file, the
/// JSON path (RFC 6901 pointer) and the reason, on one line.
#pragma once
#include <string>

#include "libs/core/status.h"
#include "libs/ir/network.h"

namespace lw {

/// Parses a network from JSON text. `origin` names the source in errors; `dir` resolves a
/// relative "weights" path. Without weights, layers are left empty (see init_random_weights).
Status network_from_json(const std::string& text, const std::string& origin, const std::string& dir, Network* net);
Status load_network(const std::string& path, Network* net);

/// Writes topology JSON; with a non-empty `weights_path`, also the weights file
/// (written atomically) and a reference to it by file name.
Status save_network(const Network& net, const std::string& json_path, const std::string& weights_path);
std::string network_to_json(const Network& net, const std::string& weights_file);
/// network_to_json without the weights' file or origin (random_weights): the same text for the
/// same layers, whatever weights they carry (env/lut.h model_hash).
std::string topology_json(const Network& net);

/// Weights file: "LWW1", uint64 float count, uint64 FNV-1a hash of the payload, floats
/// (little endian) in layer order, each layer's weights then bias.
Status save_weights(const Network& net, const std::string& path);
Status weights_to_bytes(const Network& net, std::string* out);
Status load_weights(const std::string& path, Network* net);
/// The same from the file's bytes; `origin` names the source in errors.
Status weights_from_bytes(const std::string& data, const std::string& origin, Network* net);


}  // namespace lw
