#include "plugins/kernels/gemm_probe.hpp"

#include "plugins/kernels/host_info.hpp"
#include "plugins/kernels/rng.hpp"
#include "plugins/kernels/simd.hpp"

namespace infracalc::kernels {

GemmProbe::GemmProbe(ThreadTeam& team, std::size_t rows, std::size_t cols, std::size_t batch)
    : team_(team), rows_(rows), cols_(cols), batch_(batch), w_(rows * cols), x_(batch * cols), y_(batch * rows) {
  fill_uniform(w_, 11, -1.0f, 1.0f);
  fill_uniform(x_, 12, -1.0f, 1.0f);
  xt_.resize(transposed_input_floats(cols, batch));
  scratch_.resize(static_cast<std::size_t>(team.size()));
  for (auto& s : scratch_) s.resize(gemm_scratch_floats(cols, rows, batch));
}

TimedRate<FlopsPerSecond> GemmProbe::run(int repeats) {
  const Isa isa = best_isa();
  GemmBlock shape;
  shape.cols = cols_;
  shape.x = x_.data();
  shape.ldx = cols_;
  shape.batch = batch_;
  const bool shared = gemm_uses_transposed(batch_);
  TeamStopwatch t(team_);
  for (int r = 0; r < repeats; ++r) {
    if (shared)
      team_.run([&](int m, int ms) {
        const auto [k0, k1] = share(cols_, m, ms, 16);
        transpose_input(shape, xt_.data(), k0, k1);
      });
    team_.run([&](int m, int ms) {
      GemmBlock g = shape;
      const auto [r0, r1] = share(rows_, m, ms, 12);
      g.w = w_.data();
      g.row_begin = r0;
      g.row_end = r1;
      g.y = y_.data();
      g.ldy = rows_;
      g.xt = shared ? xt_.data() : nullptr;
      gemm_block(isa, g, scratch_[static_cast<std::size_t>(m)].data());
    });
  }
  const Flops ops = from_base<Flops>(2.0 * static_cast<double>(rows_) * static_cast<double>(cols_) * static_cast<double>(batch_) * repeats);
  return {ops / t.wall(), ops / t.busy()};
}

}  // namespace infracalc::kernels
