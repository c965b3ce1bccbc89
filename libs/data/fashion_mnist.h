/// \file
/// Real data for accuracy on the device: Fashion-MNIST (Xiao et al. 2017) as shipped by the
/// Debian package `dataset-fashion-mnist` (IDX files, gzip). `layerwise train` trains the
/// zoo's Fashion-MNIST members on the train split; the accuracy filter measures deployments
/// on the test split (calibration uses the train split only). No LibTorch here.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "libs/core/status.h"
#include "libs/core/tensor.h"

namespace lw {

constexpr char kFashionMnistDir[] = "/usr/share/datasets/fashion-mnist";
constexpr char kFashionMnistPackage[] = "dataset-fashion-mnist";
/// Names another Fashion-MNIST directory for every command (a --data-dir flag wins over it).
constexpr char kFashionMnistDirEnv[] = "LAYERWISE_FASHION_MNIST_DIR";
constexpr int kFashionMnistSide = 28;    // stored images are 28 x 28 grey bytes
constexpr int kFashionMnistCanvas = 32;  // networks see 32 x 32 (zero-padded by 2)
constexpr int kFashionMnistClasses = 10;
/// Mean and standard deviation of the train split's 60000 x 28 x 28 pixels scaled to
/// [0, 1]; test_data recomputes them from the files and checks these values.
constexpr float kFashionMnistMean = 0.286041f;
constexpr float kFashionMnistStd = 0.353024f;

enum class Split { kTrain, kTest };
const char* to_string(Split s);  // "train", "test"

struct FashionMnist {
  int count = 0;
  std::vector<uint8_t> pixels;  // count x 28 x 28, row-major
  std::vector<uint8_t> labels;  // count, each in [0, 10)
};

/// The Fashion-MNIST directory: `flag` when given, else $LAYERWISE_FASHION_MNIST_DIR, else
/// the Debian package's.
std::string fashion_mnist_dir(const std::string& flag = "");

/// Reads `<dir>/{train,t10k}-{images-idx3,labels-idx1}-ubyte.gz` ("" = fashion_mnist_dir()),
/// checking magic numbers, sizes and label range. A missing, truncated or corrupt file gives
/// a one-line error that names the file (and, when missing, where the directory came from).
/// A split is decoded once per process and then copied (the files' size and time unchanged);
/// `out` null: only checked (decoded into that cache, nothing copied).
Status load_fashion_mnist(Split split, FashionMnist* out, const std::string& dir = "");

/// Writes image `i` as 32 x 32 floats: the 28 x 28 image on a background (0) canvas, shifted
/// by (dy, dx) in [-2, 2] from the centre and mirrored left-right when `flip` (training
/// augmentation), then normalised as (pixel / 255 - mean) / std.
void fashion_mnist_image(const FashionMnist& d, int i, float* dst, int dy = 0, int dx = 0, bool flip = false);

/// Images [first, first + count) as an N x 1 x 32 x 32 NCHW tensor, centred, not augmented.
Tensor fashion_mnist_batch(const FashionMnist& d, int first, int count);

/// Reads a whole gzip file; a truncated or corrupt stream is an error naming the file.
Status read_gzip_file(const std::string& path, std::string* data);

}  // namespace lw
