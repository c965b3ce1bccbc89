// The cost model charges what the executor runs: on a network whose
// tensors fan out to three consumers, for random deployments drawn from a real (quick) LUT,
// the conversion steps the executor inserts for each layer are exactly the chains
// conversion_in_ms charges that layer (a conversion several consumers share: once, on the
// first), in number and in LUT cost.
#include <doctest/doctest.h>

#include <map>

#include "env/cost.h"
#include "env/env.h"
#include "env/rng.h"
#include "explorer/measure/deployment.h"
#include "libs/exec/backends.h"
#include "libs/zoo/zoo_builder.h"
#include "tests/tiny_profile.h"

using namespace lw;
using namespace lw::testing;

namespace {

// x feeds two convs and the last add; every tensor but the input has one shape (8 x 12 x 12),
// so a converter's LUT cost is found by its name alone.
Network fanout_net() {
  NetBuilder b("fanout", Shape{1, 3, 12, 12});
  const int x = b.conv(0, 8, 3);
  const int y = b.conv(x, 8, 3), z = b.conv(x, 8, 1, 1, 0);
  b.add(b.add(y, z), x);
  Network net = b.finish();
  init_random_weights(net, 9);
  return net;
}

double converter_ms(const Lut& lut, const std::vector<int64_t>& shape, const std::string& name) {
  for (const ConverterCosts& c : lut.converters)
    if (c.shape == shape)
      for (const auto& [n, ms] : c.ms)
        if (n == name) return ms;
  return -1;
}

// Chain steps the model charges layer t: each charged conversion's LUT chain length. Counts
// in *waived the edges whose conversion an earlier consumer already paid for.
int charged_steps(const Lut& lut, const Problem& p, const std::vector<int>& a, int t, int* waived) {
  auto chain = [&](int prod, int from, int to) {
    for (const Conversion& c : lut.conversions)
      if (c.producer == prod && c.from_format == from && c.to_format == to) return int(c.chain.size());
    return -1000;
  };
  int steps = 0;
  const int target = p.fields[p.offset[t] + a[t]].in_format;
  for (int e = p.in_begin[t]; e < p.in_begin[t + 1]; ++e) {
    const Problem::Edge& edge = p.edges[e];
    if (!(p.edge_cost(edge, a[edge.producer], a[t]) > 0)) continue;
    bool paid = false;
    for (int q = p.prev_out[e]; q >= 0; q = p.prev_out[q]) {
      const int c = p.edges[q].consumer;
      paid |= p.fields[p.offset[c] + a[c]].in_format == target && p.edge_cost(p.edges[q], a[edge.producer], a[c]) > 0;
    }
    *waived += paid;
    if (!paid) steps += chain(edge.producer, p.fields[p.offset[edge.producer] + a[edge.producer]].out_format, target);
  }
  if (t == p.n - 1 && p.fields[p.offset[t] + a[t]].out_format != lut.output_format)
    steps += chain(t, p.fields[p.offset[t] + a[t]].out_format, lut.output_format);
  return steps;
}

// The layer the model charges for a conversion step. A conv that absorbs an add (oneDNN sum
// post-op) reads the add's residual, so the executor converts it in the conv's step while
// the model charges it on the add's residual edge.
int charged_layer(const Problem& p, const std::vector<int>& a, const ExecStep& st) {
  for (const Problem::Edge& e : p.edges) {
    if (!e.residual || e.producer != st.source || !p.fields[p.offset[e.consumer] + a[e.consumer]].fused_consumer)
      continue;
    for (int q = p.in_begin[e.consumer]; q < p.in_begin[e.consumer + 1]; ++q)
      if (!p.edges[q].residual && p.edges[q].producer == st.layer) return e.consumer;
  }
  return st.layer;
}

}  // namespace

TEST_CASE("the executor inserts exactly the conversions the cost model charges, shared ones once") {
  const Network net = fanout_net();
  const Lut lut = quick_profile(net);
  Lut conversions_only = lut;  // (thread-pool hand-offs are no executor steps: test_handoff)
  conversions_only.runtime.handoffs.clear();
  Problem p;
  REQUIRE(compile_problem(conversions_only, &p).is_ok());
  std::vector<Tensor> samples;
  REQUIRE(calibration_samples(net, 2, &samples).is_ok());
  DeploymentOptions d;
  d.registry = &default_registry();
  d.lut = &lut;
  REQUIRE(calibrate_network(net, default_registry(), samples, &d.quant).is_ok());
  DeploymentEnv env(p);
  Rng rng(17);
  int deployments = 0, with_shared = 0;
  for (int k = 0; k < 60; ++k) {
    env.reset();
    while (!env.done()) {
      std::vector<int> ok;
      for (int a = 0; a < env.num_actions(); ++a)
        if (env.allowed(a)) ok.push_back(a);
      env.step(ok[rng.below(int(ok.size()))]);
    }
    const std::vector<int>& a = env.assignment();
    std::vector<std::string> names;
    for (int t = 0; t < p.n; ++t) names.push_back(lut.layers[t].impls[a[t]].name);
    std::vector<ImplDesc> desc;
    REQUIRE(assignment_from_names(net, lut, names, &desc).is_ok());
    std::unique_ptr<Executor> ex;
    Status s = plan_deployment(net, desc, d, &ex);
    REQUIRE_MESSAGE(s.is_ok(), s.to_string());
    std::map<int, int> steps;
    std::map<int, double> ms;
    for (const ExecStep& st : ex->steps())
      if (st.conversion) {
        const int t = charged_layer(p, a, st);
        ++steps[t];
        ms[t] += converter_ms(lut, lut.layers[st.source].out_shape, st.name);
      }
    int waived = 0;
    for (int t = 1; t < p.n; ++t) {
      CAPTURE(k);
      CAPTURE(t);
      CHECK(steps[t] == charged_steps(lut, p, a, t, &waived));
      const double copies = t == p.n - 1 ? lut.runtime.input_copy_ms + lut.runtime.output_copy_ms : 0.0;  // no step
      CHECK(ms[t] == doctest::Approx(conversion_in_ms(p, a.data(), t, a[t]) - copies).epsilon(1e-9));
    }
    with_shared += waived > 0;
    ++deployments;
  }
  MESSAGE(deployments << " deployments, " << with_shared << " with a conversion shared by two consumers");
  CHECK(with_shared > 5);
}
