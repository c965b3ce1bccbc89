#include "explorer/commands/stage_args.h"

#include <chrono>

#include "explorer/commands/model_arg.h"
#include "libs/data/fashion_mnist.h"
#include "libs/exec/backends.h"

namespace lw::cli {

std::set<std::string> eval_option_names() {
  return {"model", "lut", "test-images", "calibration-images", "fidelity-inputs", "threads", "data-dir",
          "eval-inputs", "eval-labels", "calibration-inputs", "calibration-method"};
}

const char* const kEvalOptionsHelp =
    "  --model M                 zoo name, network .json (with its weights file) or .onnx file\n"
    "  --lut L                   the LUT `layerwise profile` wrote for this model on this device\n"
    "  --test-images N           Fashion-MNIST test images evaluated per deployment (default 2000; 0 = all 10000)\n"
    "  --calibration-images N    train images (random-weight models: seeded inputs) for int8 calibration (256)\n"
    "  --calibration-method M    int8 activation ranges: minmax (every calibration value in range,\n"
    "                            default) or mse (least quantisation error per tensor)\n"
    "  --fidelity-inputs N       random-weight models: inputs compared with the f32 reference (16)\n"
    "  --threads 1|2             thread cap of the reference deployments ref-fp32/opt-fp32/all-int8 (2)\n"
    "  --data-dir DIR            Fashion-MNIST directory (default $LAYERWISE_FASHION_MNIST_DIR, else\n"
    "                            /usr/share/datasets/fashion-mnist from the Debian package)\n"
    "  --eval-inputs X.npy       your labelled evaluation samples, float32 [count, C, H, W] (instead of\n"
    "                            Fashion-MNIST or fidelity); --eval-labels Y.npy: [count] integer classes\n"
    "  --calibration-inputs C.npy  your int8 calibration samples, float32 [count, C, H, W]\n"
    "  --quiet                   no progress line on stderr\n"
    "Timings pin to the first CPUs of the process's affinity mask (as the profiler does), so every\n"
    "Layerwise process on a machine lands on cpu0: on a shared machine profile and measure under\n"
    "`taskset -c N` on a quieter CPU, the same one for profile, filter and replay.\n";

CalibrationMethod calibration_method_arg(const Args& args) {
  const std::string v = args.get("calibration-method", to_string(kDefaultCalibrationMethod));
  if (auto m = parse_calibration_method(v)) return *m;
  throw UsageError("--calibration-method: unknown method '" + v + "' (known: " + calibration_method_names() + ")");
}

void setup_stage(const Args& args, StageSetup* s) {
  if (!args.has("model") || !args.has("lut")) throw UsageError("--model and --lut are required (see --help)");
  s->net = load_model(args.get("model"));
  ok_or_throw(load_lut(args.get("lut"), &s->lut));
}

void start_evaluator(const Args& args, int timing_runs, StageSetup* s) {
  EvalOptions o;
  o.registry = &default_registry();
  o.test_images = args.get_int("test-images", kDefaultTestImages);
  o.calibration_images = args.get_int("calibration-images", kDefaultCalibrationImages);
  o.calibration_method = calibration_method_arg(args);
  o.fidelity_inputs = args.get_int("fidelity-inputs", kDefaultFidelityInputs);
  o.max_threads = args.get_int("threads", 2);
  o.timing.runs = o.timing.max_runs = timing_runs;
  o.data_dir = fashion_mnist_dir(args.get("data-dir"));
  o.eval_inputs = args.get("eval-inputs");
  o.eval_labels = args.get("eval-labels");
  o.calibration_inputs = args.get("calibration-inputs");
  if (o.test_images < 0 || o.calibration_images < 1 || o.fidelity_inputs < 1)
    throw UsageError("--test-images must be >= 0, --calibration-images and --fidelity-inputs >= 1");
  if (o.max_threads != 1 && o.max_threads != 2) throw UsageError("--threads: 1 or 2");
  s->line = std::make_unique<ProgressLine>(args.flag("quiet"));
  // Overall progress over the expected deployments: a new label starts the next one.
  auto t0 = std::chrono::steady_clock::now();
  auto state = std::make_shared<std::pair<std::string, int>>("", -1);
  o.progress = [s, t0, state](const std::string& what, double f) {
    if (what != state->first) *state = {what, state->second + 1};
    double done = std::min(1.0, (state->second + f) / std::max(1, s->deployments));
    double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    s->line->update("measuring " + what, done, done > 0 ? el * (1 - done) / done : 0);
  };
  ok_or_throw(Evaluator::create(s->net, s->lut, o, &s->evaluator));
}

}  // namespace lw::cli
