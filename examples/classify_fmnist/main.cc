// classify_fmnist: an application of the Layerwise runtime API. Loads a deployment bundle
// (`layerwise export`, or deployment.lwb of `layerwise run`), classifies the first N
// Fashion-MNIST test images with it and prints the top-1 accuracy and per-image latency
// percentiles, next to the accuracy the explorer recorded in the bundle.
//
//   classify_fmnist <bundle.lwb> [images (default: as many as the bundle's record)]
//                   [--data-dir DIR] [--force]
// Exit status: 0; 1 on an error (one line); 3 if the accuracy differs from the bundle's
// record on the same images (it must not: same kernels, same quantisation, same chains).
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <layerwise/layerwise.h>

namespace {

// The preprocessing the explorer applies (libs/data/fashion_mnist.h): 28x28 grey bytes
// scaled to [0, 1], normalised by the training set's mean and std, centred on a 32x32
// canvas of the normalised background.
constexpr int kSide = 28, kCanvas = 32;
constexpr float kMean = 0.286041f, kStd = 0.353024f;

bool read_gz(const std::string& path, std::vector<unsigned char>* out) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) return false;
  unsigned char buf[1 << 16];
  for (int n; (n = gzread(f, buf, sizeof buf)) > 0;) out->insert(out->end(), buf, buf + n);
  gzclose(f);
  return true;
}

uint32_t be32(const unsigned char* p) { return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3]; }

void image(const unsigned char* px, float* dst) {
  constexpr int margin = (kCanvas - kSide) / 2;
  std::fill(dst, dst + kCanvas * kCanvas, (0.f - kMean) / kStd);
  for (int r = 0; r < kSide; ++r)
    for (int c = 0; c < kSide; ++c) {
      float v = px[r * kSide + c] / 255.f;
      dst[(r + margin) * kCanvas + (c + margin)] = (v - kMean) / kStd;
    }
}

double percentile(std::vector<double> v, double p) {  // nearest rank
  std::sort(v.begin(), v.end());
  size_t i = size_t(std::ceil(p / 100.0 * double(v.size())));
  return v[std::min(v.size() - 1, i == 0 ? 0 : i - 1)];
}

int fail(const std::string& m) {
  std::fprintf(stderr, "classify_fmnist: %s\n", m.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::string bundle, dir = "/usr/share/datasets/fashion-mnist";
  int images = 0;
  layerwise::Options options;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--force") options.force = true;
    else if (a == "--data-dir" && i + 1 < argc) dir = argv[++i];
    else if (bundle.empty()) bundle = a;
    else images = std::atoi(a.c_str());
  }
  if (bundle.empty()) return fail("usage: classify_fmnist <bundle.lwb> [images] [--data-dir DIR] [--force]");

  std::unique_ptr<layerwise::Model> model;
  layerwise::Status s = layerwise::Model::create(bundle, options, &model);
  if (!s.ok()) return fail(std::string(layerwise::to_string(s.code)) + ": " + s.message);
  const layerwise::Shape in = model->input_shape(), out = model->output_shape();
  if (in.n != 1 || in.c != 1 || in.h != kCanvas || in.w != kCanvas || out.elements() != 10)
    return fail("the bundle's model is not a Fashion-MNIST classifier (1x1x32x32 in, 10 classes out)");
  const layerwise::BundleInfo info = model->info();

  std::vector<unsigned char> px, labels;
  if (!read_gz(dir + "/t10k-images-idx3-ubyte.gz", &px) || !read_gz(dir + "/t10k-labels-idx1-ubyte.gz", &labels) ||
      px.size() < 16 || labels.size() < 8 || be32(px.data()) != 2051 || be32(labels.data()) != 2049)
    return fail("cannot read the Fashion-MNIST test split in " + dir);
  const int count = int(std::min<uint32_t>(be32(px.data() + 4), be32(labels.data() + 4)));
  if (images <= 0) images = info.measured_images > 0 ? info.measured_images : count;
  images = std::min(images, count);

  // Buffers allocated once; run() allocates nothing.
  std::vector<float> x(size_t(in.elements())), y(size_t(out.elements()));
  std::vector<double> ms;
  ms.reserve(size_t(images));
  int correct = 0;
  layerwise::CallerPin pin;  // pins this thread once for all the images, not once per run()
  for (int i = 0; i < images; ++i) {
    image(px.data() + 16 + size_t(i) * kSide * kSide, x.data());
    auto t0 = std::chrono::steady_clock::now();
    s = model->run(x.data(), x.size(), y.data(), y.size());
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    if (!s.ok()) return fail(std::string(layerwise::to_string(s.code)) + ": " + s.message);
    int best = 0;  // first maximum, as the explorer's argmax
    for (int k = 1; k < 10; ++k)
      if (y[k] > y[best]) best = k;
    correct += best == labels[8 + i];
  }
  std::printf("model     %s, deployment %s (%d layers, %d steps)\n", info.model.c_str(), info.label.c_str(), info.layers,
              info.steps);
  std::printf("accuracy  top-1 %.2f %% (%d / %d test images)\n", 100.0 * correct / images, correct, images);
  std::printf("latency   p50 %.3f ms, p90 %.3f ms, p99 %.3f ms per image; LUT prediction %.3f ms\n", percentile(ms, 50),
              percentile(ms, 90), percentile(ms, 99), info.predicted_ms);
  if (info.measured_metric == "top1") {
    const bool same_images = info.measured_images == images;
    const bool same = same_images && std::lround(info.measured_top1 * images) == correct;
    std::printf("explorer  top-1 %.2f %% on %d images%s: %s\n", 100 * info.measured_top1, info.measured_images,
                info.measured_median_ms > 0 ? (", replay median " + std::to_string(info.measured_median_ms) + " ms").c_str() : "",
                !same_images ? "other images" : same ? "identical" : "DIFFERS");
    if (same_images && !same) return 3;
  }
  return 0;
}
