// `decode sample`: the next-token distribution a sampler draws from at a temperature.
#include <fmt/format.h>

#include "host/context.hpp"
#include "host/number_list.hpp"
#include "plugins/decode/decode_calculators.hpp"
#include "plugins/decode/decode_sampling.hpp"

namespace infracalc::decode {

namespace {

void run_sample(Context& ctx) {
  const std::vector<double> logits = parse_number_list(ctx.text("logits"), "--logits", 1'000'000);
  const double t = ctx.number("temperature");
  const Sampling s = sample_distribution(logits, t);
  ctx.set_number("top_token", static_cast<double>(s.top));
  ctx.set_number("top_probability", s.probabilities[s.top]);
  ctx.set_number("entropy_bits", s.entropy_bits);
  ctx.set_number("effective_choices", s.effective_choices);
  Table table{"probabilities", fmt::format("softmax(logit / {})", ctx.quote_number(t)),
              {{"token", dims::none, {}}, {"logit", dims::none, {}}, {"probability", dims::none, {}}, {"greedy", dims::none, {}}}, {}};
  const Sampling greedy = sample_distribution(logits, 0.0);
  if (logits.size() <= 1000)
    for (std::size_t i = 0; i < logits.size(); ++i)
      table.rows.push_back({Quantity::number(static_cast<double>(i)), Quantity::number(logits[i]), Quantity::number(s.probabilities[i]),
                            Quantity::number(greedy.probabilities[i])});
  ctx.add_table(std::move(table));
  if (t == 0.0) ctx.note("temperature 0 is greedy decoding: the largest logit always wins (ties share it)");
  else if (t < 1.0) ctx.note(fmt::format("T = {} < 1 sharpens the distribution: the logits' gaps are divided by T before the softmax", ctx.quote_number(t)));
  else if (t > 1.0) ctx.note(fmt::format("T = {} > 1 flattens the distribution towards uniform ({} choices)", ctx.quote_number(t), logits.size()));
  if (logits.size() > 1000) ctx.note("more than 1,000 logits: the table is left out");
}

}  // namespace

Calculator sample_calculator() {
  Calculator c;
  c.name = "sample";
  c.summary = "next-token probabilities from logits at a temperature (softmax(logit / T); 0 is greedy), entropy";
  c.description =
      "p_i = exp(z_i / T) / sum_j exp(z_j / T), computed with the largest logit subtracted first (no overflow). T = 0 puts all "
      "the probability on the largest logit (greedy decoding); T < 1 sharpens, T > 1 flattens. Reports the top token's "
      "probability, the entropy in bits and exp2(entropy), the number of equally likely tokens with the same uncertainty.";
  c.inputs = {
      {.name = "logits", .kind = InputKind::text, .help = "the model's logits for the candidate tokens, separated by commas",
       .example = "2.0,1.0,0.5,-1"},
      {.name = "temperature", .kind = InputKind::quantity, .dim = dims::none, .help = "sampling temperature T (0 = greedy)",
       .default_value = "1", .example = "0.7", .bound = Bound::non_negative},
  };
  c.outputs = {
      {"top_token", dims::none, "index of the most likely token (from 0, in the order given)"},
      {"top_probability", dims::none, "its probability"},
      {"entropy_bits", dims::none, "Shannon entropy of the distribution (bits)"},
      {"effective_choices", dims::none, "2^entropy: equally likely tokens with the same uncertainty"},
  };
  c.run = run_sample;
  c.source = __FILE__;
  c.tables = {
      {"probabilities", "softmax of each logit at the temperature"},
  };
  return c;
}

}  // namespace infracalc::decode
