#include "plugins/cluster/train_work.hpp"

#include <fmt/format.h>

#include "plugins/cluster/cluster_math.hpp"

namespace infracalc::cluster {

std::vector<Input> training_work_inputs() {
  return {
      {.name = "seq", .kind = InputKind::quantity, .dim = dims::token, .help = "training sequence length (for the attention term)",
       .default_value = "8192", .example = "4096"},
      {.name = "attention_count", .kind = InputKind::choice,
       .help = "attention-score counting: full (PaLM/Megatron MFU convention) or causal (what causal kernels execute)",
       .default_value = "full", .choices = {"full", "causal"}},
  };
}

TrainingWork training_work(Context& ctx, const fit::ResolvedModel& model, Tokens tokens) {
  TrainingWork w{six_nd(model.active, tokens), from_base<Flops>(0)};
  if (!model.arch || model.arch->hidden_size <= 0 || model.arch->attention_heads <= 0) {
    ctx.note("attention-score FLOPs not counted: give --model (or --layers, --hidden-size, --heads) to add them");
    return w;
  }
  const AttentionCount count = ctx.text("attention_count") == "causal" ? AttentionCount::causal : AttentionCount::full;
  const Tokens seq = ctx.get<Tokens>("seq");
  w.attention = attention_training_per_token(*model.arch, seq, count) * tokens;
  w.attention_counted = true;
  ctx.note(fmt::format("attention term: 3 x 2 x context x heads x (d_qk + d_v) per layer per token at seq {}, {} "
                       "(PaLM appendix B's 12·L·H·Q·T with full counting); {} of the total",
                       ctx.quote(seq), count == AttentionCount::full ? "every position attending to the whole sequence"
                                                                   : "causal (each position attends to those before it)",
                       ctx.quote_percent((w.attention / w.total()).value())));
  return w;
}

}  // namespace infracalc::cluster
