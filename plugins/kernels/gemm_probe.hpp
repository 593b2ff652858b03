// The matrix-product rate this CPU reaches: the same tiled single-precision kernel a decode step uses
// (simd.hpp), on an operand set that stays in the last-level cache, over every core. The FMA loop gives
// the hardware's ceiling; this gives what a real matrix product attains under it.
#pragma once

#include <memory>
#include <vector>

#include "plugins/kernels/thread_team.hpp"
#include "plugins/kernels/timer.hpp"
#include "units/system.hpp"

namespace infracalc::kernels {

/// y = x · Wᵀ for a rows × cols W and `batch` sequences, rows split over the team as a decode step splits them.
class GemmProbe {
 public:
  /// Allocates and fills the operands (seeded).
  GemmProbe(ThreadTeam& team, std::size_t rows, std::size_t cols, std::size_t batch);
  /// `repeats` products timed together: 2 · rows · cols · batch operations each.
  [[nodiscard]] TimedRate<FlopsPerSecond> run(int repeats);

 private:
  ThreadTeam& team_;
  std::size_t rows_, cols_, batch_;
  std::vector<float> w_, x_, y_, xt_;
  std::vector<std::vector<float>> scratch_;
};

}  // namespace infracalc::kernels
