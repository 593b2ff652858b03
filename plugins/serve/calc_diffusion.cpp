// `serve diffusion`: image and video generation time by sampler steps, against a baseline sampler.
#include <cmath>
#include <fmt/format.h>

#include "host/context.hpp"
#include "plugins/serve/serve_calculators.hpp"
#include "plugins/serve/serve_math.hpp"
#include "units/bridge.hpp"

namespace infracalc::serve {

namespace {

struct Sampler {
  double steps = 0;
  double passes = 1;
  std::optional<Seconds> latency;  // measured, or steps x passes x pass time + fixed
};

// Denoiser passes per step: 2 with classifier-free guidance (a conditional and an unconditional pass;
// Ho and Salimans 2022), else --passes-per-step.
double passes(Context& ctx, std::string_view cfg, std::string_view given) {
  if (ctx.flag(cfg) && ctx.has(given)) throw UserError{{Context::flag_name(cfg) + " sets 2 passes per step; drop " + Context::flag_name(given), ""}};
  if (ctx.flag(cfg)) return 2.0;
  return ctx.has(given) ? ctx.number(given) : 1.0;
}

void run_diffusion(Context& ctx) {
  const Seconds pass = ctx.has("pass_time") ? ctx.get<Seconds>("pass_time") : Seconds{};
  const Seconds fixed = ctx.has("fixed_time") ? ctx.get<Seconds>("fixed_time") : Seconds{};
  auto time_of = [&](const Sampler& s) -> std::optional<Seconds> {
    if (s.latency) return s.latency;
    if (s.steps > 0 && pass.value() > 0) return sampler_time(s.steps, s.passes, pass, fixed);
    return std::nullopt;
  };
  Sampler a, b;
  a.steps = ctx.has("steps") ? ctx.number("steps") : 0;
  a.passes = passes(ctx, "cfg", "passes_per_step");
  if (ctx.has("latency")) a.latency = ctx.get<Seconds>("latency");
  const bool baseline = ctx.has("baseline_steps") || ctx.has("baseline_latency");
  b.steps = ctx.has("baseline_steps") ? ctx.number("baseline_steps") : 0;
  b.passes = passes(ctx, "baseline_cfg", "baseline_passes_per_step");
  if (ctx.has("baseline_latency")) b.latency = ctx.get<Seconds>("baseline_latency");
  bool any = false;

  if (a.steps > 0) {
    ctx.set_number("passes", a.steps * a.passes);
    any = true;
  }
  const auto ta = time_of(a);
  if (ta) ctx.set("generation_time", *ta);
  if (ta && a.steps > 0) ctx.set("time_per_step", (*ta - (a.latency ? Seconds{} : fixed)) / a.steps);
  if (baseline) {
    if (b.steps > 0) ctx.set_number("baseline_passes", b.steps * b.passes);
    const auto tb = time_of(b);
    if (tb) {
      ctx.set("baseline_time", *tb);
      if (b.steps > 0) ctx.set("baseline_time_per_step", (*tb - (b.latency ? Seconds{} : fixed)) / b.steps);
    }
    if (a.steps > 0 && b.steps > 0) ctx.set_number("step_reduction", b.steps / a.steps);
    if (ta && tb) ctx.set_number("speedup", *tb / *ta);
    else if (a.steps > 0 && b.steps > 0) {
      // Without times, wall clock follows the denoiser passes (per-pass cost constant, fixed costs ignored).
      ctx.set_number("speedup", (b.steps * b.passes) / (a.steps * a.passes));
      ctx.note("speedup from denoiser passes alone (steps x passes per step): per-pass time equal, text encoder and VAE ignored");
    }
    any = true;
  }
  if (ctx.has("video_duration")) {
    const Seconds clip = ctx.get<Seconds>("video_duration");
    const std::int64_t frames = video_frames(clip, ctx.get<PerSecond>("fps"));
    ctx.set_number("frames", static_cast<double>(frames));
    if (ctx.has("gpu_time")) {
      const Seconds gpu = ctx.get<Seconds>("gpu_time");
      ctx.set_number("realtime_slowdown", gpu / clip);
      ctx.set("gpu_time_per_frame", gpu / static_cast<double>(frames));
      if (ta) ctx.set_number("frame_vs_image", (gpu / static_cast<double>(frames)) / *ta);
    }
    if (ta) ctx.set("clip_time_at_image_cost", static_cast<double>(frames) * *ta);
    any = true;
  }
  if (!any) throw UserError{{"nothing to compute", "give --steps (and --baseline-steps), --latency and --baseline-latency, or --video-duration"}};
  if (a.passes == 2 || b.passes == 2)
    ctx.note("classifier-free guidance: 2 denoiser passes per step (conditional and unconditional); distilled samplers (LCM, Turbo) "
             "usually drop it");
  if (fixed.value() == 0 && !a.latency) ctx.note("no --fixed-time: text encoder and VAE decode not counted");
}

}  // namespace

Calculator diffusion_calculator() {
  Calculator c;
  c.name = "diffusion";
  c.summary = "image and video generation time by sampler steps (DDPM, DDIM, LCM, Turbo, one-step), speedups, real-time ratio of video";
  c.description =
      "generation time = steps x passes per step x --pass-time + --fixed-time (text encoder, VAE decode), or a measured --latency; "
      "--cfg counts 2 denoiser passes per step (classifier-free guidance). Against a baseline sampler: step_reduction = baseline steps "
      "/ steps, speedup = baseline time / time (or the ratio of denoiser passes when no times are given). Video: frames = duration x "
      "fps, realtime_slowdown = --gpu-time / duration.";
  c.inputs = {
      {.name = "steps", .kind = InputKind::quantity, .dim = dims::none, .help = "sampler steps", .example = "4", .optional = true},
      {.name = "passes_per_step", .kind = InputKind::quantity, .dim = dims::none, .help = "denoiser passes per step (default 1)",
       .example = "2", .optional = true},
      {.name = "cfg", .kind = InputKind::flag, .help = "classifier-free guidance: 2 passes per step"},
      {.name = "pass_time", .kind = InputKind::quantity, .dim = dims::time, .help = "time of one denoiser pass", .example = "26ms",
       .optional = true},
      {.name = "fixed_time", .kind = InputKind::quantity, .dim = dims::time, .help = "text encoder and VAE decode, once per image",
       .example = "40ms", .bound = Bound::non_negative, .optional = true},
      {.name = "latency", .kind = InputKind::quantity, .dim = dims::time, .help = "measured generation time (replaces the step count's)",
       .example = "90ms", .optional = true},
      {.name = "baseline_steps", .kind = InputKind::quantity, .dim = dims::none, .help = "steps of the sampler to compare against",
       .example = "50", .optional = true},
      {.name = "baseline_passes_per_step", .kind = InputKind::quantity, .dim = dims::none, .help = "its passes per step (default 1)",
       .example = "2", .optional = true},
      {.name = "baseline_cfg", .kind = InputKind::flag, .help = "the baseline uses classifier-free guidance (2 passes per step)"},
      {.name = "baseline_latency", .kind = InputKind::quantity, .dim = dims::time, .help = "measured time of the baseline", .example = "2.6s",
       .optional = true},
      {.name = "video_duration", .kind = InputKind::quantity, .dim = dims::time, .help = "length of a generated clip", .example = "1min",
       .optional = true},
      {.name = "fps", .kind = InputKind::quantity, .dim = dims::frequency, .help = "frames per second of the clip", .default_value = "24/s",
       .example = "30/s"},
      {.name = "gpu_time", .kind = InputKind::quantity, .dim = dims::time, .help = "accelerator time to generate the clip",
       .example = "12min", .optional = true},
  };
  c.outputs = {
      {"passes", dims::none, "denoiser passes: steps x passes per step"},
      {"generation_time", dims::time, "time of one generation"},
      {"time_per_step", dims::time, "generation time (less fixed time) / steps"},
      {"baseline_passes", dims::none, "the baseline's denoiser passes"},
      {"baseline_time", dims::time, "the baseline's generation time"},
      {"baseline_time_per_step", dims::time, "the baseline's time per step"},
      {"step_reduction", dims::none, "baseline steps / steps"},
      {"speedup", dims::none, "baseline time / time"},
      {"frames", dims::none, "frames of the clip: duration x fps"},
      {"realtime_slowdown", dims::none, "accelerator time / clip duration"},
      {"gpu_time_per_frame", dims::time, "accelerator time per frame"},
      {"frame_vs_image", dims::none, "time per frame / time of one image"},
      {"clip_time_at_image_cost", dims::time, "frames x one image's time (a clip as independent images)"},
  };
  c.run = run_diffusion;
  c.source = __FILE__;
  return c;
}

}  // namespace infracalc::serve
