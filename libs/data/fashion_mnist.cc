#include "libs/data/fashion_mnist.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <sys/stat.h>

namespace lw {
namespace {

constexpr uint32_t kLabelsMagic = 0x00000801;  // IDX: unsigned byte, 1 dimension
constexpr uint32_t kImagesMagic = 0x00000803;  // IDX: unsigned byte, 3 dimensions
constexpr int kReadChunk = 1 << 16;

uint32_t big_endian(const std::string& d, size_t at) {
  auto b = [&](size_t k) { return uint32_t(uint8_t(d[at + k])); };
  return b(0) << 24 | b(1) << 16 | b(2) << 8 | b(3);
}

// What to do about a missing file, by where its directory came from.
std::string missing_hint(const std::string& dir) {
  const std::string package = std::string("the Debian package ") + kFashionMnistPackage;
  if (dir == kFashionMnistDir) return " (install " + package + ": scripts/setup)";
  const char* env = std::getenv(kFashionMnistDirEnv);
  const std::string from = env && dir == env ? std::string("$") + kFashionMnistDirEnv + " names it; " : "";
  return " (" + from + package + " installs the files in " + kFashionMnistDir + ")";
}

// Checks an IDX header: magic, dimension sizes and that the payload is exactly complete.
Status check_idx(const std::string& path, const std::string& d, uint32_t magic, int* count) {
  size_t header = magic == kImagesMagic ? 16 : 8;
  if (d.size() < header) return parse_error(path + ": truncated IDX header (" + std::to_string(d.size()) + " bytes)");
  if (big_endian(d, 0) != magic)
    return parse_error(path + ": bad IDX magic number " + std::to_string(big_endian(d, 0)) + ", expected " +
                       std::to_string(magic));
  uint32_t n = big_endian(d, 4);
  size_t item = 1;
  if (magic == kImagesMagic) {
    uint32_t rows = big_endian(d, 8), cols = big_endian(d, 12);
    if (rows != kFashionMnistSide || cols != kFashionMnistSide)
      return parse_error(path + ": images are " + std::to_string(rows) + "x" + std::to_string(cols) + ", expected 28x28");
    item = size_t(rows) * cols;
  }
  if (d.size() != header + n * item)
    return parse_error(path + ": header says " + std::to_string(n) + " items (" + std::to_string(header + n * item) +
                       " bytes), file has " + std::to_string(d.size()) + " bytes");
  *count = int(n);
  return Status::ok();
}

}  // namespace

const char* to_string(Split s) { return s == Split::kTrain ? "train" : "test"; }

Status read_gzip_file(const std::string& path, std::string* data) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return io_error("cannot open " + path + ": " + std::strerror(errno));
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) return io_error("cannot open " + path + ": " + std::strerror(errno));
  data->clear();
  std::string chunk(kReadChunk, '\0');
  int n;
  while ((n = gzread(f, chunk.data(), kReadChunk)) > 0) data->append(chunk.data(), size_t(n));
  int err = Z_OK;
  const char* msg = gzerror(f, &err);
  std::string why = (err != Z_OK && msg) ? msg : "";
  if (why.rfind(path + ": ", 0) == 0) why = why.substr(path.size() + 2);  // zlib prefixes the path
  gzclose(f);
  // zlib reports a cut-off stream as Z_BUF_ERROR ("unexpected end of file").
  if (n < 0 || (err != Z_OK && err != Z_STREAM_END))
    return io_error(path + ": corrupt or truncated gzip (" + (why.empty() ? "read error" : why) + ")");
  return Status::ok();
}

