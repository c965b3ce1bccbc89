/// \file
/// The deployment bundle (issue 15): one self-contained, checksummed file that carries a
/// chosen deployment out of the explorer into an application (the runtime API,
/// include/layerwise/layerwise.h) or `layerwise infer --bundle`. It holds the network with
/// its (BatchNorm-folded) weights, the implementation of every layer, the calibrated int8
/// quantisation of every layer's output, the conversion costs that make the executor insert
/// exactly the chains the LUT charged (and those chains, to check), the device fingerprint,
/// the ISA the deployment needs and the LUT's prediction. Layout (README "Deployment
/// bundles"), integers little endian:
///   "LWBUNDLE" | u32 format version | u64 manifest bytes | manifest JSON |
///   u64 weights bytes | weights ("LWW1" file, libs/ir/network_json.h) | u64 FNV-1a of all before
#pragma once
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "libs/core/status.h"
#include "libs/exec/executor.h"
#include "libs/ir/network.h"
#include "libs/ops/registry.h"

namespace lw {

constexpr char kBundleMagic[] = "LWBUNDLE";  // 8 bytes, no terminator in the file
constexpr uint32_t kBundleFormatVersion = 1;
/// The version of Layerwise's executor and kernels a bundle was written by (the CMake
/// project's VERSION): a bundle from another version may plan other chains or kernels, so
/// it is refused unless forced.
constexpr char kLayerwiseVersion[] = LAYERWISE_VERSION;
constexpr char kBundleExtension[] = ".lwb";

/// One executor step as recorded at export: the runtime plans the same steps or refuses.
struct BundleStep {
  std::string name;
  int layer = -1;
  bool conversion = false;
};

struct Bundle {
  std::string model;          // network name
  std::string label;          // which deployment (e.g. "chosen sol-0003", "ref-fp32")
  std::string created;        // UTC time of export
  std::string layerwise_version = kLayerwiseVersion;
  Network net;                // BatchNorm folded, weights included
  std::vector<std::string> impls;    // one implementation name per layer (entry 0: input)
  std::vector<QuantParams> quant;    // per layer output (empty: f32-only deployment)
  /// "<shape>|<conversion name>" -> measured ms: the LUT's converters for this network's
  /// tensors, the conversion graph's edge weights (absent = impossible, as with the LUT).
  std::map<std::string, double> conversion_ms;
  std::vector<BundleStep> steps;     // what the executor ran at export
  nlohmann::json device;             // env/device.h fingerprint of the exporting machine
  std::vector<std::string> isa;      // CPU features the deployment needs (/proc/cpuinfo names)
  double predicted_ms = 0;           // the LUT's prediction of end-to-end latency
  double predicted_memory_bytes = 0;
  nlohmann::json measured;           // what the explorer measured (accuracy, latency); may be null
};

/// The bundle as bytes / written atomically to `path`.
Status bundle_to_bytes(const Bundle& b, std::string* out);
Status write_bundle(const std::string& path, const Bundle& b);
/// Reads and checks magic, version, sizes and checksum before parsing; `origin` names the
/// source in errors ("<file>: truncated: ...", "<file>: checksum mismatch (corrupted)").
Status bundle_from_bytes(const std::string& data, const std::string& origin, Bundle* out);
Status read_bundle(const std::string& path, Bundle* out);

/// The CPU features an implementation needs beyond baseline x86-64 for the kernels (and
/// numerics) it was measured with, e.g. int8 through oneDNN needs VNNI: without it oneDNN
/// falls back to kernels whose 16-bit intermediate saturates differently.
std::vector<std::string> required_isa(const ImplDesc& d);

/// Ok when every CPU feature the bundle needs (and this build assumes) is here and not
/// masked (`mask`: comma list, as LAYERWISE_MASK_CPU_FEATURES). Never forceable: running
/// without one would be an illegal instruction.
Status check_bundle_isa(const Bundle& b, const std::string& mask = "");
/// Ok when the bundle was exported on this device (`here`: env/device.h fingerprint) by this
/// Layerwise version; otherwise unsupported with what differs.
Status check_bundle_device(const Bundle& b, const nlohmann::json& here);

/// Plans the bundle's deployment with `registry` and checks that the executor inserted the
/// recorded steps (when any are recorded). `time_steps` as PlanOptions.
Status plan_bundle(const Bundle& b, const Registry& registry, bool time_steps, std::unique_ptr<Executor>* out);

}  // namespace lw
