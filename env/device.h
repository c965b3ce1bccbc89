/// \file
/// The device fingerprint stored in every LUT: CPU model, ISA flags, the thread sets the
/// profiler pinned, and the versions of the libraries it measured. A LUT measured on another
/// device (or with other library versions) does not describe this one, so loading it is
/// refused unless forced.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "env/lut.h"

namespace lw {

/// This machine's fingerprint: {"cpu", "isa", "cpus", "thread_sets", "libraries"}.
nlohmann::json device_fingerprint();

/// Empty when `lut_device` describes this machine; otherwise what differs, e.g.
/// "cpu 'AMD EPYC 9B45' vs 'Cortex-A57'". A synthetic LUT ("synthetic": true) never matches.
std::string device_mismatch(const nlohmann::json& lut_device, const nlohmann::json& here);

/// Why `lut` cannot be used for `net` on this device ("" when it can): another model
/// (model_hash, env/lut.h) or another device's fingerprint.
std::string lut_mismatch(const Lut& lut, const Network& net);

}  // namespace lw