namespace {

Status decode_split(const std::string& images_path, const std::string& labels_path, const std::string& dir,
                    FashionMnist* out) {
  std::string images, labels;
  for (auto [path, buf] : {std::pair{&images_path, &images}, std::pair{&labels_path, &labels}}) {
    Status s = read_gzip_file(*path, buf);
    if (!s.is_ok()) {
      struct stat st;
      bool missing = stat(path->c_str(), &st) != 0;
      return Status(s.code(), "fashion-mnist: " + s.message() + (missing ? missing_hint(dir) : ""));
    }
  }
  int n_images = 0, n_labels = 0;
  Status s = check_idx(images_path, images, kImagesMagic, &n_images);
  if (s.is_ok()) s = check_idx(labels_path, labels, kLabelsMagic, &n_labels);
  if (!s.is_ok()) return Status(s.code(), "fashion-mnist: " + s.message());
  if (n_images != n_labels)
    return parse_error("fashion-mnist: " + images_path + " has " + std::to_string(n_images) + " images but " +
                       labels_path + " has " + std::to_string(n_labels) + " labels");
  FashionMnist d;
  d.count = n_images;
  d.pixels.assign(images.begin() + 16, images.end());
  d.labels.assign(labels.begin() + 8, labels.end());
  for (int i = 0; i < d.count; ++i)
    if (d.labels[i] >= kFashionMnistClasses)
      return parse_error("fashion-mnist: " + labels_path + ": label " + std::to_string(d.labels[i]) + " at index " +
                         std::to_string(i) + " is not in [0, 10)");
  *out = std::move(d);
  return Status::ok();
}

// A file's version for the cache: size and modification time ("" when unreadable).
std::string file_stamp(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return "";
  return std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec) + "." +
         std::to_string(st.st_mtim.tv_nsec);
}

}  // namespace

std::string fashion_mnist_dir(const std::string& flag) {
  if (!flag.empty()) return flag;
  const char* env = std::getenv(kFashionMnistDirEnv);
  return env && *env ? env : kFashionMnistDir;
}

// One `run` reads a split up to three times (the data check before profiling, the filter, the
// mixed-precision floor or the calibration), each read of the train split a gunzip of 26 MB:
// the decoded split is kept for the process, one per directory and split (55 MB for both),
// and copied out; a change of either file's size or time reads it again. Errors are not kept.
Status load_fashion_mnist(Split split, FashionMnist* out, const std::string& dir_or_default) {
  const std::string dir = fashion_mnist_dir(dir_or_default);
  const std::string prefix = dir + "/" + (split == Split::kTrain ? "train" : "t10k");
  const std::string images_path = prefix + "-images-idx3-ubyte.gz", labels_path = prefix + "-labels-idx1-ubyte.gz";
  const std::string stamp = file_stamp(images_path) + "|" + file_stamp(labels_path);
  static std::mutex mu;
  static std::map<std::string, std::pair<std::string, FashionMnist>> decoded;  // by prefix: stamp, split
  std::lock_guard<std::mutex> lock(mu);
  auto it = decoded.find(prefix);
  if (it == decoded.end() || it->second.first != stamp) {
    FashionMnist d;
    LW_RETURN_IF_ERROR(decode_split(images_path, labels_path, dir, &d));
    decoded[prefix] = {stamp, std::move(d)};
    it = decoded.find(prefix);
  }
  if (out) *out = it->second.second;
  return Status::ok();
}

void fashion_mnist_image(const FashionMnist& d, int i, float* dst, int dy, int dx, bool flip) {
  LW_CHECK(i >= 0 && i < d.count);
  constexpr int kMargin = (kFashionMnistCanvas - kFashionMnistSide) / 2;
  LW_CHECK(std::abs(dy) <= kMargin && std::abs(dx) <= kMargin);
  const float background = (0.f - kFashionMnistMean) / kFashionMnistStd;
  std::fill(dst, dst + kFashionMnistCanvas * kFashionMnistCanvas, background);
  const uint8_t* img = d.pixels.data() + size_t(i) * kFashionMnistSide * kFashionMnistSide;
  for (int r = 0; r < kFashionMnistSide; ++r)
    for (int c = 0; c < kFashionMnistSide; ++c) {
      int src_c = flip ? kFashionMnistSide - 1 - c : c;
      float v = img[r * kFashionMnistSide + src_c] / 255.f;
      dst[(r + kMargin + dy) * kFashionMnistCanvas + (c + kMargin + dx)] = (v - kFashionMnistMean) / kFashionMnistStd;
    }
}

Tensor fashion_mnist_batch(const FashionMnist& d, int first, int count) {
  LW_CHECK(first >= 0 && count >= 1 && first + count <= d.count);
  Tensor t = Tensor::create(Shape{count, 1, kFashionMnistCanvas, kFashionMnistCanvas});
  for (int k = 0; k < count; ++k)
    fashion_mnist_image(d, first + k, t.f32() + size_t(k) * kFashionMnistCanvas * kFashionMnistCanvas);
  return t;
}

}  // namespace lw
