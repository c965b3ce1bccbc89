// What the profiler's tests share: a tiny network, a fast protocol whose far-core and
// shared-core spells the test places, a temporary folder, the native registry.
#pragma once
#include <unistd.h>

#include <filesystem>
#include <string>

#include "env/profiler.h"
#include "libs/native/native.h"
#include "libs/zoo/zoo_builder.h"

namespace lw::testing {

inline Network tiny(int channels = 8) {
  NetBuilder b("tiny", Shape{1, 3, 12, 12});
  int x = b.act(b.conv(0, channels, 3), LayerKind::kRelu);
  x = b.max_pool(x, 2, 2);
  x = b.conv(x, 5, 1, 1, 0);
  b.fc(b.flatten(b.global_avg_pool(x)), 4);
  Network net = b.finish();
  init_random_weights(net, 1);
  return net;
}

inline ProfileOptions fast_options(const std::string& out) {
  ProfileOptions o;
  o.protocol.warmup = 0;
  o.protocol.runs = 2;
  o.protocol.max_runs = 2;
  o.protocol.far_cores_wait_s = 0;  // the host's far spells are the test's to place (core_link_probe)
  o.core_pair_probe = [](int, const std::string&) { return 1.0; };  // and its shared-core spells
  o.out_path = out;
  return o;
}

struct TempDir {
  std::filesystem::path path = std::filesystem::temp_directory_path() / ("lw_profiler_" + std::to_string(::getpid()));
  TempDir() { std::filesystem::create_directories(path); }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string operator/(const std::string& f) const { return (path / f).string(); }
};

inline const Registry& native_registry() {
  static Registry r = [] {
    Registry reg;
    register_native(reg);
    return reg;
  }();
  return r;
}

}  // namespace lw::testing
