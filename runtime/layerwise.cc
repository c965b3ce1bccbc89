// The runtime API (include/layerwise/layerwise.h) over the bundle reader (env/bundle.h), the
// executor and every backend: the same code `layerwise replay` runs, nothing re-implemented.
#include "layerwise/layerwise.h"

#include <mutex>

#include "env/bundle.h"
#include "env/device.h"
#include "libs/exec/backends.h"
#include "libs/ops/thread_pool.h"

namespace layerwise {

namespace {

Status make(StatusCode c, const std::string& m) { return {c, m}; }

// The library's status as the API's: which file, what failed, on one line.
Status from_lw(const lw::Status& s, StatusCode code, const std::string& prefix) {
  if (s.is_ok()) return {};
  return make(code, prefix + s.message());
}

// The 2-thread set's workers are one per library and process (libs/ops/thread_pool.h):
// deployments that use them take turns; 1-thread deployments run concurrently.
std::mutex& two_thread_mutex() {
  static std::mutex m;
  return m;
}

Shape api_shape(const lw::Shape& s) { return {s.n, s.c, s.h, s.w}; }

}  // namespace

const char* to_string(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "ok";
    case StatusCode::kInvalidArgument: return "invalid-argument";
    case StatusCode::kIoError: return "io-error";
    case StatusCode::kCorrupt: return "corrupt";
    case StatusCode::kWrongDevice: return "wrong-device";
    case StatusCode::kMissingCpuFeature: return "missing-cpu-feature";
    case StatusCode::kFailed: return "failed";
  }
  return "unknown";
}

struct Model::Impl {
  lw::Bundle bundle;
  std::unique_ptr<lw::Executor> ex;
  lw::Shape in, out;
  bool two_threads = false;
};

Model::Model(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Model::~Model() = default;

Status Model::create(const std::string& path, const Options& o, std::unique_ptr<Model>* out) {
  if (!out) return make(StatusCode::kInvalidArgument, "Model::create: out is null");
  out->reset();
  auto impl = std::make_unique<Impl>();
  lw::Status s = lw::read_bundle(path, &impl->bundle);
  if (!s.is_ok())
    return make(s.code() == lw::StatusCode::kIoError ? StatusCode::kIoError : StatusCode::kCorrupt, s.message());
  const lw::Bundle& b = impl->bundle;
  const std::string where = path + ": ";
  Status st = from_lw(lw::check_bundle_isa(b, o.mask_cpu_features), StatusCode::kMissingCpuFeature, where);
  if (!st.ok()) return st;
  if (!o.force && !(st = from_lw(lw::check_bundle_device(b, lw::device_fingerprint()), StatusCode::kWrongDevice, where)).ok())
    return st;
  st = from_lw(lw::plan_bundle(b, lw::default_registry(), false, &impl->ex), StatusCode::kFailed, where);
  if (!st.ok()) return st;
  impl->in = b.net.input_shape();
  impl->out = b.net.output_shape();
  for (const lw::ExecStep& e : impl->ex->steps()) impl->two_threads |= e.name.find("_t2") != std::string::npos;
  out->reset(new Model(std::move(impl)));
  return {};
}

Shape Model::input_shape() const { return api_shape(impl_->in); }
Shape Model::output_shape() const { return api_shape(impl_->out); }

BundleInfo Model::info() const {
  const lw::Bundle& b = impl_->bundle;
  BundleInfo i;
  i.model = b.model;
  i.label = b.label;
  i.created = b.created;
  i.layerwise_version = b.layerwise_version;
  i.predicted_ms = b.predicted_ms;
  i.layers = int(b.net.layers.size()) - 1;  // the input is not a layer
  i.steps = int(impl_->ex->steps().size());
  if (b.measured.is_object() && b.measured.contains("accuracy")) {
    const auto& a = b.measured["accuracy"];
    i.measured_metric = a.value("metric", "");
    i.measured_images = a.value("images", 0);
    i.measured_top1 = a.value("top1", 0.0);
  }
  if (b.measured.is_object() && b.measured.contains("latency_ms"))
    i.measured_median_ms = b.measured["latency_ms"].value("median", 0.0);
  return i;
}

Status Model::run(const float* input, size_t input_elements, float* output, size_t output_elements) {
  Impl& m = *impl_;
  if (!input || !output) return make(StatusCode::kInvalidArgument, "Model::run: null buffer");
  if (int64_t(input_elements) != m.in.elements() || int64_t(output_elements) != m.out.elements())
    return make(StatusCode::kInvalidArgument, "Model::run: buffers of " + std::to_string(input_elements) + " and " +
                                                  std::to_string(output_elements) + " floats, the model takes " +
                                                  std::to_string(m.in.elements()) + " and gives " +
                                                  std::to_string(m.out.elements()));
  // Views of the caller's buffers: the executor copies the input into its arena and the
  // output out of it, so neither tensor allocates.
  lw::Tensor x = lw::Tensor::view(const_cast<float*>(input), m.in, lw::DType::kF32, lw::Layout::kNCHW);
  lw::Tensor y = lw::Tensor::view(output, m.out, lw::DType::kF32, lw::Layout::kNCHW);
  std::unique_lock<std::mutex> lock(two_thread_mutex(), std::defer_lock);
  if (m.two_threads) lock.lock();
  return from_lw(m.ex->run(x, &y), StatusCode::kFailed, m.bundle.model + ": ");
}

struct CallerPin::Impl {
  lw::ScopedPin pin;
};
CallerPin::CallerPin() : impl_(std::make_unique<Impl>()) {}
CallerPin::~CallerPin() = default;

}  // namespace layerwise
