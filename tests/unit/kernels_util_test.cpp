// Shared kernel utilities: seeded RNG, work shares, the thread team and the vector kernels' arithmetic.
#include <catch2/catch.hpp>
#include <atomic>
#include <cmath>
#include <vector>

#include "plugins/kernels/rng.hpp"
#include "plugins/kernels/simd.hpp"
#include "plugins/kernels/thread_team.hpp"

using namespace infracalc;
using namespace infracalc::kernels;

TEST_CASE("the generator is reproducible and uniform enough", "[kernels]") {
  Rng a(42), b(42);
  for (int i = 0; i < 100; ++i) CHECK(a.next() == b.next());
  Rng r(7);
  double sum = 0;
  for (int i = 0; i < 100000; ++i) {
    const double u = r.uniform();
    REQUIRE(u >= 0.0);
    REQUIRE(u < 1.0);
    sum += u;
  }
  CHECK(sum / 100000 == Approx(0.5).margin(0.01));
  for (int i = 0; i < 1000; ++i) CHECK(r.below(7) < 7);
}

TEST_CASE("shares cover the range without overlap", "[kernels]") {
  std::size_t covered = 0, last = 0;
  for (int m = 0; m < 3; ++m) {
    const auto [lo, hi] = share(1000, m, 3, 16);
    CHECK(lo == last);
    CHECK((lo % 16 == 0 || lo == 1000));
    covered += hi - lo;
    last = hi;
  }
  CHECK(covered == 1000);
}

TEST_CASE("the thread team runs every member and rethrows", "[kernels]") {
  ThreadTeam team(3);
  std::atomic<int> sum{0};
  for (int round = 0; round < 50; ++round) team.run([&](int m, int) { sum += m + 1; });
  CHECK(sum == 50 * 6);
  CHECK_THROWS_AS(team.run([](int m, int) {
                    if (m == 2) throw std::runtime_error("boom");
                  }),
                  std::runtime_error);
  CHECK(team.cpu_seconds().size() == 3);
}

namespace {
// Every vector unit this CPU can run, so the AVX2 path is tested on AVX-512 machines too.
std::vector<Isa> runnable_isas() {
  std::vector<Isa> v{Isa::scalar};
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) v.push_back(Isa::avx2);
  if (__builtin_cpu_supports("avx512f")) v.push_back(Isa::avx512);
#endif
  return v;
}
}  // namespace

TEST_CASE("matrix kernels agree with a double-precision product on every path", "[kernels]") {
  for (const Isa isa : runnable_isas()) {
    struct Shape {
      std::size_t batch, rows, cols;
    };
    for (const Shape sh : {Shape{1, 29, 83}, Shape{5, 29, 83}, Shape{8, 29, 83}, Shape{17, 29, 83}, Shape{70, 29, 83}, Shape{130, 211, 40}}) {
      const std::size_t batch = sh.batch, rows = sh.rows, cols = sh.cols;  // the last spans several row panels and tiles
      std::vector<float> w(rows * cols), x(batch * cols), y(batch * rows, -1.0f);
      fill_uniform(w, 1, -1, 1);
      fill_uniform(x, 2, -1, 1);
      std::vector<float> scratch(gemm_scratch_floats(cols, rows, batch));
      GemmBlock g;
      g.w = w.data();
      g.cols = cols;
      g.row_begin = 3;
      g.row_end = rows;
      g.x = x.data();
      g.ldx = cols;
      g.batch = batch;
      g.y = y.data();
      g.ldy = rows;
      gemm_block(isa, g, scratch.data());
      for (std::size_t b = 0; b < batch; ++b) {
        CHECK(y[b * rows + 0] == -1.0f);  // rows outside the block are left alone
        for (std::size_t r = 3; r < rows; ++r) {
          double ref = 0;
          for (std::size_t k = 0; k < cols; ++k) ref += static_cast<double>(w[r * cols + k]) * x[b * cols + k];
          REQUIRE(y[b * rows + r] == Approx(ref).margin(1e-4));
        }
      }
    }
  }
}

TEST_CASE("weighted rows, the read stream and the FMA loop on every path", "[kernels]") {
  for (const Isa isa : runnable_isas()) {
    const std::size_t heads = 5, n = 37, width = 70;
    std::vector<float> p(heads * n), v(n * width), out(heads * width, 0.5f);
    fill_uniform(p, 3, 0, 1);
    fill_uniform(v, 4, -1, 1);
    weighted_rows(isa, p.data(), n, heads, v.data(), n, width, out.data(), width);
    for (std::size_t h = 0; h < heads; ++h)
      for (std::size_t i = 0; i < width; ++i) {
        double ref = 0.5;
        for (std::size_t t = 0; t < n; ++t) ref += static_cast<double>(p[h * n + t]) * v[t * width + i];
        REQUIRE(out[h * width + i] == Approx(ref).margin(1e-4));
      }
    std::vector<double> d(1001, 0.25);
    CHECK(stream_sum(isa, d.data(), d.size()) == Approx(250.25));
    float sink = 0;
    const double lanes = isa == Isa::avx512 ? 16 * 16 : isa == Isa::avx2 ? 12 * 8 : 8;
    CHECK(fma_loop(isa, 10, &sink).value() == 2.0 * lanes * 10);
  }
}
