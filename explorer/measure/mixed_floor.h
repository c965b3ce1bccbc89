/// \file
/// opt-mixed under the accuracy floor of issue 12 (QS-DNN §V-C: the accuracy cost of reduced
/// precision is only known by running it). The latency optimum over f32 + bf16 + int8 is
/// planned and run on the device; while it breaks the floor (random-weight models: SQNR vs
/// the f32 reference below kMixedMinSqnrDb; Fashion-MNIST members: more than
/// kMixedMaxTop1Loss of top-1 lost), layers are promoted one precision step (int8 -> bf16 or
/// f32, then bf16 -> f32), those whose reduced precision saves the least LUT time first, and
/// the optimum re-planned under the promotions. The number of promoted layers is found by
/// bisection (a deployment that passes is always one that was run and checked).
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "env/lut.h"
#include "explorer/measure/baselines.h"
#include "explorer/measure/deployment.h"

namespace lw {

constexpr double kMixedMinSqnrDb = 30;      // random-weight models: SQNR vs f32 on each check input
constexpr double kMixedMaxTop1Loss = 0.01;  // Fashion-MNIST members: top-1 lost vs f32 (1 point)
constexpr int kMixedCheckInputs = 4;        // random-weight models: fidelity inputs of the check
constexpr int kMixedCheckImages = 1000;     // Fashion-MNIST members: test images of the check

/// The floor (the defaults are issue 12's; tests raise them to force promotions).
struct MixedFloor {
  double min_sqnr_db = kMixedMinSqnrDb;
  double max_top1_loss = kMixedMaxTop1Loss;
};

/// The latency optimum of a (restricted) LUT: the planner the bench uses for opt-mixed.
using MixedPlanner = std::function<Status(const Lut& lut, NamedDeployment* out)>;

struct MixedFloorResult {
  NamedDeployment deployment;
  double unconstrained_metric = 0;  // worst input's SQNR dB, or top-1, of the plain latency optimum
  double metric = 0;                // the same for the deployment kept
  std::string metric_name;          // "sqnr_db" or "top1"
  int probes = 0;                   // deployments planned and checked on the device
  int promoted = 0;                 // precision steps taken (layers promoted)
  std::string note;                 // one line for logs
};

/// The fastest deployment found that passes the floor. `o` carries the registry, the LUT
/// and the calibrated quantisation the deployments run with.
Status plan_mixed_under_floor(const Network& net, const Lut& lut, const MixedPlanner& plan,
                              const DeploymentOptions& o, const MixedFloor& floor, MixedFloorResult* out);

}  // namespace lw
