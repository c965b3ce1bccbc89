#include "explorer/commands/infer_bundle.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "env/bundle.h"
#include "env/device.h"
#include "explorer/measure/accuracy.h"
#include "explorer/measure/deployment.h"
#include "explorer/commands/model_arg.h"
#include "explorer/measure/evaluator.h"
#include "libs/exec/backends.h"
#include "libs/ops/thread_pool.h"

namespace lw::cli {

const char* const kInferBundleHelp =
    "       layerwise infer --bundle B.lwb [--test-images N] [--data-dir DIR] [--force] [--seed N]\n"
    "                       [--repeats N] [--per-layer]\n"
    "With --bundle it runs a deployment bundle (`layerwise export`) with the runtime's checks: on a\n"
    "Fashion-MNIST model the top-1 and per-image latency percentiles over the first --test-images\n"
    "test images (default: as many as the bundle's recorded accuracy), compared with the accuracy\n"
    "recorded at export; otherwise the latency on a seeded random input. --force runs a bundle\n"
    "from another device or Layerwise version (never one needing a CPU feature missing here).\n\n";

namespace {

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  if (v.empty()) return 0;
  size_t i = size_t(std::ceil(p / 100.0 * double(v.size())));
  return v[std::min(v.size() - 1, i == 0 ? 0 : i - 1)];  // nearest rank
}

void load_checked(const Args& args, Bundle* b) {
  const std::string path = args.get("bundle");
  ok_or_throw(read_bundle(path, b));
  Status s = check_bundle_isa(*b);
  if (!s.is_ok()) throw UsageError(path + ": " + s.message());
  if (!args.flag("force") && !(s = check_bundle_device(*b, device_fingerprint())).is_ok())
    throw UsageError(path + ": " + s.message());
}

// Top-1 on the first n test images, one image per run as the accuracy checks do, each run
// timed: the same figures the example application prints.
void classify(const Args& args, const Bundle& b, Executor& ex) {
  FashionMnist test;
  ok_or_throw(load_fashion_mnist(Split::kTest, &test, args.get("data-dir")));
  int recorded = b.measured.is_object() && b.measured.contains("accuracy") ? b.measured["accuracy"].value("images", 0) : 0;
  int n = args.get_int("test-images", recorded > 0 ? recorded : kDefaultTestImages);
  if (n <= 0 || n > test.count) n = test.count;
  std::vector<double> ms;
  int correct = 0;
  ScopedPin pin;  // once for all runs, as an application holding layerwise::CallerPin
  Tensor y;
  for (int i = 0; i < n; ++i) {
    Tensor x = fashion_mnist_batch(test, i, 1);
    auto t0 = std::chrono::steady_clock::now();
    ok_or_throw(ex.run(x, &y));
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    correct += argmax(y) == test.labels[i];
  }
  std::printf("accuracy  top-1 %.2f %% (%d / %d test images)\n", 100.0 * correct / n, correct, n);
  std::printf("latency   p50 %.3f ms, p90 %.3f ms, p99 %.3f ms per image (%d runs)\n", percentile(ms, 50),
              percentile(ms, 90), percentile(ms, 99), n);
  if (recorded > 0) {
    double top1 = b.measured["accuracy"].value("top1", -1.0);
    bool same = recorded == n && std::lround(top1 * n) == correct;
    std::printf("explorer  top-1 %.2f %% on %d images (recorded at export): %s\n", 100 * top1, recorded,
                recorded != n ? "other images" : same ? "identical" : "DIFFERS");
  }
}

}  // namespace

int infer_bundle(const Args& args) {
  Bundle b;
  load_checked(args, &b);
  std::unique_ptr<Executor> ex;
  ok_or_throw(plan_bundle(b, default_registry(), args.flag("per-layer"), &ex));
  int convs = 0;
  for (const ExecStep& s : ex->steps()) convs += s.conversion;
  std::printf("bundle    %s: %s, deployment %s (Layerwise %s, exported %s)\n", args.get("bundle").c_str(), b.model.c_str(),
              b.label.c_str(), b.layerwise_version.c_str(), b.created.c_str());
  std::printf("plan      %zu steps (%d conversions); LUT prediction %.3f ms; needs %s\n", ex->steps().size(), convs,
              b.predicted_ms, b.isa.empty() ? "baseline x86-64" : nlohmann::json(b.isa).dump().c_str());
  if (data_source_for(b.net) == DataSource::kFashionMnist) {
    classify(args, b, *ex);
  } else {
    Tensor x = random_input(b.net, uint64_t(args.get_int("seed", 0))), y;
    ScopedPin pin;  // once for all runs, as an application holding layerwise::CallerPin
    ok_or_throw(ex->run(x, &y));
    std::vector<double> ms;
    for (int r = 0; r < std::max(1, args.get_int("repeats", 5)); ++r) {
      auto t0 = std::chrono::steady_clock::now();
      ok_or_throw(ex->run(x, &y));
      ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::printf("latency   p50 %.3f ms over %zu runs (seeded random input)\n", percentile(ms, 50), ms.size());
  }
  if (args.flag("per-layer"))
    for (const ExecStep& s : ex->steps()) std::printf("  %8.3f ms  %s\n", s.last_ms, s.name.c_str());
  return 0;
}

}  // namespace lw::cli
