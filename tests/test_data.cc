// Fashion-MNIST loader: the real files from dataset-fashion-mnist, and broken copies of them
// (missing, truncated gzip, corrupt stream, wrong magic) made in a temporary directory.
#include <doctest/doctest.h>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "libs/data/fashion_mnist.h"

namespace lw {
namespace {

namespace fs = std::filesystem;

std::string raw_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

void write_raw(const fs::path& p, const std::string& d) {
  std::ofstream f(p, std::ios::binary);
  f.write(d.data(), std::streamsize(d.size()));
}

void write_gzip(const fs::path& p, const std::string& d) {
  gzFile f = gzopen(p.c_str(), "wb");
  REQUIRE(f != nullptr);
  REQUIRE(gzwrite(f, d.data(), unsigned(d.size())) == int(d.size()));
  gzclose(f);
}

// A temporary copy of the test split that each case then breaks in one way.
struct TempCopy {
  fs::path dir;
  TempCopy() {
    char tmpl[] = "/tmp/lw_test_data_XXXXXX";
    REQUIRE(mkdtemp(tmpl) != nullptr);
    dir = tmpl;
    for (const char* f : {"t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"})
      fs::copy_file(fs::path(kFashionMnistDir) / f, dir / f);
  }
  ~TempCopy() { fs::remove_all(dir); }
  fs::path labels() const { return dir / "t10k-labels-idx1-ubyte.gz"; }
};

TEST_CASE("test split: sizes, balanced labels, normalised 32x32 images") {
  FashionMnist d;
  Status s = load_fashion_mnist(Split::kTest, &d);
  REQUIRE_MESSAGE(s.is_ok(), s.to_string());
  CHECK(d.count == 10000);
  CHECK(d.pixels.size() == size_t(10000) * 28 * 28);
  int per_class[10] = {};
  for (uint8_t l : d.labels) per_class[l]++;
  for (int c = 0; c < 10; ++c) CHECK(per_class[c] == 1000);  // the published test split is balanced

  Tensor t = fashion_mnist_batch(d, 3, 2);
  CHECK(t.shape() == Shape{2, 1, 32, 32});
  const float background = -kFashionMnistMean / kFashionMnistStd;
  CHECK(t.f32()[0] == doctest::Approx(background));  // padding is background, normalised
  // Pixel (r, c) of image 4 lands at (r + 2, c + 2) of the second canvas.
  const uint8_t* img = d.pixels.data() + 4 * 784;
  for (int r : {0, 13, 27})
    for (int c : {0, 9, 27})
      CHECK(t.f32()[1024 + (r + 2) * 32 + c + 2] == doctest::Approx((img[r * 28 + c] / 255.f - kFashionMnistMean) / kFashionMnistStd));

  std::vector<float> shifted(1024), flipped(1024);
  fashion_mnist_image(d, 4, shifted.data(), -2, 1, false);
  fashion_mnist_image(d, 4, flipped.data(), 0, 0, true);
  CHECK(shifted[(5 - 2 + 2) * 32 + 7 + 1 + 2] == doctest::Approx(t.f32()[1024 + (5 + 2) * 32 + 7 + 2]));
  CHECK(flipped[(5 + 2) * 32 + (27 - 7) + 2] == doctest::Approx(t.f32()[1024 + (5 + 2) * 32 + 7 + 2]));
}

TEST_CASE("train split: 60000 images; the recorded mean and std are the train split's") {
  FashionMnist d;
  Status s = load_fashion_mnist(Split::kTrain, &d);
  REQUIRE_MESSAGE(s.is_ok(), s.to_string());
  CHECK(d.count == 60000);
  double sum = 0, sq = 0;
  for (uint8_t p : d.pixels) {
    double v = p / 255.0;
    sum += v;
    sq += v * v;
  }
  double n = double(d.pixels.size()), mean = sum / n, std = std::sqrt(sq / n - mean * mean);
  MESSAGE("train pixels: mean " << mean << ", std " << std);
  CHECK(std::fabs(mean - kFashionMnistMean) < 1e-5);
  CHECK(std::fabs(std - kFashionMnistStd) < 1e-5);
}

TEST_CASE("missing directory: one-line error naming the file and the Debian package") {
  FashionMnist d;
  Status s = load_fashion_mnist(Split::kTest, &d, "/nonexistent/fashion-mnist");
  REQUIRE_FALSE(s.is_ok());
  CHECK(s.code() == StatusCode::kIoError);
  CHECK(load_fashion_mnist(Split::kTest, nullptr, "/nonexistent/fashion-mnist").message() == s.message());  // a check
  CHECK(s.message().find("/nonexistent/fashion-mnist/t10k-images-idx3-ubyte.gz") != std::string::npos);
  CHECK(s.message().find("dataset-fashion-mnist") != std::string::npos);
  CHECK(s.message().find('\n') == std::string::npos);
}

TEST_CASE("truncated gzip file") {
  TempCopy tmp;
  std::string gz = raw_file(tmp.labels().string());
  write_raw(tmp.labels(), gz.substr(0, gz.size() / 2));
  FashionMnist d;
  Status s = load_fashion_mnist(Split::kTest, &d, tmp.dir.string());
  REQUIRE_FALSE(s.is_ok());
  MESSAGE(s.to_string());
  CHECK(s.message().find(tmp.labels().string()) != std::string::npos);
  CHECK(s.message().find("dataset-fashion-mnist") == std::string::npos);  // present, just broken
}

TEST_CASE("corrupt gzip stream") {
  TempCopy tmp;
  std::string gz = raw_file(tmp.labels().string());
  for (size_t i = 20; i < 60; ++i) gz[i] = char(gz[i] ^ 0x5a);  // inside the deflate data
  write_raw(tmp.labels(), gz);
  FashionMnist d;
  Status s = load_fashion_mnist(Split::kTest, &d, tmp.dir.string());
  REQUIRE_FALSE(s.is_ok());
  MESSAGE(s.to_string());
  CHECK(s.message().find(tmp.labels().string()) != std::string::npos);
}

TEST_CASE("valid gzip, invalid IDX: wrong magic, short payload, bad label") {
  TempCopy tmp;
  std::string idx = raw_file(tmp.labels().string());
  REQUIRE(read_gzip_file(tmp.labels().string(), &idx).is_ok());
  REQUIRE(idx.size() == 8 + 10000);
  FashionMnist d;

  std::string bad = idx;
  bad[3] = 0x03;  // an images magic in a labels file
  write_gzip(tmp.labels(), bad);
  Status s = load_fashion_mnist(Split::kTest, &d, tmp.dir.string());
  CHECK(s.code() == StatusCode::kParseError);
  CHECK(s.message().find("magic") != std::string::npos);

  write_gzip(tmp.labels(), idx.substr(0, idx.size() - 1));
  s = load_fashion_mnist(Split::kTest, &d, tmp.dir.string());
  CHECK(s.code() == StatusCode::kParseError);
  CHECK(s.message().find("10000 items") != std::string::npos);

  bad = idx;
  bad[8 + 123] = char(10);
  write_gzip(tmp.labels(), bad);
  s = load_fashion_mnist(Split::kTest, &d, tmp.dir.string());
  CHECK(s.code() == StatusCode::kParseError);
  CHECK(s.message().find("index 123") != std::string::npos);

  write_gzip(tmp.labels(), idx);  // and the untouched payload loads again
  CHECK(load_fashion_mnist(Split::kTest, &d, tmp.dir.string()).is_ok());
}

// Restores $LAYERWISE_FASHION_MNIST_DIR as the test found it.
struct ScopedDirEnv {
  std::string saved;
  bool had = false;
  explicit ScopedDirEnv(const std::string& value) {
    if (const char* v = std::getenv(kFashionMnistDirEnv)) saved = v, had = true;
    if (value.empty()) unsetenv(kFashionMnistDirEnv);
    else setenv(kFashionMnistDirEnv, value.c_str(), 1);
  }
  ~ScopedDirEnv() {
    if (had) setenv(kFashionMnistDirEnv, saved.c_str(), 1);
    else unsetenv(kFashionMnistDirEnv);
  }
};

TEST_CASE("the directory: a flag, else $LAYERWISE_FASHION_MNIST_DIR, else Debian's; every default load follows it") {
  {
    ScopedDirEnv none("");
    CHECK(fashion_mnist_dir() == kFashionMnistDir);
    CHECK(fashion_mnist_dir("/x") == "/x");
  }
  TempCopy tmp;
  ScopedDirEnv env(tmp.dir.string());
  CHECK(fashion_mnist_dir() == tmp.dir.string());
  CHECK(fashion_mnist_dir("/x") == "/x");
  // A load that names no directory reads the one the variable names: broken there, it fails
  // naming that file (Debian's copy is intact).
  std::string gz = raw_file(tmp.labels().string());
  write_raw(tmp.labels(), gz.substr(0, gz.size() / 2));
  FashionMnist d;
  Status s = load_fashion_mnist(Split::kTest, &d);
  REQUIRE_FALSE(s.is_ok());
  CHECK(s.message().find(tmp.labels().string()) != std::string::npos);
  // Missing there: the error says where the directory came from, and where Debian puts it.
  fs::remove(tmp.labels());
  s = load_fashion_mnist(Split::kTest, &d);
  REQUIRE_FALSE(s.is_ok());
  MESSAGE(s.to_string());
  CHECK(s.message().find(std::string("$") + kFashionMnistDirEnv) != std::string::npos);
  CHECK(s.message().find("dataset-fashion-mnist") != std::string::npos);
  CHECK(s.message().find('\n') == std::string::npos);
}

TEST_CASE("a split is decoded once per process, and read again when its files change") {
  TempCopy tmp;
  FashionMnist a, b;
  REQUIRE(load_fashion_mnist(Split::kTest, &a, tmp.dir.string()).is_ok());
  REQUIRE(load_fashion_mnist(Split::kTest, &b, tmp.dir.string()).is_ok());
  CHECK(b.count == a.count);
  CHECK(b.pixels == a.pixels);
  CHECK(b.labels == a.labels);
  // Another label 0, written at another compression level (another size): the new content.
  std::string idx;
  REQUIRE(read_gzip_file(tmp.labels().string(), &idx).is_ok());
  const size_t old_size = fs::file_size(tmp.labels());
  idx[8] = char((a.labels[0] + 1) % kFashionMnistClasses);
  gzFile f = gzopen(tmp.labels().c_str(), "wb1");
  REQUIRE(f != nullptr);
  REQUIRE(gzwrite(f, idx.data(), unsigned(idx.size())) == int(idx.size()));
  gzclose(f);
  REQUIRE(fs::file_size(tmp.labels()) != old_size);
  REQUIRE(load_fashion_mnist(Split::kTest, &b, tmp.dir.string()).is_ok());
  CHECK(b.labels[0] == (a.labels[0] + 1) % kFashionMnistClasses);
  CHECK(std::equal(b.labels.begin() + 1, b.labels.end(), a.labels.begin() + 1));
  // Broken afterwards: the error, not the split decoded before; a check alone (no copy) too.
  write_raw(tmp.labels(), raw_file(tmp.labels().string()).substr(0, 100));
  CHECK_FALSE(load_fashion_mnist(Split::kTest, nullptr, tmp.dir.string()).is_ok());
  CHECK_FALSE(load_fashion_mnist(Split::kTest, &b, tmp.dir.string()).is_ok());
}

}  // namespace
}  // namespace lw
