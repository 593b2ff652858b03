// `serve multimodal`: prompt tokens of images and video, and the time to first token they cause.
#include <cmath>
#include <fmt/format.h>

#include "host/token_inputs.hpp"
#include "units/counts.hpp"
#include "plugins/kv/kv_layout.hpp"
#include "plugins/serve/serve_calculators.hpp"
#include "plugins/serve/serve_math.hpp"
#include "plugins/serve/serve_setup.hpp"
#include "units/bridge.hpp"
#include "units/format.hpp"

namespace infracalc::serve {

namespace {

void run_multimodal(Context& ctx) {
  const std::int64_t images = ctx.integer("images");
  const std::int64_t patch = ctx.integer("patch_size");
  const std::int64_t merge = ctx.integer("merge");
  const std::int64_t width = ctx.integer("image_width");
  const std::int64_t height = ctx.integer("image_height");
  const std::int64_t patches_per_image = image_tokens(width, height, patch, 1);
  const std::int64_t per_image = ctx.has("tokens_per_image") ? ctx.integer("tokens_per_image") : image_tokens(width, height, patch, merge);
  const std::int64_t image_total = count_product(images, per_image, {"--images", "image tokens", "fewer or smaller images"});

  std::int64_t frames = 0, per_frame = 0, video_total = 0, frame_patches = 0;
  if (ctx.has("video_duration")) {
    frames = video_frames(ctx.get<Seconds>("video_duration"), ctx.get<PerSecond>("video_fps"));
    const std::int64_t fw = ctx.has("frame_width") ? ctx.integer("frame_width") : width;
    const std::int64_t fh = ctx.has("frame_height") ? ctx.integer("frame_height") : height;
    frame_patches = image_tokens(fw, fh, patch, 1);
    per_frame = ctx.has("tokens_per_frame") ? ctx.integer("tokens_per_frame") : image_tokens(fw, fh, patch, merge);
    const std::int64_t temporal = ctx.integer("temporal_merge");
    (void)count_product((frames + temporal - 1) / temporal, per_frame, {"--video-duration", "video tokens", "a shorter or smaller clip"});
    video_total = video_tokens(frames, per_frame, temporal);
  }
  const std::int64_t text = whole_tokens(ctx, "text_tokens", 0, 1'000'000'000);
  const std::int64_t prompt = text + image_total + video_total;
  (void)whole_count(static_cast<double>(prompt), Rounding::down, {"the prompt", "tokens", "fewer images, a shorter clip or less text"});
  if (prompt < 1) throw UserError{{"the prompt is empty", "give --images, --video-duration or --text-tokens"}};

  ctx.set_number("patches_per_image", static_cast<double>(patches_per_image));
  ctx.set("image_tokens_each", from_base<Tokens>(static_cast<double>(per_image)));
  ctx.set("image_tokens", from_base<Tokens>(static_cast<double>(image_total)));
  if (frames > 0) {
    ctx.set_number("frames", static_cast<double>(frames));
    ctx.set("frame_tokens_each", from_base<Tokens>(static_cast<double>(per_frame)));
    ctx.set("video_tokens", from_base<Tokens>(static_cast<double>(video_total)));
  }
  ctx.set("prompt_tokens", from_base<Tokens>(static_cast<double>(prompt)));

  // Time to first token: the vision encoder over every patch, then the language model's prefill.
  const bool can_model = ctx.has("step_time") || ctx.ref("model") != nullptr || ctx.has("params") || ctx.has("weights_bytes");
  const bool rate = ctx.has("prefill_rate") && !ctx.has("step_time");
  if (!can_model && !rate) {
    ctx.note("give --model ID --gpu ID (or --prefill-rate) for the time to first token");
    return;
  }
  const Replica rep = can_model ? resolve_step_model(ctx, true) : Replica{};
  auto prefill = [&](std::int64_t tokens) {
    if (tokens <= 0) return Seconds{};
    if (rate) return from_base<Tokens>(static_cast<double>(tokens)) / ctx.get<TokensPerSecond>("prefill_rate");
    return prefill_time(*rep.model, tokens, 0);
  };
  const Seconds llm = prefill(prompt);
  Seconds encoder{};
  const double patches = static_cast<double>(images) * static_cast<double>(patches_per_image) +
                         static_cast<double>(frames) * static_cast<double>(frame_patches);
  if (ctx.has("encoder_params")) {
    // A vision transformer does about 2 operations per parameter per patch (its attention over a few
    // hundred patches is small beside that).
    const Flops ops = from_base<Flops>(2.0 * ctx.number("encoder_params") * patches);
    const auto peak = rep.roofline && rep.roofline->roof().peak ? rep.roofline->roof().peak : std::nullopt;
    if (!peak) throw UserError{{"--encoder-params needs a peak rate", "give --gpu ID or --peak"}};
    encoder = ops / (*peak * static_cast<double>(rep.tp));
    ctx.set("encoder_time", encoder);
  } else {
    ctx.note("vision encoder not timed (give --encoder-params for 2 operations per parameter per patch at the device's peak)");
  }
  const Seconds text_only = prefill(text);
  ctx.set("prefill_time", llm);
  ctx.set("ttft", llm + encoder);
  if (text > 0) {
    ctx.set("text_only_ttft", text_only);
    if (text_only.value() > 0) ctx.set_number("ttft_ratio", (llm + encoder) / text_only);
  }
  if (rep.workload && rep.workload->arch) {
    const ModelArch& a = *rep.workload->arch;
    ctx.set("prompt_kv_bytes",
            kv::cache_size(a, rep.workload->kv_format, from_base<Tokens>(static_cast<double>(prompt)), Number::from_value(1.0)).per_sequence);
    if (a.max_context > 0 && prompt > a.max_context)
      ctx.note(fmt::format("the prompt's {} tokens exceed the model's {}-token context", prompt, a.max_context));
  }
  ctx.note("every image and frame token costs the language model's prefill like a text token (causal attention over the whole prompt)");
}

}  // namespace

Calculator multimodal_calculator() {
  Calculator c;
  c.name = "multimodal";
  c.summary = "prompt tokens of images (patches) and video (frames x tokens per frame), and the time to first token they cause";
  c.description =
      "tokens per image = ceil(width / patch) x ceil(height / patch) / merge (448 x 448 at 14-pixel patches: 32 x 32 = 1,024), or "
      "--tokens-per-image; frames = floor(duration x fps); video tokens = ceil(frames / temporal merge) x tokens per frame; prompt = "
      "text + images x tokens per image + video tokens. TTFT = vision encoder (2 x --encoder-params per patch at the peak) + the "
      "language model's prefill of the whole prompt (the replica's step model, or --prefill-rate).";
  c.refs = replica_refs();
  std::vector<Input> own = {
      {.name = "images", .kind = InputKind::integer, .help = "images in the prompt", .default_value = "0", .example = "4",
       .bound = Bound::non_negative},
      {.name = "image_width", .kind = InputKind::integer, .help = "image width in pixels after the model's resize", .default_value = "448",
       .example = "1024"},
      {.name = "image_height", .kind = InputKind::integer, .help = "image height in pixels after the model's resize", .default_value = "448",
       .example = "768"},
      {.name = "patch_size", .kind = InputKind::integer, .help = "patch width in pixels (ViT-L/14 and SigLIP: 14; Qwen2-VL: 14)",
       .default_value = "14", .example = "16"},
      {.name = "merge", .kind = InputKind::integer,
       .help = "patches merged into one token by the projector (1: none; 4: a 2x2 merge as in Qwen2-VL)", .default_value = "1",
       .example = "4"},
      {.name = "tokens_per_image", .kind = InputKind::integer, .help = "tokens per image, when the model fixes it (replaces the patch count)",
       .example = "256", .optional = true},
      {.name = "video_duration", .kind = InputKind::quantity, .dim = dims::time, .help = "length of a video clip in the prompt",
       .example = "30s", .optional = true},
      {.name = "video_fps", .kind = InputKind::quantity, .dim = dims::frequency, .help = "frames sampled per second of video",
       .default_value = "2/s", .example = "1/s"},
      {.name = "frame_width", .kind = InputKind::integer, .help = "frame width in pixels (default: --image-width)", .example = "448",
       .optional = true},
      {.name = "frame_height", .kind = InputKind::integer, .help = "frame height in pixels (default: --image-height)", .example = "448",
       .optional = true},
      {.name = "tokens_per_frame", .kind = InputKind::integer, .help = "tokens per frame (replaces the frame's patch count)",
       .example = "256", .optional = true},
      {.name = "temporal_merge", .kind = InputKind::integer, .help = "consecutive frames merged into one set of tokens (Qwen2-VL: 2)",
       .default_value = "1", .example = "2"},
      {.name = "text_tokens", .kind = InputKind::quantity, .dim = dims::token, .help = "text tokens in the prompt", .default_value = "0",
       .example = "200", .bound = Bound::non_negative},
      {.name = "encoder_params", .kind = InputKind::quantity, .dim = dims::none, .help = "parameters of the vision encoder (times the encoder)",
       .example = "400e6", .optional = true},
  };
  c.inputs = concat(own, replica_inputs());
  c.outputs = {
      {"patches_per_image", dims::none, "patches of one image before merging"},
      {"image_tokens_each", dims::token, "tokens one image adds to the prompt"},
      {"image_tokens", dims::token, "tokens of all images"},
      {"frames", dims::none, "frames sampled from the clip"},
      {"frame_tokens_each", dims::token, "tokens one frame adds"},
      {"video_tokens", dims::token, "tokens of the clip"},
      {"prompt_tokens", dims::token, "text + image + video tokens"},
      {"prompt_kv_bytes", dims::information, "KV cache of the whole prompt for one sequence (all devices)"},
      {"encoder_time", dims::time, "vision encoder over every patch"},
      {"prefill_time", dims::time, "language-model prefill of the whole prompt"},
      {"ttft", dims::time, "encoder + prefill"},
      {"text_only_ttft", dims::time, "prefill of the text tokens alone"},
      {"ttft_ratio", dims::none, "ttft / text-only ttft"},
  };
  c.run = run_multimodal;
  c.source = __FILE__;
  return c;
}

}  // namespace infracalc::serve
