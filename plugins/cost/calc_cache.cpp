// `cost cache`: prompt-cache pricing of a prefix shared by many requests, and the reuse count at which it pays.
#include <algorithm>
#include <fmt/format.h>

#include "plugins/cost/cost_calculators.hpp"
#include "plugins/cost/cost_math.hpp"
#include "plugins/tco/tco_inputs.hpp"
#include "units/format.hpp"

namespace infracalc::cost {

namespace {


void run_cache(Context& ctx) {
  const Entry* api = ctx.ref("api");
  if (api != nullptr && ctx.text("ttl_tier") == "1h" && !ctx.has("write_multiplier") && !api->field("cache_write_1h"))
    throw UserError{{api->id() + " has no 1-hour cache price (series cache_write_1h)",
                     "give --write-multiplier for the 1-hour write price, or use --ttl-tier default"}};
  fill_from_ref(ctx, "input_price", "api", "input", expectation_of<UsdPerToken>());
  fill_from_ref(ctx, "read_multiplier", "api", "cache_read", expectation_of<Number>());
  fill_from_ref(ctx, "write_multiplier", "api", ctx.text("ttl_tier") == "1h" ? "cache_write_1h" : "cache_write",
                     expectation_of<Number>());
  fill_from_ref(ctx, "cache_lifetime", "api", "cache_ttl", expectation_of<Seconds>());
  if (!ctx.has("input_price")) tco::missing(ctx, "input_price", "base price per input token", "$3/Mtok", "api");
  if (!ctx.has("read_multiplier")) tco::missing(ctx, "read_multiplier", "cache read price / input price", "10%", "api");
  if (!ctx.has("write_multiplier")) tco::missing(ctx, "write_multiplier", "cache write price / input price", "125%", "api");

  CachePricing p;
  p.input = ctx.get<UsdPerToken>("input_price");
  p.read_multiplier = ctx.number("read_multiplier");
  p.write_multiplier = ctx.number("write_multiplier");
  p.storage = ctx.get<UsdPerTokenSecond>("storage_price");
  const Tokens prefix = ctx.get<Tokens>("prefix_tokens");
  const Tokens suffix = ctx.get<Tokens>("suffix_tokens");
  const double n = static_cast<double>(ctx.integer("requests"));
  if (n < 1) throw UserError{{"--requests must be at least 1", "requests that share the prefix; the first one writes it"}};
  const Seconds stored = ctx.has("stored") ? ctx.get<Seconds>("stored") : from_base<Seconds>(0.0);
  if (p.storage.value() > 0 && !ctx.has("stored"))
    throw UserError{{"--storage-price needs --stored (how long the prefix is kept)", "e.g. --stored 1h"}};

  const Usd uncached = prefix_cost_uncached(prefix, n, p.input);
  const Usd cached = prefix_cost_cached(prefix, n, p, stored);
  const Usd suffixes = suffix * p.input * n;
  ctx.set("read_price", p.input * p.read_multiplier);
  ctx.set("write_price", p.input * p.write_multiplier);
  ctx.set("cost_uncached", uncached + suffixes);
  ctx.set("cost_cached", cached + suffixes);
  ctx.set("savings", uncached - cached);
  ctx.set_number("savings_share", (uncached - cached) / (uncached + suffixes));
  ctx.set("cost_per_request_cached", (cached + suffixes) / n);
  ctx.set("cost_per_request_uncached", (uncached + suffixes) / n);
  const auto be = break_even_requests(p, prefix, stored);
  if (be) {
    ctx.set_number("break_even_requests", static_cast<double>(*be));
    ctx.set_number("break_even_reuses", static_cast<double>(*be - 1));
    ctx.verdict("caching_pays", n >= static_cast<double>(*be),
                n >= static_cast<double>(*be)
                    ? fmt::format("{} requests share the prefix; caching pays from {} (one write, {} read{})", ctx.quote_count(n), *be, *be - 1,
                                  *be - 1 == 1 ? "" : "s")
                    : fmt::format("caching pays only from {} requests sharing the prefix; {} is too few", *be, ctx.quote_count(n)));
  } else {
    ctx.verdict("caching_pays", false, "reads cost as much as uncached input: caching never pays on price");
  }
  if (ctx.has("cache_lifetime")) ctx.set("lifetime", ctx.get<Seconds>("cache_lifetime"));

  std::vector<double> counts = {1, 2, 3, 5, 10, 20, 50, 100, n};
  if (be) counts.push_back(static_cast<double>(*be));
  std::sort(counts.begin(), counts.end());
  counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
  Table t{"requests", "Prefix cost by the number of requests sharing it",
          {{"requests", dims::none, ""}, {"uncached", dims::currency, ""}, {"cached", dims::currency, ""},
           {"savings_share", dims::none, ""}},
          {}};
  for (double k : counts) {
    const Usd u = prefix_cost_uncached(prefix, k, p.input), c = prefix_cost_cached(prefix, k, p, stored);
    t.rows.push_back({Quantity::number(k), to_quantity(u), to_quantity(c), Quantity::number((u - c) / u)});
  }
  ctx.add_table(std::move(t));

  ctx.note(fmt::format("cached = prefix x input price x ({} write + (requests - 1) x {} read){}; uncached = requests x "
                       "prefix x input price",
                       ctx.quote_number(p.write_multiplier), ctx.quote_number(p.read_multiplier), p.storage.value() > 0 ? " + storage" : ""));
  ctx.note(std::string("every reuse must arrive within the cache lifetime") +
           (ctx.has("cache_lifetime") ? " (" + ctx.quote(ctx.quantity("cache_lifetime")) + ", refreshed by each hit)" : "") +
           ", or the prefix is written again; minimum cacheable lengths (about 1,024 tokens) are not checked");
}

}  // namespace

Calculator cache_calculator() {
  Calculator c;
  c.name = "cache";
  c.summary = "prompt-cache pricing: reads at a fraction, writes at a premium; the reuse count at which caching pays";
  c.description =
      "For a prefix of P tokens shared by n requests within the cache lifetime: uncached = n x P x price; cached = P x price "
      "x (write + (n - 1) x read) + P x storage price x time stored. Caching pays from the smallest n with cached < "
      "uncached: n > (write - read + storage share) / (1 - read). Multipliers come from --api (dated provider entries) or "
      "flags.";
  c.refs = {api_ref()};
  c.inputs = {
      {.name = "input_price", .kind = InputKind::quantity, .dim = dims::money_per_token, .help = "base price per input token",
       .example = "$3/Mtok", .optional = true},
      {.name = "read_multiplier", .kind = InputKind::quantity, .dim = dims::none, .help = "cache read price / input price",
       .example = "10%", .bound = Bound::non_negative, .optional = true},
      {.name = "write_multiplier", .kind = InputKind::quantity, .dim = dims::none, .help = "cache write price / input price",
       .example = "125%", .bound = Bound::non_negative, .optional = true},
      {.name = "ttl_tier", .kind = InputKind::choice, .help = "which --api write price: the default lifetime or the 1-hour one",
       .default_value = "default", .choices = {"default", "1h"}},
      {.name = "prefix_tokens", .kind = InputKind::quantity, .dim = dims::token, .help = "tokens of the shared, cached prefix",
       .example = "100k"},
      {.name = "suffix_tokens", .kind = InputKind::quantity, .dim = dims::token,
       .help = "uncached tokens after the prefix, per request", .default_value = "0", .example = "500",
       .bound = Bound::non_negative},
      {.name = "requests", .kind = InputKind::integer, .help = "requests sharing the prefix (the first writes it)",
       .default_value = "10", .example = "50"},
      {.name = "storage_price", .kind = InputKind::quantity, .dim = dims::money_per_token_time,
       .help = "storage fee per token and hour (explicit caches that charge one)", .default_value = "$0/(Mtok*h)",
       .example = "$4.50/(Mtok*h)", .bound = Bound::non_negative},
      {.name = "stored", .kind = InputKind::quantity, .dim = dims::time, .help = "how long the prefix is kept (with --storage-price)",
       .example = "1h", .optional = true},
      {.name = "cache_lifetime", .kind = InputKind::quantity, .dim = dims::time,
       .help = "cache lifetime (from --api cache_ttl; for information)", .example = "5min", .optional = true},
  };
  c.outputs = {
      {"read_price", dims::money_per_token, "price of a cached read", "$/Mtok"},
      {"write_price", dims::money_per_token, "price of a cache write", "$/Mtok"},
      {"cost_uncached", dims::currency, "input cost of all requests without caching"},
      {"cost_cached", dims::currency, "input cost of all requests with caching"},
      {"savings", dims::currency, "cost_uncached - cost_cached"},
      {"savings_share", dims::none, "savings / cost_uncached"},
      {"cost_per_request_cached", dims::currency, "input cost per request with caching"},
      {"cost_per_request_uncached", dims::currency, "input cost per request without caching"},
      {"break_even_requests", dims::none, "fewest requests sharing the prefix for which caching is cheaper"},
      {"break_even_reuses", dims::none, "the same as reuses after the first (writing) request"},
      {"lifetime", dims::time, "cache lifetime of the --api entry"},
  };
  c.run = run_cache;
  c.source = __FILE__;
  c.tables = {
      {"requests", "prefix cost by the number of requests sharing it"},
  };
  c.verdicts = {
      {"caching_pays", "enough requests share the prefix for caching to cost less"},
  };
  return c;
}

}  // namespace infracalc::cost
