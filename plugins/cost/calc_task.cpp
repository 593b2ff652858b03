// `cost task`: what an agent task costs over its steps, when the history is re-sent every call, tools cost money
// and failed attempts are retried; and whether a model with cheaper tokens but more steps is really cheaper.
#include <fmt/format.h>

#include "host/words.hpp"
#include "plugins/cost/cost_calculators.hpp"
#include "plugins/cost/cost_math.hpp"
#include "plugins/tco/tco_inputs.hpp"

namespace infracalc::cost {

namespace {

struct Agent {
  int steps;
  Tokens output_per_step;
  CallPrices prices;
  double success;
};

Usd attempt(const Agent& g, Tokens prompt, Tokens tool_result, bool full, Usd tool_cost) {
  return attempt_cost(agent_steps(g.steps, prompt, g.output_per_step, tool_result, full), g.prices, tool_cost);
}

void run_task(Context& ctx) {
  fill_api_prices(ctx);
  if (!ctx.has("output_price")) tco::missing(ctx, "output_price", "price per output token", "$15/Mtok", "api");
  fill_from_ref(ctx, "cache_read_multiplier", "api", "cache_read", expectation_of<Number>());
  fill_from_ref(ctx, "cache_write_multiplier", "api", "cache_write", expectation_of<Number>());
  const Tokens prompt = ctx.get<Tokens>("prompt_tokens");
  const Tokens tool_result = ctx.get<Tokens>("tool_result_tokens");
  const bool full = ctx.text("history") == "full";
  const Usd tool_cost = ctx.get<Usd>("tool_cost");
  const int retries = ctx.count("retries");
  if (retries < 0) throw UserError{{"--retries must be zero or more", "retries after a failed attempt"}};

  Agent a;
  a.steps = ctx.count("steps");
  if (a.steps < 1 || a.steps > 100000) throw UserError{{"--steps must be from 1 to 100,000", "calls the agent makes per attempt"}};
  a.output_per_step = ctx.get<Tokens>("tokens_per_step");
  a.prices.input = ctx.has("input_price") ? ctx.get<UsdPerToken>("input_price") : from_base<UsdPerToken>(0.0);
  a.prices.output = ctx.get<UsdPerToken>("output_price");
  const bool caching = ctx.flag("cache");
  if (caching) {
    if (!ctx.has("cache_read_multiplier"))
      throw UserError{{"--cache needs --cache-read-multiplier (or --api ID with cache prices)", "e.g. --cache-read-multiplier 10%"}};
    a.prices.read_multiplier = ctx.number("cache_read_multiplier");
    a.prices.write_multiplier = ctx.has("cache_write_multiplier") ? ctx.number("cache_write_multiplier") : 1.0;
  }
  a.success = ctx.number("success_rate");

  const auto steps = agent_steps(a.steps, prompt, a.output_per_step, tool_result, full);
  const Usd per_attempt = attempt(a, prompt, tool_result, full, tool_cost);
  Tokens in_total = from_base<Tokens>(0.0), out_total = from_base<Tokens>(0.0);
  for (const auto& s : steps) {
    in_total += s.fresh_input + s.repeated_input;
    out_total += s.output;
  }
  if (in_total.value() > 0 && !ctx.has("input_price"))
    throw UserError{{"the calls send input tokens (prompt, re-sent history, tool results): --input-price is needed",
                     "give --input-price $3/Mtok or --api ID, or --history none with no prompt"}};
  const double attempts = expected_attempts(a.success, retries);
  const double p_success = success_probability(a.success, retries);
  ctx.set("cost_per_attempt", per_attempt);
  ctx.set("input_tokens_per_attempt", in_total);
  ctx.set("output_tokens_per_attempt", out_total);
  ctx.set("tool_cost_per_attempt", tool_cost * static_cast<double>(a.steps));
  ctx.set_number("expected_attempts", attempts);
  ctx.set("expected_cost_per_task", per_attempt * attempts);
  ctx.set_number("success_probability", p_success);
  ctx.set("cost_per_success", per_attempt * attempts / p_success);

  Table t{"steps", "Calls of one attempt",
          {{"step", dims::none, ""}, {"input_tokens", dims::token, ""}, {"repeated_input", dims::token, ""},
           {"output_tokens", dims::token, ""}, {"cost", dims::currency, ""}, {"cumulative", dims::currency, ""}},
          {}};
  Usd cumulative = from_base<Usd>(0.0);
  const std::size_t shown = std::min<std::size_t>(steps.size(), 200);
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const Usd c = attempt_cost({steps[i]}, a.prices, tool_cost);
    cumulative += c;
    if (i < shown || i + 1 == steps.size())
      t.rows.push_back({Quantity::number(static_cast<double>(i + 1)), to_quantity(steps[i].fresh_input + steps[i].repeated_input),
                        to_quantity(steps[i].repeated_input), to_quantity(steps[i].output), to_quantity(c), to_quantity(cumulative)});
  }
  ctx.add_table(std::move(t));
  if (steps.size() > shown) ctx.note(fmt::format("the steps table shows the first {} steps and the last", shown));

