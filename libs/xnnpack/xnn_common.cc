#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <mutex>
#include <thread>

#include "libs/ops/thread_pool.h"
#include "libs/xnnpack/xnn_common.h"

namespace lw::xnn {

Status check(xnn_status s, const char* what) {
  if (s == xnn_status_success) return Status::ok();
  std::string m = std::string(what) + ": xnn_status " + std::to_string(int(s));
  if (s == xnn_status_unsupported_parameter || s == xnn_status_unsupported_hardware) return unsupported(m);
  if (s == xnn_status_out_of_memory) return {StatusCode::kOutOfMemory, m};
  if (s == xnn_status_invalid_parameter) return invalid_argument(m);
  return failed(m);
}

Status initialize() {
  static const Status s = check(xnn_initialize(nullptr), "xnn_initialize");
  return s;
}

namespace {

// pthreadpool hides its worker threads, so pin them from inside a job: two items, one per
// thread (pthreadpool hands each thread one item of a 2-item range before stealing); both
// wait for each other so the caller cannot run both, then the worker pins itself.
struct PinJob {
  pthread_t caller;
  int cpu;
  std::atomic<int> arrived{0};
  std::atomic<bool> pinned{false};
};
void pin_task(void* ctx, size_t) {
  auto* job = static_cast<PinJob*>(ctx);
  job->arrived.fetch_add(1);
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  while (job->arrived.load() < 2 && std::chrono::steady_clock::now() < until) std::this_thread::yield();
  if (pthread_equal(pthread_self(), job->caller) || job->cpu < 0) return;
  job->pinned = become_thread_set_worker(job->cpu);
  shorten_wake_slice();  // woken while libgomp's worker spins on cpu1 (thread_pool.h)
}

pthreadpool_t make_pool2() {
  pthreadpool_t p = pthreadpool_create(2);
  if (!p) return nullptr;
  PinJob job;
  job.caller = pthread_self();
  job.cpu = thread_set_cpu(1);
  pthreadpool_parallelize_1d(p, pin_task, &job, 2, 0);
  if (!job.pinned)
    std::fprintf(stderr, "layerwise: xnnpack 2-thread pool worker could not be pinned (cpu %d); it floats\n", job.cpu);
  return p;
}

}  // namespace

pthreadpool_t pool_for(int threads) {
  if (threads <= 1) return nullptr;
  // Created on first use (register_xnnpack makes it) and kept for the process lifetime.
  static pthreadpool_t pool2 = make_pool2();
  return pool2;
}

void release_pool2() {
  if (pthreadpool_t p = pool_for(2))
    pthreadpool_parallelize_1d(p, [](void*, size_t) {}, nullptr, 2, PTHREADPOOL_FLAG_YIELD_WORKERS);
}

void pool2_job(double item_us) {
  if (pthreadpool_t p = pool_for(2))
    pthreadpool_parallelize_1d(p, [](void* us, size_t) { busy_for_us(*static_cast<double*>(us)); }, &item_us, 2, 0);
}

void pool2_range(int64_t mid, int64_t n, detail::RangeFn fn, void* ctx) {
  struct Job {
    detail::RangeFn fn;
    void* ctx;
    int64_t mid, n;
  } job{fn, ctx, mid, n};
  pthreadpool_parallelize_1d(
      pool_for(2),
      [](void* c, size_t i) {
        const Job& j = *static_cast<const Job*>(c);
        i == 0 ? j.fn(j.ctx, 0, j.mid) : j.fn(j.ctx, j.mid, j.n);
      },
      &job, 2, 0);
}

Status f32_bounds(LayerKind act, float* lo, float* hi) {
  *lo = -std::numeric_limits<float>::infinity();
  *hi = std::numeric_limits<float>::infinity();
  switch (act) {
    case LayerKind::kInput: return Status::ok();
    case LayerKind::kRelu: *lo = 0.f; return Status::ok();
    case LayerKind::kRelu6: *lo = 0.f; *hi = 6.f; return Status::ok();
    default: return unsupported(std::string("xnnpack fuses only relu / relu6 as an output clamp, not ") + to_string(act));
  }
}

XnnPrim::XnnPrim(const PrimitiveArgs& a)
    : Primitive(a.desc.name()), layer_(*a.layer), desc_(a.desc), pool_(pool_for(a.desc.threads)) {
  release_weights(layer_);
  out_dtype_ = a.desc.dtype_out;
}

XnnPrim::~XnnPrim() {
  if (op_) xnn_delete_operator(op_);
}

Status XnnPrim::reshape(const std::vector<Shape>& in) {
  in_ = in;
  return infer_layer_shape(layer_, in, &out_shape_);
}

Status XnnPrim::run() { return check(xnn_run_operator(op_, pool_), "xnn_run_operator"); }

}  // namespace lw::xnn
