// `kv prefix`: blocks and bytes a shared prefix saves, and the prompt-cache hit rate that pays for it.
#include <cmath>
#include <fmt/format.h>

#include "plugins/kv/kv_arch.hpp"
#include "plugins/kv/kv_calculators.hpp"
#include "plugins/kv/kv_prefix.hpp"

namespace infracalc::kv {

namespace {

// A price multiplier: the flag, else the --price entry's field (a plain value or a dated series, newest
// entry not after --as-of), else the default. The input list records where it came from.
double price_multiplier(Context& ctx, std::string_view key) {
  const Entry* e = ctx.ref("price");
  if (e == nullptr || ctx.origin(key) == Origin::flag) return ctx.number(key);
  std::optional<FieldRef> ref = e->field(key);
  if (ref && ref->value->kind == Node::Kind::array) ref = e->dated(key, ctx.options().as_of);
  if (!ref) return ctx.number(key);
  auto q = node_quantity(*ref->value, Expectation{dims::none, false}, ref->location + ": " + std::string(key));
  if (!q) throw UserError{q.error()};
  if (!std::isfinite(q->value) || q->value < 0)
    throw UserError{{ref->location + ": " + std::string(key) + " must be a non-negative multiple of the input price", ""}};
  ctx.cite(ref->provenance);
  for (auto& in : ctx.result().inputs)
    if (in.key == key) {
      in.origin = Origin::catalog;
      in.from = e->id();
      in.value = *q;
      in.raw = ref->value->kind == Node::Kind::string ? ref->value->str : std::to_string(q->value);
    }
  return q->value;
}

// The base input price: the flag, else the --price entry's `input` (a plain value or a dated series, newest
// entry not after --as-of); absent when neither gives one.
void fill_input_price(Context& ctx) {
  const Entry* e = ctx.ref("price");
  if (e == nullptr || ctx.has("input_price")) return;
  std::optional<FieldRef> ref = e->field("input");
  if (ref && ref->value->kind == Node::Kind::array) ref = e->dated("input", ctx.options().as_of);
  if (!ref) return;
  auto q = node_quantity(*ref->value, Expectation{dims::money_per_token, false}, ref->location + ": input");
  if (!q) throw UserError{q.error()};
  if (!std::isfinite(q->value) || q->value < 0)
    throw UserError{{ref->location + ": input must be a non-negative price per token", ""}};
  ctx.cite(ref->provenance);
  ctx.result().inputs.push_back({"input_price", Origin::catalog, *q,
                                 ref->value->kind == Node::Kind::string ? ref->value->str : std::to_string(q->value), e->id(), "input"});
}

void run_prefix(Context& ctx) {
  PrefixShape s;
  s.prefix = static_cast<std::int64_t>(ctx.get<Tokens>("prefix").value());
  s.tail = static_cast<std::int64_t>(ctx.get<Tokens>("suffix").value() + ctx.get<Tokens>("output").value());
  s.requests = ctx.integer("requests");
  s.block_size = ctx.integer("block_size");
  const PrefixBlocks b = prefix_blocks(s);
  ctx.set_number("blocks_unshared", static_cast<double>(b.unshared));
  ctx.set_number("blocks_shared", static_cast<double>(b.shared));
  ctx.set_number("blocks_saved", static_cast<double>(b.unshared - b.shared));
  ctx.set_number("saving", static_cast<double>(b.unshared - b.shared) / static_cast<double>(b.unshared));
  ctx.set_number("shared_prefix_blocks", static_cast<double>(b.shared_prefix_blocks));
  ctx.set_number("cow_copies", static_cast<double>(b.copies));

  if (const auto arch = resolve_arch(ctx, false)) {
    const KvPrecision prec = resolve_precision(ctx);
    const Parallelism par = resolve_parallel(ctx, *arch);
    const Bytes token = cache_size(*arch, prec, from_base<Tokens>(1.0), Number::from_value(1.0), par).per_token_per_device;
    const Bytes block = token * static_cast<double>(s.block_size);
    ctx.set("block_bytes", block);
    ctx.set("bytes_unshared", block * static_cast<double>(b.unshared));
    ctx.set("bytes_shared", block * static_cast<double>(b.shared));
    ctx.set("bytes_saved", block * static_cast<double>(b.unshared - b.shared));
    ctx.note("layout: " + describe(*arch));
  }

  CachePricing p;
  p.read = price_multiplier(ctx, "cache_read");
  p.write = price_multiplier(ctx, "cache_write");
  if (p.read >= 1.0)
    throw UserError{{fmt::format("--cache-read ({:g}) must be below 1: a cached token that costs as much as a fresh one never pays", p.read),
                     "e.g. --cache-read 10%"}};
  const double h = break_even_hit_rate(p);
  ctx.set_number("break_even_hit_rate", h);
  ctx.set_number("break_even_requests", static_cast<double>(break_even_requests(p)));
  const double batch_multiplier = (p.write + static_cast<double>(s.requests - 1) * p.read) / static_cast<double>(s.requests);
  ctx.set_number("cost_multiplier_requests", batch_multiplier);
  if (ctx.has("hit_rate")) {
    const double hit = ctx.number("hit_rate");
    ctx.set_number("cost_multiplier", cost_multiplier(p, hit));
    ctx.verdict("caching_pays", hit >= h,
                hit >= h ? fmt::format("at a {} hit rate caching the prefix costs {}x the uncached price", ctx.quote_percent(hit),
                                       ctx.quote_number(cost_multiplier(p, hit)))
                         : fmt::format("below the {} break-even hit rate caching costs more than it saves", ctx.quote_percent(h)));
  }
  fill_input_price(ctx);
  if (ctx.has("input_price")) {
    const UsdPerToken price = ctx.get<UsdPerToken>("input_price");
    const Tokens prefix = ctx.get<Tokens>("prefix");
    const Usd uncached = price * prefix * static_cast<double>(s.requests);
    const Usd cached = uncached * batch_multiplier;
    ctx.set("prefix_cost_uncached", uncached);
    ctx.set("prefix_cost_cached", cached);
    ctx.set("prefix_cost_saved", uncached - cached);
  }

  Table t{"blocks", "blocks with and without sharing",
          {{"case"}, {"blocks", dims::none}, {"per_request", dims::none}},
          {{std::string("each request holds its own copy"), Quantity::number(static_cast<double>(b.unshared)),
            Quantity::number(static_cast<double>(b.unshared) / static_cast<double>(s.requests))},
           {std::string("prefix shared, copy-on-write at divergence"), Quantity::number(static_cast<double>(b.shared)),
            Quantity::number(static_cast<double>(b.shared) / static_cast<double>(s.requests))}}};
  ctx.add_table(std::move(t));
  const std::int64_t partial = s.prefix % s.block_size;
  ctx.note(fmt::format("{} full prefix blocks are held once; {}", s.prefix / s.block_size,
                       partial == 0 ? std::string("the prefix ends on a block boundary, so nothing is copied")
                                    : fmt::format("the last prefix block holds {} of {} tokens and is copied by each request that writes "
                                                  "past the prefix except the last (copy-on-write)",
                                                  partial, s.block_size)));
  ctx.note(fmt::format("pricing: a cache hit costs {} x and a cache write {} x the base input price; break-even hit rate = "
                       "(write - 1) / (write - read) = {}; defaults are Anthropic's published prompt-caching multipliers "
                       "(5-minute cache), see docs/kv.md",
                       ctx.quote_number(p.read), ctx.quote_number(p.write), ctx.quote_number(h)));
  ctx.note("cost_multiplier_requests assumes one cache write and requests - 1 hits inside the cache lifetime");
}

}  // namespace

Calculator prefix_calculator() {
  Calculator c;
  c.name = "prefix";
  c.summary = "shared-prefix KV blocks (copy-on-write) and the prompt-cache hit rate that pays for caching";
  c.description =
      "N requests start with the same --prefix tokens and add --suffix + --output tokens each. Unshared: N x ceil((prefix + "
      "tail) / B) blocks. Shared: full prefix blocks once, the partly filled last prefix block copied on write by every "
      "request but the last, plus each request's own blocks. Pricing: with cached reads at r and cache writes at w times "
      "the base input price, caching pays above the hit rate h = (w - 1) / (w - r), and from n = ceil((w - r) / (1 - r)) "
      "requests per cache write.";
  c.refs = {model_ref(),
            {"price", {"price"},
             "provider price entry (series cache_read, cache_write, input): sets --cache-read, --cache-write and --input-price"}};
  c.inputs = {
      {.name = "prefix", .kind = InputKind::quantity, .dim = dims::token, .help = "tokens every request shares (system prompt, document)",
       .example = "2000"},
      {.name = "requests", .kind = InputKind::integer, .help = "requests sharing the prefix", .example = "100"},
      {.name = "suffix", .kind = InputKind::quantity, .dim = dims::token, .help = "prompt tokens of each request after the prefix",
       .default_value = "0", .example = "200", .bound = Bound::non_negative},
      {.name = "output", .kind = InputKind::quantity, .dim = dims::token, .help = "output tokens of each request",
       .default_value = "0", .example = "300", .bound = Bound::non_negative},
      {.name = "block_size", .kind = InputKind::integer, .help = "tokens per KV block", .default_value = "16", .example = "32", .most = 1'048'576},
      {.name = "cache_read", .kind = InputKind::quantity, .dim = dims::none,
       .help = "price of a cached prefix token as a share of the base input price (default: the --price entry's, else 10%)",
       .default_value = "10%", .example = "50%", .bound = Bound::fraction0},
      {.name = "cache_write", .kind = InputKind::quantity, .dim = dims::none,
       .help = "price of writing a prefix token to the cache as a multiple of the base input price (default: the --price "
               "entry's, else 1.25)",
       .default_value = "1.25", .example = "2"},
      {.name = "hit_rate", .kind = InputKind::quantity, .dim = dims::none, .help = "share of requests that find the prefix cached",
       .example = "80%", .bound = Bound::fraction0, .optional = true},
      {.name = "input_price", .kind = InputKind::quantity, .dim = dims::money_per_token,
       .help = "base input price (default: the --price entry's input price)", .example = "$3/Mtok", .optional = true},
  };
  for (auto& in : arch_inputs()) c.inputs.push_back(in);
  for (auto& in : precision_inputs()) c.inputs.push_back(in);
  for (auto& in : parallel_inputs()) c.inputs.push_back(in);
  c.outputs = {
      {"blocks_unshared", dims::none, "blocks when every request holds its own prefix"},
      {"blocks_shared", dims::none, "blocks with the prefix shared"},
      {"blocks_saved", dims::none, "difference"},
      {"saving", dims::none, "blocks_saved / blocks_unshared"},
      {"shared_prefix_blocks", dims::none, "prefix blocks held once for all requests"},
      {"cow_copies", dims::none, "copy-on-write copies of the partial last prefix block"},
      {"block_bytes", dims::information, "bytes of one block on one device (with a model)"},
      {"bytes_unshared", dims::information, "cache bytes without sharing"},
      {"bytes_shared", dims::information, "cache bytes with sharing"},
      {"bytes_saved", dims::information, "bytes saved"},
      {"break_even_hit_rate", dims::none, "hit rate at which caching costs as much as not caching"},
      {"break_even_requests", dims::none, "fewest requests per cache write for caching to pay"},
      {"cost_multiplier_requests", dims::none, "prefix price with caching / without, one write then requests - 1 hits"},
      {"cost_multiplier", dims::none, "expected prefix price with caching / without at --hit-rate"},
      {"prefix_cost_uncached", dims::currency, "prefix input cost of all requests without caching"},
      {"prefix_cost_cached", dims::currency, "the same with one write and requests - 1 hits"},
      {"prefix_cost_saved", dims::currency, "difference"},
  };
  c.run = run_prefix;
  c.source = __FILE__;
  c.tables = {
      {"blocks", "blocks with and without sharing"},
  };
  c.verdicts = {
      {"caching_pays", "caching the prefix costs less than the uncached price at this hit rate"},
  };
  return c;
}

}  // namespace infracalc::kv