  if (ctx.has("alt_steps")) {
    Agent b = a;
    b.steps = ctx.count("alt_steps");
    if (b.steps < 1 || b.steps > 100000) throw UserError{{"--alt-steps must be from 1 to 100,000", ""}};
    if (ctx.has("alt_tokens_per_step")) b.output_per_step = ctx.get<Tokens>("alt_tokens_per_step");
    if (ctx.has("alt_input_price")) b.prices.input = ctx.get<UsdPerToken>("alt_input_price");
    if (ctx.has("alt_output_price")) b.prices.output = ctx.get<UsdPerToken>("alt_output_price");
    if (ctx.has("alt_success_rate")) b.success = ctx.number("alt_success_rate");
    const Usd alt_attempt = attempt(b, prompt, tool_result, full, tool_cost);
    const Usd alt_success = alt_attempt * expected_attempts(b.success, retries) / success_probability(b.success, retries);
    const Usd main_success = per_attempt * attempts / p_success;
    ctx.set("alt_cost_per_attempt", alt_attempt);
    ctx.set("alt_cost_per_success", alt_success);
    ctx.set_number("cost_ratio", main_success / alt_success);
    // The factor on this agent's token prices at which both cost the same per success (tools unchanged).
    Agent unit = a;
    unit.prices.input = b.prices.input;
    unit.prices.output = b.prices.output;
    const Usd main_tokens = attempt(unit, prompt, tool_result, full, from_base<Usd>(0.0)) * attempts / p_success;
    const Usd main_tools = tool_cost * static_cast<double>(a.steps) * attempts / p_success;
    const double ratio = (alt_success - main_tools) / main_tokens;
    ctx.set_number("break_even_price_ratio", ratio);
    const bool costs_more = main_success > alt_success;
    ctx.verdict("costs_more_than_alt", costs_more,
                costs_more ? "this agent costs more per successful task than the alternative"
                           : "this agent costs less per successful task than the alternative");
    ctx.note(fmt::format("the two cost the same when this agent's token prices are {} x the alternative's", ctx.quote_number(ratio)));
  }
  ctx.note(full ? "every call re-sends the whole history (prompt, earlier outputs and tool results) as input"
                : "every call sends only the prompt and the latest tool result");
  if (caching)
    ctx.note(fmt::format("prompt caching: re-sent history at {} of the input price, new input at {}",
                         ctx.quote_percent(a.prices.read_multiplier), ctx.quote_percent(a.prices.write_multiplier)));
  ctx.note(fmt::format("a failed attempt runs all {} before it is retried (at most {}); cost per success = "
                       "expected cost / probability of success",
                       plural(a.steps, "step"), plural(retries, "retry", "retries")));
}

}  // namespace

