// `layerwise train`: trains a Fashion-MNIST member of the zoo with LibTorch from our IR, writes
// the network JSON + weights, then reloads them and measures test accuracy with our own
// reference executor (BatchNorm folded) next to LibTorch's, proving the weights load.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

#include "explorer/cli/cli.h"
#include "explorer/commands/model_arg.h"
#include "libs/data/fashion_mnist.h"
#include "libs/ir/network_json.h"
#include "libs/ref/reference.h"
#include "libs/torch/train.h"

namespace lw::cli {
namespace {

constexpr int kEvalBatch = 100;
constexpr int kNonTtyProgressEvery = 100;  // steps between progress lines when stderr is a file

std::string clock_text(double s) {
  char buf[32];
  int t = int(s + 0.5);
  std::snprintf(buf, sizeof buf, "%dm%02ds", t / 60, t % 60);
  return buf;
}

// Top-1 on `data` with the reference executor, split over `threads` workers by image range.
Status reference_accuracy(const Network& folded, const FashionMnist& data, int threads, double* accuracy) {
  Network net = folded;
  net.layers[0].out.n = kEvalBatch;
  LW_RETURN_IF_ERROR(infer_shapes(net));
  int batches = (data.count + kEvalBatch - 1) / kEvalBatch;
  std::vector<int64_t> correct(threads, 0);
  std::vector<Status> status(threads);
  auto work = [&](int t) {
    for (int b = t; b < batches; b += threads) {
      int first = std::min(b * kEvalBatch, data.count - kEvalBatch);  // last batch overlaps, counted once below
      std::vector<Tensor> outs;
      status[t] = reference_forward(net, fashion_mnist_batch(data, first, kEvalBatch), &outs);
      if (!status[t].is_ok()) return;
      const Tensor& y = outs.back();
      for (int k = std::max(0, b * kEvalBatch - first); k < kEvalBatch; ++k) {
        const float* s = y.f32() + int64_t(k) * kFashionMnistClasses;
        correct[t] += int(std::max_element(s, s + kFashionMnistClasses) - s) == data.labels[first + k];
      }
    }
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back(work, t);
  for (auto& th : pool) th.join();
  for (const Status& s : status) LW_RETURN_IF_ERROR(s);
  int64_t sum = 0;
  for (int64_t c : correct) sum += c;
  *accuracy = double(sum) / data.count;
  return Status::ok();
}

TrainProgress progress_printer(bool quiet, int epochs) {
  if (quiet) return nullptr;
  bool tty = isatty(fileno(stderr));
  return [tty, epochs](int epoch, int step, int steps, double loss, double elapsed) {
    bool last = step + 1 == steps;
    if (!tty && !last && (step + 1) % kNonTtyProgressEvery) return;
    double done = (double(epoch) * steps + step + 1) / (double(epochs) * steps);
    std::fprintf(stderr, "%sepoch %d/%d  step %d/%d  loss %.4f  elapsed %s  ETA %s%s", tty ? "\r" : "", epoch + 1,
                 epochs, step + 1, steps, loss, clock_text(elapsed).c_str(),
                 clock_text(elapsed / done * (1 - done)).c_str(), (tty && !last) ? "" : "\n");
    std::fflush(stderr);
  };
}

std::string weights_path_for(const std::string& json_path) {
  const std::string ext = ".json";
  bool has_ext = json_path.size() > ext.size() && json_path.compare(json_path.size() - ext.size(), ext.size(), ext) == 0;
  if (!has_ext) throw UsageError("--out must name a .json file, got '" + json_path + "'");
  return json_path.substr(0, json_path.size() - ext.size()) + ".weights";
}

int run_train(const std::vector<std::string>& argv) {
  Args args(argv, {"quiet", "no-augment"},
            {"model", "out", "epochs", "seed", "batch", "lr", "weight-decay", "threads", "limit-train", "limit-test", "data"});
  if (!args.has("model")) throw UsageError("--model is required (a fmnist_* zoo name or network .json)");
  if (!args.has("out")) throw UsageError("--out is required (network .json to write; weights go beside it)");
  TrainOptions o;
  o.epochs = args.get_int("epochs", kDefaultTrainEpochs);
  o.seed = uint64_t(args.get_int("seed", 1));
  o.batch = args.get_int("batch", kDefaultTrainBatch);
  o.lr = args.get_double("lr", kDefaultTrainLr);
  o.weight_decay = args.get_double("weight-decay", kDefaultWeightDecay);
  o.threads = std::max(1, args.get_int("threads", kDefaultTrainThreads));
  o.limit_train = args.get_int("limit-train", 0);
  o.augment = !args.flag("no-augment");
  std::string out = args.get("out"), weights = weights_path_for(out), dir = fashion_mnist_dir(args.get("data"));

  Network net = load_model_unfolded(args.get("model"), o.seed);  // seeded init unless the file has weights
  FashionMnist train, test;
  ok_or_throw(load_fashion_mnist(Split::kTrain, &train, dir));
  ok_or_throw(load_fashion_mnist(Split::kTest, &test, dir));
  int limit_test = args.get_int("limit-test", 0);  // smoke tests only: the first N test images
  if (limit_test > 0 && limit_test < test.count) {
    test.count = limit_test;
    test.labels.resize(limit_test);
    test.pixels.resize(size_t(limit_test) * kFashionMnistSide * kFashionMnistSide);
  }
  TrainResult r;
  ok_or_throw(train_fashion_mnist(&net, train, o, progress_printer(args.flag("quiet"), o.epochs), &r));
  ok_or_throw(save_network(net, out, weights));

  double torch_acc = 0, ref_acc = 0;
  ok_or_throw(torch_accuracy(net, test, kEvalBatch, &torch_acc));
  // From disk, folded, on our executor: what every later Layerwise stage will run.
  Network loaded, folded;
  ok_or_throw(load_network(out, &loaded));
  ok_or_throw(fold_affine(loaded, &folded));
  auto t0 = std::chrono::steady_clock::now();
  ok_or_throw(reference_accuracy(folded, test, o.threads, &ref_acc));
  double ref_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  std::printf("model        %s (%.3f M params, %.2f M MACs per image)\n", net.name.c_str(), total_params(net) / 1e6,
              total_macs(net) / 1e6);
  std::printf("training     %d epochs, batch %d, AdamW lr %g wd %g, seed %llu, %d threads, augment %s, %d images\n",
              o.epochs, o.batch, o.lr, o.weight_decay, (unsigned long long)o.seed, o.threads, o.augment ? "yes" : "no",
              o.limit_train > 0 ? std::min(o.limit_train, train.count) : train.count);
  for (const EpochLog& e : r.epochs)
    std::printf("epoch %-6d loss %.4f  train acc %.2f %%  %.1f s\n", e.epoch, e.loss, 100 * e.train_accuracy, e.seconds);
  std::printf("train time   %.1f s\n", r.wall_seconds);
  std::printf("test top-1   LibTorch %.2f %%   reference executor (from %s, BatchNorm folded) %.2f %%   "
              "(%d images; reference eval %.1f s)\n",
              100 * torch_acc, out.c_str(), 100 * ref_acc, test.count, ref_s);
  std::printf("wrote        %s, %s\n", out.c_str(), weights.c_str());
  return 0;
}

Registrar reg({"train", "train a Fashion-MNIST zoo member with LibTorch",
               "usage: layerwise train --model <fmnist_* | network.json> --out <network.json> [--epochs N]\n"
               "                       [--seed S] [--batch B] [--lr X] [--weight-decay X] [--threads T]\n"
               "                       [--limit-train N] [--limit-test N] [--no-augment] [--data DIR] [--quiet]\n\n"
               "Trains the network (our IR, run by LibTorch; BatchNorm in train mode) on the Fashion-MNIST\n"
               "train split with AdamW, warm-up + cosine learning rate, random +-2 pixel shifts and flips.\n"
               "Writes --out and its weights file (<out>.weights), reloads them, folds BatchNorm and\n"
               "reports test top-1 of LibTorch and of the reference executor on the 10000 test images\n"
               "(--limit-train / --limit-test: the first N images only, for smoke tests).\n"
               "Same model, seed, options and thread count give the same weights. Progress on stderr.\n"
               "Defaults: 8 epochs, batch 128, lr 0.002, weight decay 0.05, seed 1, 2 threads, data in\n"
               "/usr/share/datasets/fashion-mnist (Debian package dataset-fashion-mnist).\n",
               run_train});

}  // namespace
}  // namespace lw::cli
