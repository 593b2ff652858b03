#include "plugins/serve/serve_math.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <vector>

#include "units/counts.hpp"
#include "units/expected.hpp"

namespace infracalc::serve {

TokensPerSecond batch_throughput(double batch, Seconds step) { return from_base<Tokens>(batch) / step; }

SaturatedCycle saturated_cycle(const StepModel& model, int batch, std::int64_t prompt, std::int64_t output,
                               std::int64_t step_tokens) {
  SaturatedCycle c;
  c.batch = batch;
  const int per_step = static_cast<int>(std::clamp<std::int64_t>(step_tokens / std::max<std::int64_t>(1, prompt), 1, batch));
  for (int left = batch; left > 0; left -= per_step) {
    c.prefill += model.uniform_time(std::min(left, per_step), SeqWork{0, prompt, true});
    ++c.prefill_steps;
  }
  c.decode = decode_time(model, batch, prompt, output - 1);
  c.cycle = c.prefill + c.decode;
  c.mean_step = output > 1 ? c.decode / static_cast<double>(output - 1) : Seconds{};
  c.output_rate = from_base<Tokens>(static_cast<double>(batch) * static_cast<double>(output)) / c.cycle;
  c.request_rate = static_cast<double>(batch) / c.cycle;
  return c;
}

SteadyState steady_state(const StepModel& model, int batch, std::int64_t prompt, double mean_decode_steps, double mean_decode_context_sum) {
  SteadyState s;
  s.mean_context = static_cast<double>(prompt) + (mean_decode_steps > 0 ? mean_decode_context_sum / mean_decode_steps : 0.0);
  // A step prices whole tokens of context; interpolate between the neighbours for a fractional mean.
  const auto lo = static_cast<std::int64_t>(std::floor(s.mean_context));
  const double frac = s.mean_context - static_cast<double>(lo);
  const Seconds at_lo = model.uniform_time(batch, SeqWork{lo, 1, false});
  const Seconds at_hi = model.uniform_time(batch, SeqWork{lo + 1, 1, false});
  s.decode_step = (1 - frac) * at_lo + frac * at_hi;
  const SeqWork one{0, prompt, true};
  s.prefill = model.time(std::span<const SeqWork>(&one, 1));
  const Seconds per_request = mean_decode_steps * s.decode_step / static_cast<double>(batch) + s.prefill;
  s.request_rate = 1.0 / per_request;
  s.output_rate = from_base<Tokens>(mean_decode_steps + 1.0) * s.request_rate;
  return s;
}

ChunkedSteadyState chunked_steady_state(const StepModel& model, std::int64_t max_batch, std::int64_t prompt, std::int64_t output) {
  ChunkedSteadyState c;
  const double slots = static_cast<double>(std::max<std::int64_t>(1, output - 1));
  const double per_step = static_cast<double>(max_batch) / slots;  // prompts a full batch admits per step
  if (per_step >= 1) {
    c.prompts = static_cast<std::int64_t>(std::floor(per_step));
    c.steps = 1;
  } else {
    c.prompts = 1;
    c.steps = static_cast<std::int64_t>(std::ceil(1.0 / per_step));
  }
  c.batch = static_cast<double>(c.prompts) * slots / static_cast<double>(c.steps);
  const auto decoding = static_cast<std::int64_t>(std::max(1.0, std::round(c.batch)));
  const std::int64_t context = prompt + std::max<std::int64_t>(0, output - 2) / 2;
  std::vector<SeqWork> first(static_cast<std::size_t>(decoding), SeqWork{context, 1, false});
  first.insert(first.end(), static_cast<std::size_t>(c.prompts), SeqWork{0, prompt, true});
  c.cycle = model.time(first) + static_cast<double>(c.steps - 1) * model.uniform_time(decoding, SeqWork{context, 1, false});
  c.request_rate = static_cast<double>(c.prompts) / c.cycle;
  c.output_rate = from_base<Tokens>(static_cast<double>(output)) * c.request_rate;
  return c;
}

double little_concurrency(PerSecond rate, Seconds time_in_system) { return (rate * time_in_system).value(); }

PerSecond closed_loop_throughput(int users, Seconds response, Seconds think) { return static_cast<double>(users) / (response + think); }

StaticPadding static_padding(const std::vector<std::int64_t>& outputs, int batch) {
  StaticPadding p;
  const std::size_t b = static_cast<std::size_t>(std::max(1, batch));
  for (std::size_t i = 0; i < outputs.size(); i += b) {
    const std::size_t end = std::min(outputs.size(), i + b);
    std::int64_t longest = 0, sum = 0;
    for (std::size_t j = i; j < end; ++j) {
      longest = std::max(longest, outputs[j]);
      sum += outputs[j];
    }
    p.slot_steps += static_cast<std::int64_t>(end - i) * longest;
    p.used += sum;
    ++p.batches;
  }
  p.idle = p.slot_steps - p.used;
  p.utilisation = p.slot_steps > 0 ? static_cast<double>(p.used) / static_cast<double>(p.slot_steps) : 0.0;
  return p;
}

TokensPerSecond pod_throughput(double gpus, TokensPerSecond per_gpu) { return gpus * per_gpu; }

PerSecond answers_per_second(TokensPerSecond throughput, Tokens per_answer) { return throughput / per_answer; }

std::int64_t replicas_for(PerSecond target, PerSecond per_replica) {
  return whole_count((target / per_replica).value(), Rounding::up,
                     {"--target-rate", "replicas", "lower --target-rate, or serve more per replica (a larger --tp or batch)"});
}

Seconds prefill_time(const StepModel& model, std::int64_t prompt, std::int64_t cached) {
  const std::int64_t suffix = prompt - std::clamp<std::int64_t>(cached, 0, prompt);
  if (suffix <= 0) return Seconds{};
  const SeqWork w{std::clamp<std::int64_t>(cached, 0, prompt), suffix, true};
  return model.time(std::span<const SeqWork>(&w, 1));
}

Seconds decode_time(const StepModel& model, int batch, std::int64_t context, std::int64_t tokens) {
  if (tokens > kMaxPricedSteps)
    throw UserError{{fmt::format("{} decode steps to price one by one; the limit is {}", tokens, kMaxPricedSteps), "use fewer output tokens"}};
  Seconds t{};
  for (std::int64_t k = 0; k < tokens; ++k) t += model.uniform_time(std::max(1, batch), SeqWork{context + k, 1, false});
  return t;
}

Seconds turn_time(Seconds base, Tokens tokens, Seconds tpot) { return base + tokens.value() * tpot; }

std::int64_t image_tokens(std::int64_t width, std::int64_t height, std::int64_t patch, std::int64_t merge) {
  const std::int64_t patches = ((width + patch - 1) / patch) * ((height + patch - 1) / patch);
  return (patches + merge - 1) / merge;
}

std::int64_t video_frames(Seconds duration, PerSecond fps) {
  return std::max<std::int64_t>(1, whole_count((duration * fps).value(), Rounding::down,
                                               {"--video-duration", "frames", "a shorter clip or a lower frame rate"}));
}

std::int64_t video_tokens(std::int64_t frames, std::int64_t per_frame, std::int64_t temporal) {
  return (frames + temporal - 1) / temporal * per_frame;
}

double pool_devices(PerSecond rate, Seconds device_time) { return (rate * device_time).value(); }

Seconds transfer_time(Bytes bytes, BytesPerSecond bandwidth, int links, Seconds latency) {
  return bytes / (static_cast<double>(std::max(1, links)) * bandwidth) + latency;
}

Seconds sampler_time(double steps, double passes_per_step, Seconds pass, Seconds fixed) { return steps * passes_per_step * pass + fixed; }

}  // namespace infracalc::serve
