// A small conv network and a quick real LUT of it, for tests of the stages that need real
// kernels and measured costs (baselines, filter / replay, bench) but not meaningful timings.
#pragma once
#include <doctest/doctest.h>

#include <string>
#include <utility>

#include "env/profiler.h"
#include "libs/exec/backends.h"
#include "libs/zoo/zoo_builder.h"

namespace lw::testing {

/// conv 3x3 + relu, depthwise 3x3 stride 2 + relu6, conv 1x1, global average pool, FC to 10:
/// runtime fusion, depthwise, stride 2 and a layout-sensitive flatten in six layers. Seeded
/// random weights.
inline Network tiny_conv_net(Shape in, const std::string& name) {
  NetBuilder b(name, in);
  int x = b.act(b.conv(0, 16, 3), LayerKind::kRelu);
  x = b.act(b.conv(x, 16, 3, 2, 1, 16), LayerKind::kRelu6);
  x = b.conv(x, 24, 1, 1, 0);
  b.fc(b.flatten(b.global_avg_pool(x)), 10);
  Network net = b.finish();
  init_random_weights(net, 3);
  return net;
}

/// Every registered implementation of every layer, two timed runs each: real, rough costs.
inline ProfileOptions quick_profile_options() {
  ProfileOptions o;
  o.protocol.warmup = 0;
  o.protocol.runs = o.protocol.max_runs = 2;
  return o;
}

inline Lut quick_profile(const Network& net) {
  const ProfileOptions o = quick_profile_options();
  Lut lut;
  REQUIRE(profile_network(net, default_registry(), o, &lut).is_ok());
  return lut;
}

/// A network with its quick LUT: a test file keeps one in a function-local static, so the
/// profile runs once per file.
struct ProfiledNet {
  Network net;
  Lut lut;
};

inline ProfiledNet profiled(Network net) {
  ProfiledNet p{std::move(net), {}};
  p.lut = quick_profile(p.net);
  return p;
}

}  // namespace lw::testing
