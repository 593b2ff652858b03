// `cost token`: what a token costs on an accelerator rented or owned at an hourly price.
#include <fmt/format.h>

#include "host/words.hpp"
#include "plugins/cost/cost_calculators.hpp"
#include "plugins/cost/cost_math.hpp"
#include "plugins/tco/tco_inputs.hpp"
#include "plugins/tco/tco_math.hpp"
#include "units/format.hpp"

namespace infracalc::cost {

namespace {


void run_token(Context& ctx) {
  fill_gpu_hour(ctx);
  const TokensPerSecond tput = ctx.get<TokensPerSecond>("throughput");
  const double gpus = static_cast<double>(ctx.integer("gpus"));
  if (gpus < 1) throw UserError{{"--gpus must be at least 1", "the accelerators that together deliver --throughput"}};
  const double util = ctx.number("utilisation");
  if (ctx.has("target_price")) ctx.set("gpu_hour_for_target", gpu_hour_for(ctx.get<UsdPerToken>("target_price"), gpus, tput, util));
  if (!ctx.has("gpu_hour") && ctx.has("target_price")) {
    ctx.note("no --gpu-hour: only the hourly price that reaches --target-price is computed");
    return;
  }
  if (!ctx.has("gpu_hour")) tco::missing(ctx, "gpu_hour", "price of one accelerator-hour", "$2.20/h", "rental");
  const UsdPerHour price = ctx.get<UsdPerHour>("gpu_hour");
  const UsdPerToken out_price = price_per_token(price, gpus, tput, util);
  ctx.set("price_per_token", out_price);
  ctx.set("tokens_per_hour", tput * util * tco::hour() / gpus);
  ctx.set("paid_per_hour", price * gpus);
  std::optional<UsdPerToken> in_price;
  if (ctx.has("input_throughput")) {
    in_price = price_per_token(price, gpus, ctx.get<TokensPerSecond>("input_throughput"), util);
    ctx.set("input_price_per_token", *in_price);
  }
  if (ctx.has("input_tokens") || ctx.has("output_tokens")) {
    const Tokens in = ctx.has("input_tokens") ? ctx.get<Tokens>("input_tokens") : from_base<Tokens>(0.0);
    const Tokens out = ctx.has("output_tokens") ? ctx.get<Tokens>("output_tokens") : from_base<Tokens>(0.0);
    if (in.value() > 0 && !in_price)
      throw UserError{{"--input-tokens needs --input-throughput (prompt tokens per second during prefill)",
                       "prefill runs far faster than decode, so input tokens get their own price"}};
    const Usd cost = call_cost(in, in_price.value_or(from_base<UsdPerToken>(0.0)), out, out_price);
    ctx.set("request_cost", cost);
    if ((in + out).value() > 0) ctx.set("blended_price_per_token", cost / (in + out));
  }
  ctx.note(fmt::format("price per token = {} x {} / ({} x {} busy)", ctx.quote(ctx.quantity("gpu_hour"), "$/h"), plural(gpus, "accelerator"),
                       ctx.quote(ctx.quantity("throughput")), ctx.quote_percent(util)));
  if (in_price)
    ctx.note("input and output tokens are priced by the accelerator time each takes: prefill at --input-throughput, decode at "
             "--throughput, one after the other (no overlap of the two phases)");
  ctx.note("--throughput is an input here (from `decode ceiling`, `serve capacity` or a measurement); `infracalc plan` "
           "chains them. Left out: networking, storage, staff, failed requests and margin");
}

}  // namespace

Calculator token_calculator() {
  Calculator c;
  c.name = "token";
  c.summary = "price per million tokens from an accelerator-hour price and a throughput";
  c.description =
      "price_per_token = gpu_hour x gpus / (throughput x utilisation): the rented or owned accelerator time one token takes. "
      "With --input-throughput, prompt tokens get their own price (gpu_hour x gpus / input_throughput), and a request of "
      "--input-tokens and --output-tokens costs in x input price + out x output price. --target-price inverts it: the "
      "hourly price that gives that $/Mtok.";
  c.refs = {rental_ref()};
  c.inputs = {
      {.name = "gpu_hour", .kind = InputKind::quantity, .dim = dims::money_rate,
       .help = "price of one accelerator-hour (rental, or tco hour's owner cost); or --rental", .example = "$2.20/h", .optional = true},
      tier_input(),
      {.name = "throughput", .kind = InputKind::quantity, .dim = dims::token_rate,
       .help = "output tokens per second the accelerators deliver together while busy (all concurrent users)",
       .example = "2500tok/s"},
      {.name = "gpus", .kind = InputKind::integer, .help = "accelerators that together deliver --throughput (one replica)",
       .default_value = "1", .example = "8"},
      {.name = "utilisation", .kind = InputKind::quantity, .dim = dims::none,
       .help = "share of the paid hours spent serving at --throughput", .default_value = "100%", .example = "60%",
       .bound = Bound::fraction},
      {.name = "input_throughput", .kind = InputKind::quantity, .dim = dims::token_rate,
       .help = "prompt tokens per second during prefill (prices input tokens separately)", .example = "25000tok/s",
       .optional = true},
      {.name = "input_tokens", .kind = InputKind::quantity, .dim = dims::token, .help = "prompt tokens of one request",
       .example = "2000", .bound = Bound::non_negative, .optional = true},
      {.name = "output_tokens", .kind = InputKind::quantity, .dim = dims::token, .help = "output tokens of one request",
       .example = "500", .bound = Bound::non_negative, .optional = true},
      {.name = "target_price", .kind = InputKind::quantity, .dim = dims::money_per_token,
       .help = "a price per token to hit; gives the hourly price that reaches it", .example = "$0.42/Mtok", .optional = true},
  };
  c.outputs = {
      {"price_per_token", dims::money_per_token, "cost of one output token", "$/Mtok"},
      {"tokens_per_hour", dims::token, "output tokens one paid accelerator-hour yields"},
      {"paid_per_hour", dims::money_rate, "what the --gpus accelerators cost per hour", "$/h"},
      {"input_price_per_token", dims::money_per_token, "cost of one prompt token (with --input-throughput)", "$/Mtok"},
      {"request_cost", dims::currency, "cost of one request of --input-tokens and --output-tokens"},
      {"blended_price_per_token", dims::money_per_token, "request cost / (input + output tokens)", "$/Mtok"},
      {"gpu_hour_for_target", dims::money_rate, "hourly price per accelerator that gives --target-price", "$/h"},
  };
  c.run = run_token;
  c.source = __FILE__;
  return c;
}

}  // namespace infracalc::cost
