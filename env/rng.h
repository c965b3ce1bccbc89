/// \file
/// The one random number generator of env/ and agents/: xoshiro256** seeded by splitmix64.
/// Own code (not <random> distributions) so that the same seed gives the same search on
/// every standard library, and so the Q-learning hot path stays a few instructions.
#pragma once
#include <cmath>
#include <cstdint>

namespace lw {

class Rng {
 public:
  explicit Rng(uint64_t seed = 0) { this->seed(seed); }
  void seed(uint64_t seed) {
    uint64_t z = seed;
    for (auto& s : s_) s = splitmix(z);
  }
  uint64_t next() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9, t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  /// Uniform in [0, 1).
  double uniform() { return double(next() >> 11) * 0x1.0p-53; }
  /// Uniform integer in [0, n), n > 0 (Lemire's multiply-shift; bias < n / 2^64).
  int below(int n) { return int((unsigned __int128)(next()) * uint64_t(n) >> 64); }
  /// Standard normal (Box-Muller, one value per call).
  double normal() {
    const double u = 1.0 - uniform(), v = uniform();
    return std::sqrt(-2.0 * std::log(u)) * std::cos(6.283185307179586 * v);
  }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  static uint64_t splitmix(uint64_t& z) {
    uint64_t x = (z += 0x9e3779b97f4a7c15ULL);
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
  }
  uint64_t s_[4];
};

}  // namespace lw
