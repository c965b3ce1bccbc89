/// \file
/// Layerwise runtime API: runs a deployment bundle exported by `layerwise export` (or the
/// `export` stage of `layerwise run`) inside an application. The one public header of the
/// installed package:
///
///   find_package(Layerwise REQUIRED)
///   target_link_libraries(app PRIVATE Layerwise::runtime)
///
/// Create -> query -> run: Model::create loads and checks the bundle (format, checksum,
/// CPU features, device and version) and plans the deployment (weights packed, buffers
/// placed); run() then only runs kernels on the caller's buffers and allocates nothing.
/// Every call returns a Status (code + one-line message); nothing throws.
/// Threads: distinct Model instances may run concurrently on different threads; one
/// instance runs one call at a time (it owns the activation buffers).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

// The runtime is built with hidden visibility: only what is marked here is its ABI.
#define LAYERWISE_API __attribute__((visibility("default")))

namespace layerwise {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,  // a wrong buffer size, a null pointer, bad options
  kIoError,          // the bundle cannot be read
  kCorrupt,          // not a bundle, truncated, checksum mismatch, malformed manifest
  kWrongDevice,      // exported on another device or by another Layerwise version (force accepts it)
  kMissingCpuFeature,  // the deployment needs an ISA feature this CPU lacks (never forced)
  kFailed,           // planning or running a kernel failed
};

/// The result of every call. ok() or a code with a one-line message naming the bundle.
struct Status {
  StatusCode code = StatusCode::kOk;
  std::string message;
  bool ok() const { return code == StatusCode::kOk; }
};
/// "ok", "invalid-argument", "io-error", "corrupt", "wrong-device", "missing-cpu-feature", "failed".
LAYERWISE_API const char* to_string(StatusCode code);

/// NCHW, float32.
struct Shape {
  int n = 0, c = 0, h = 0, w = 0;
  int64_t elements() const { return int64_t(n) * c * h * w; }
};

struct Options {
  /// Run a bundle exported on another device or by another Layerwise version (its latency
  /// prediction then does not hold). A missing CPU feature is refused regardless.
  bool force = false;
  /// CPU features to treat as absent in the capability check, comma-separated
  /// ("avx512_vnni,avx512f"): tests the refusal on a CPU that has them. The environment
  /// variable LAYERWISE_MASK_CPU_FEATURES does the same for the whole process.
  std::string mask_cpu_features;
};

/// What the bundle says about itself.
struct BundleInfo {
  std::string model, label, created, layerwise_version;
  double predicted_ms = 0;    // the explorer's LUT prediction of end-to-end latency
  int layers = 0, steps = 0;  // network layers; executor steps incl. conversions
  /// What the explorer measured for this deployment (the replay's figures in a run; the
  /// export's accuracy for `layerwise export`): metric "top1" or "fidelity" ("" if none), on
  /// the first `measured_images` evaluation images, and the replay's median latency (0: none).
  std::string measured_metric;
  int measured_images = 0;
  double measured_top1 = 0, measured_median_ms = 0;
};

class LAYERWISE_API Model {
 public:
  /// Loads `bundle_path` and plans the deployment. On failure `out` is left empty.
  static Status create(const std::string& bundle_path, const Options& options, std::unique_ptr<Model>* out);
  ~Model();
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  Shape input_shape() const;
  Shape output_shape() const;
  BundleInfo info() const;

  /// One inference: `input` holds input_shape().elements() floats (NCHW), `output` receives
  /// output_shape().elements() floats. The sizes are checked; nothing is allocated.
  Status run(const float* input, size_t input_elements, float* output, size_t output_elements);

  struct Impl;

 private:
  explicit Model(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// Pins the calling thread to the deployments' first core (cpu0) while it lives, then
/// restores the thread's affinity. Model::run pins its caller for each call anyway; an
/// application that runs many inferences on one thread holds one around them and pays for
/// the pin once: per call, it costs three system calls (~5 us on a KVM guest, 5 % of a
/// 0.1 ms model), plus a migration back to cpu0 whenever the scheduler moved the thread
/// between calls. The explorer's timings (replay, bench, filter) run this way. Create and
/// destroy it on the thread that calls run() (a scoped local); pins nest.
class LAYERWISE_API CallerPin {
 public:
  CallerPin();
  ~CallerPin();
  CallerPin(const CallerPin&) = delete;
  CallerPin& operator=(const CallerPin&) = delete;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace layerwise
