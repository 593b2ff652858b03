// `cost answer`: the cost of one answer when a model thinks before it speaks and may sample several times.
#include <fmt/format.h>

#include "host/words.hpp"
#include "plugins/cost/cost_calculators.hpp"
#include "plugins/cost/cost_math.hpp"
#include "plugins/tco/tco_inputs.hpp"
#include "units/format.hpp"

namespace infracalc::cost {

namespace {


Tokens tokens_or_zero(Context& ctx, std::string_view key) {
  return ctx.has(key) ? ctx.get<Tokens>(key) : from_base<Tokens>(0.0);
}

void run_answer(Context& ctx) {
  fill_api_prices(ctx);
  // A self-hosted price: accelerator time per token.
  if (!ctx.has("output_price") && ctx.has("gpu_hour") && ctx.has("throughput")) {
    ctx.set("output_price_used", price_per_token(ctx.get<UsdPerHour>("gpu_hour"), 1.0, ctx.get<TokensPerSecond>("throughput"), 1.0));
    ctx.note("output price from --gpu-hour / --throughput (self-hosted, fully busy)");
  } else if (ctx.has("output_price")) {
    ctx.set("output_price_used", ctx.get<UsdPerToken>("output_price"));
  } else {
    throw UserError{{"missing --output-price (price per output token)", "give --output-price $10/Mtok, --api ID, or --gpu-hour with --throughput"}};
  }
  const UsdPerToken out_price = as<UsdPerToken>(ctx.result().find("output_price_used")->q, "--output-price");
  AnswerTokens a;
  a.input = tokens_or_zero(ctx, "input_tokens");
  a.visible = ctx.get<Tokens>("visible_tokens");
  a.hidden = ctx.get<Tokens>("hidden_tokens");
  a.samples = static_cast<double>(ctx.integer("samples"));
  a.shared_prompt = ctx.flag("shared_prompt");
  if (a.samples < 1) throw UserError{{"--samples must be at least 1", "1 is a single answer; N draws N and votes"}};
  if ((a.visible + a.hidden).value() <= 0)
    throw UserError{{"an answer needs output tokens", "give --visible-tokens or --hidden-tokens above zero"}};
  if (a.input.value() > 0 && !ctx.has("input_price"))
    throw UserError{{"--input-tokens needs --input-price (or --api ID)", "e.g. --input-price $2.50/Mtok"}};
  const UsdPerToken in_price = ctx.has("input_price") ? ctx.get<UsdPerToken>("input_price") : from_base<UsdPerToken>(0.0);

  const Usd cost = answer_cost(a, in_price, out_price);
  AnswerTokens no_hidden = a;
  no_hidden.hidden = from_base<Tokens>(0.0);
  AnswerTokens one = a;
  one.samples = 1;
  AnswerTokens doubled = a;
  doubled.hidden = a.hidden * 2.0;
  ctx.set("cost_per_answer", cost);
  ctx.set("tokens_per_answer", answer_tokens(a));
  ctx.set("cost_per_sample", answer_cost(one, in_price, out_price));
  if (no_hidden.visible.value() > 0) {
    ctx.set("cost_without_reasoning", answer_cost(no_hidden, in_price, out_price));
    ctx.set_number("reasoning_multiplier", cost / answer_cost(no_hidden, in_price, out_price));
  }
  ctx.set_number("sampling_multiplier", cost / answer_cost(one, in_price, out_price));
  ctx.set("cost_double_hidden", answer_cost(doubled, in_price, out_price));
  ctx.set_number("double_hidden_ratio", answer_cost(doubled, in_price, out_price) / cost);
  if (ctx.has("alt_hidden_tokens")) {
    AnswerTokens alt = a;
    alt.hidden = ctx.get<Tokens>("alt_hidden_tokens");
    ctx.set("alt_cost", answer_cost(alt, in_price, out_price));
    ctx.set_number("alt_ratio", answer_cost(alt, in_price, out_price) / cost);
  }
  if (ctx.has("observed_cost")) ctx.set("implied_price_per_token", ctx.get<Usd>("observed_cost") / answer_tokens(a));
  if (ctx.has("throughput")) {
    const Tokens generated = (a.visible + a.hidden) * a.samples;
    ctx.set("answers_per_second", ctx.get<TokensPerSecond>("throughput") / generated);
  }

  ctx.note(fmt::format("cost = {} x ({} visible + {} hidden) x {}{}", plural(a.samples, "sample"), ctx.quote(a.visible),
                       ctx.quote(a.hidden), ctx.quote(out_price, "$/Mtok"),
                       a.input.value() > 0 ? fmt::format(" + {} prompt x {}{}", ctx.quote(a.input),
                                                         ctx.quote(in_price, "$/Mtok"),
                                                         a.shared_prompt ? " once" : " per sample")
                                           : std::string()));
  ctx.note("hidden reasoning tokens are billed as output tokens even though the user never sees them");
  if (a.samples > 1)
    ctx.note("self-consistency / best-of-N: every sample is generated in full; a verifier or reward model that scores them "
             "is not included");
}

}  // namespace

Calculator answer_calculator() {
  Calculator c;
  c.name = "answer";
  c.summary = "cost per answer with hidden reasoning tokens and N samples (self-consistency)";
  c.description =
      "cost = samples x (visible + hidden) x output price + input x input price (x samples unless --shared-prompt). "
      "reasoning_multiplier compares with the same answer without hidden tokens; sampling_multiplier with one sample. "
      "With --throughput, answers_per_second = throughput / generated tokens per answer.";
  c.refs = {api_ref()};
  c.inputs = {
      {.name = "visible_tokens", .kind = InputKind::quantity, .dim = dims::token, .help = "output tokens the user sees",
       .example = "500", .bound = Bound::non_negative},
      {.name = "hidden_tokens", .kind = InputKind::quantity, .dim = dims::token,
       .help = "hidden reasoning tokens per sample (billed as output)", .default_value = "0", .example = "8000",
       .bound = Bound::non_negative},
      {.name = "input_tokens", .kind = InputKind::quantity, .dim = dims::token, .help = "prompt tokens per sample",
       .example = "2000", .bound = Bound::non_negative, .optional = true},
      {.name = "samples", .kind = InputKind::integer, .help = "independent samples per answer (self-consistency, best-of-N)",
       .default_value = "1", .example = "5"},
      {.name = "shared_prompt", .kind = InputKind::flag, .help = "bill the prompt once for all samples (a shared prefix)"},
      {.name = "input_price", .kind = InputKind::quantity, .dim = dims::money_per_token, .help = "price per input token",
       .example = "$3/Mtok", .bound = Bound::non_negative, .optional = true},
      {.name = "output_price", .kind = InputKind::quantity, .dim = dims::money_per_token, .help = "price per output token",
       .example = "$15/Mtok", .optional = true},
      {.name = "gpu_hour", .kind = InputKind::quantity, .dim = dims::money_rate,
       .help = "self-hosted: accelerator-hour price (with --throughput gives the output price)", .example = "$2.20/h",
       .optional = true},
      {.name = "throughput", .kind = InputKind::quantity, .dim = dims::token_rate,
       .help = "tokens per second generated (prices self-hosted tokens; gives answers per second)", .example = "2500tok/s",
       .optional = true},
      {.name = "alt_hidden_tokens", .kind = InputKind::quantity, .dim = dims::token,
       .help = "hidden tokens of an alternative setting (e.g. high compute) to compare", .example = "5.7e9",
       .bound = Bound::non_negative, .optional = true},
      {.name = "observed_cost", .kind = InputKind::quantity, .dim = dims::currency,
       .help = "a published or measured cost per answer; gives the price per token it implies", .example = "$26",
       .optional = true},
  };
  c.outputs = {
      {"output_price_used", dims::money_per_token, "price per output token applied", "$/Mtok"},
      {"cost_per_answer", dims::currency, "cost of one answer, all samples"},
      {"tokens_per_answer", dims::token, "tokens billed per answer"},
      {"cost_per_sample", dims::currency, "cost of a single sample"},
      {"cost_without_reasoning", dims::currency, "the same answer with no hidden tokens"},
      {"reasoning_multiplier", dims::none, "cost / cost without hidden tokens"},
      {"sampling_multiplier", dims::none, "cost / cost of one sample"},
      {"cost_double_hidden", dims::currency, "cost with twice the hidden tokens"},
      {"double_hidden_ratio", dims::none, "cost with twice the hidden tokens / cost"},
      {"alt_cost", dims::currency, "cost with --alt-hidden-tokens"},
      {"alt_ratio", dims::none, "alt_cost / cost"},
      {"implied_price_per_token", dims::money_per_token, "--observed-cost / tokens billed", "$/Mtok"},
      {"answers_per_second", dims::frequency, "answers per second at --throughput (shown per second, e.g. 0.3/s)"},
  };
  c.run = run_answer;
  c.source = __FILE__;
  return c;
}

}  // namespace infracalc::cost