Calculator task_calculator() {
  Calculator c;
  c.name = "task";
  c.summary = "cost per agent task: steps, tokens per step, re-sent history, tools, retries; compare a second agent";
  c.description =
      "Each attempt makes --steps calls; call k sends the prompt plus the history of earlier outputs and tool results "
      "(--history full) and generates --tokens-per-step. cost per attempt = sum of input x input price (cache reads and "
      "writes at their multipliers with --cache) + output x output price + --tool-cost per step. Expected attempts = "
      "(1 - (1-p)^(R+1)) / p for success rate p and R retries; cost per success = expected cost / (1 - (1-p)^(R+1)). "
      "--alt-* describe a second agent (e.g. a cheaper model that takes more steps).";
  c.refs = {api_ref()};
  c.inputs = {
      {.name = "steps", .kind = InputKind::integer, .help = "model calls per attempt", .example = "20", .most = 1'000'000},
      {.name = "tokens_per_step", .kind = InputKind::quantity, .dim = dims::token,
       .help = "output tokens per call (hidden reasoning included)", .example = "800"},
      {.name = "prompt_tokens", .kind = InputKind::quantity, .dim = dims::token, .help = "input tokens of the first call",
       .default_value = "0", .example = "4000", .bound = Bound::non_negative},
      {.name = "tool_result_tokens", .kind = InputKind::quantity, .dim = dims::token,
       .help = "tokens each tool result adds to the next call's input", .default_value = "0", .example = "1500",
       .bound = Bound::non_negative},
      {.name = "history", .kind = InputKind::choice, .help = "what each call re-sends", .default_value = "full",
       .choices = {"full", "none"}},
      {.name = "tool_cost", .kind = InputKind::quantity, .dim = dims::currency, .help = "paid tool cost per step (search, sandbox)",
       .default_value = "$0", .example = "$0.01", .bound = Bound::non_negative},
      {.name = "input_price", .kind = InputKind::quantity, .dim = dims::money_per_token, .help = "price per input token",
       .example = "$3/Mtok", .bound = Bound::non_negative, .optional = true},
      {.name = "output_price", .kind = InputKind::quantity, .dim = dims::money_per_token, .help = "price per output token",
       .example = "$15/Mtok", .optional = true},
      {.name = "cache", .kind = InputKind::flag, .help = "bill re-sent history as prompt-cache reads and new input as writes"},
      {.name = "cache_read_multiplier", .kind = InputKind::quantity, .dim = dims::none,
       .help = "cache read price / input price (with --cache)", .example = "10%", .bound = Bound::non_negative, .optional = true},
      {.name = "cache_write_multiplier", .kind = InputKind::quantity, .dim = dims::none,
       .help = "cache write price / input price (with --cache)", .example = "125%", .bound = Bound::non_negative,
       .optional = true},
      {.name = "success_rate", .kind = InputKind::quantity, .dim = dims::none, .help = "probability an attempt succeeds",
       .default_value = "100%", .example = "60%", .bound = Bound::fraction},
      {.name = "retries", .kind = InputKind::integer, .help = "further attempts after a failure", .default_value = "0",
       .example = "2", .bound = Bound::non_negative},
      {.name = "alt_steps", .kind = InputKind::integer, .help = "the alternative agent's calls per attempt", .example = "4",
       .optional = true},
      {.name = "alt_tokens_per_step", .kind = InputKind::quantity, .dim = dims::token,
       .help = "the alternative's output tokens per call (default: the same)", .example = "800", .optional = true},
      {.name = "alt_input_price", .kind = InputKind::quantity, .dim = dims::money_per_token,
       .help = "the alternative's input price (default: the same)", .example = "$15/Mtok", .bound = Bound::non_negative,
       .optional = true},
      {.name = "alt_output_price", .kind = InputKind::quantity, .dim = dims::money_per_token,
       .help = "the alternative's output price (default: the same)", .example = "$75/Mtok", .optional = true},
      {.name = "alt_success_rate", .kind = InputKind::quantity, .dim = dims::none,
       .help = "the alternative's success rate (default: the same)", .example = "90%", .bound = Bound::fraction, .optional = true},
  };
  c.outputs = {
      {"cost_per_attempt", dims::currency, "cost of one attempt of --steps calls"},
      {"input_tokens_per_attempt", dims::token, "input tokens sent over an attempt"},
      {"output_tokens_per_attempt", dims::token, "output tokens generated over an attempt"},
      {"tool_cost_per_attempt", dims::currency, "tool costs over an attempt"},
      {"expected_attempts", dims::none, "attempts per task on average"},
      {"expected_cost_per_task", dims::currency, "expected cost per task, retries included"},
      {"success_probability", dims::none, "probability the task succeeds within the retries"},
      {"cost_per_success", dims::currency, "expected cost per successful task"},
      {"alt_cost_per_attempt", dims::currency, "the alternative's cost per attempt"},
      {"alt_cost_per_success", dims::currency, "the alternative's expected cost per successful task"},
      {"cost_ratio", dims::none, "cost per success / the alternative's"},
      {"break_even_price_ratio", dims::none, "factor on the alternative's token prices at which this agent costs the same"},
  };
  c.run = run_task;
  c.source = __FILE__;
  c.tables = {
      {"steps", "the calls of one attempt"},
  };
  c.verdicts = {
      {"costs_more_than_alt", "this agent costs more per successful task than the alternative"},
  };
  return c;
}

}  // namespace infracalc::cost
