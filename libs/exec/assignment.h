/// \file
/// Per-layer assignments of implementations: built from one library (`--all native`),
/// drawn at random (tests, the RS baseline), or read from / written to JSON:
///
///   {"model": "mobilenetv2",
///    "default": "native",                      // optional: library for unlisted layers
///    "layers": {"conv1": "conv2d_nchw_f32_native_im2col_t1", ...}}
///
/// Unknown layer or implementation names are errors naming the JSON path.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "libs/ir/network.h"
#include "libs/ops/registry.h"

namespace lw {

constexpr const char* kAssignmentModelKey = "model";
constexpr const char* kAssignmentDefaultKey = "default";
constexpr const char* kAssignmentLayersKey = "layers";

/// Every layer on `library` where it has a supported implementation (first supported
/// in the library's preference order, see .cc), else on native; NCHW, `threads`, unfused.
Status library_assignment(const Network& net, const Registry& r, Library library, int threads,
                          std::vector<ImplDesc>* out);

/// Uniformly random supported f32 implementation per layer (any layout, thread set, and
/// runtime fusion where possible), seeded.
Status random_assignment(const Network& net, const Registry& r, uint64_t seed, std::vector<ImplDesc>* out);

Status load_assignment(const std::string& path, const Network& net, const Registry& r, std::vector<ImplDesc>* out);
Status parse_assignment(const std::string& json_text, const Network& net, const Registry& r, std::vector<ImplDesc>* out);
std::string assignment_to_json(const Network& net, const std::vector<ImplDesc>& a);

}  // namespace lw
