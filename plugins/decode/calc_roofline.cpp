// `decode roofline`: where a device's ridge point lies and which side of it decode and prefill fall on.
#include <fmt/format.h>

#include "host/context.hpp"
#include "plugins/decode/decode_calculators.hpp"
#include "plugins/decode/decode_inputs.hpp"
#include "plugins/kv/kv_arch.hpp"
#include "units/bridge.hpp"
#include "units/format.hpp"

namespace infracalc::decode {

namespace {

Cell q(const auto& v) { return to_quantity(v); }

// --sweep batch=... and --sweep tokens=... may both be given (joined by commas on the way in): one sweep per
// key, split where a comma is followed by a key and "=".
std::vector<Sweep> sweeps_of(const std::string& text) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != ',') continue;
    const std::string rest = text.substr(i + 1);
    if (rest.rfind("batch=", 0) == 0 || rest.rfind("tokens=", 0) == 0) {
      parts.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  parts.push_back(text.substr(start));
  std::vector<Sweep> out;
  for (const auto& p : parts) {
    out.push_back(parse_sweep(p, {"batch", "tokens"}, "--sweep"));
    for (std::size_t k = 0; k + 1 < out.size(); ++k)
      if (out[k].key == out.back().key)
        throw UserError{{"--sweep: " + out.back().key + " is swept twice", "sweep batch and tokens once each: --sweep batch=1..1024 --sweep tokens=1k..128k"}};
  }
  if (out.size() == 2 && out[0].values.size() * out[1].values.size() > 100'000)
    throw UserError{{fmt::format("--sweep: {} x {} points is more than 100,000", out[0].values.size(), out[1].values.size()),
                     "fewer points on one axis"}};
  return out;
}

void add_sweep(Context& ctx, const Workload& w, const Roof& roof, double batch, Tokens tokens) {
  const std::vector<Sweep> sweeps = sweeps_of(ctx.text("sweep"));
  Table t;
  t.name = "sweep";
  t.title = sweeps.size() == 1 ? fmt::format("decode step across {} (roofline data: intensity against attainable rate)", sweeps[0].key)
                               : "decode step across batch and tokens (roofline data: intensity against attainable rate)";
  t.columns = {{"batch", dims::none, ""},           {"tokens", dims::token, ""},          {"intensity", dims::intensity, ""},
               {"attainable", dims::flop_rate, ""}, {"memory_time", dims::time, ""},      {"compute_time", dims::time, ""},
               {"step_time", dims::time, ""},       {"tokens_per_second", dims::token_rate, ""}, {"bound", dims::none, ""}};
  const Sweep* by_batch = nullptr;
  const Sweep* by_tokens = nullptr;
  for (const auto& s : sweeps) (s.key == "batch" ? by_batch : by_tokens) = &s;
  const std::vector<double> batches = by_batch ? by_batch->values : std::vector<double>{batch};
  const std::vector<double> contexts = by_tokens ? by_tokens->values : std::vector<double>{tokens.value()};
  // The first --sweep varies slowest.
  const bool tokens_outer = sweeps.front().key == "tokens";
  for (std::size_t i = 0; i < (tokens_outer ? contexts.size() : batches.size()); ++i) {
    for (std::size_t j = 0; j < (tokens_outer ? batches.size() : contexts.size()); ++j) {
      const double b = tokens_outer ? batches[j] : batches[i];
      const Tokens ctx_tokens = from_base<Tokens>(tokens_outer ? contexts[i] : contexts[j]);
      const StepCost c = decode_step(w, b, ctx_tokens).cost();
      const StepTime st = step_time(c, roof);
      const FlopsPerByte in = intensity(c);
      t.rows.push_back({Quantity::number(b), q(ctx_tokens), q(in), q(attainable(*roof.peak, roof.bandwidth, in)), q(st.memory),
                        q(st.compute), q(st.total), q(from_base<Tokens>(b) / st.total), std::string(bound_word(st.memory_bound))});
    }
  }
  ctx.add_table(std::move(t));
}

void calculate_roofline(Context& ctx) {
  const auto w = resolve_workload(ctx, false);
  const Roof roof = resolve_roof(ctx, true);
  const FlopsPerSecond peak = *roof.peak;
  const FlopsPerByte ridge = ridge_point(peak, roof.bandwidth);
  ctx.set("peak", peak);
  ctx.set("bandwidth", roof.bandwidth);
  ctx.set("ridge_point", ridge);
  if (ctx.has("intensity")) {
    const FlopsPerByte i = ctx.get<FlopsPerByte>("intensity");
    ctx.set("attainable", attainable(peak, roof.bandwidth, i));
    const bool mem = i < ridge;
    ctx.verdict("memory_bound", mem,
                fmt::format("intensity {} is {} the ridge point {}", ctx.quote(i), mem ? "below" : "at or above",
                            ctx.quote(ridge)));
  }
  if (w) {
    const double batch = batch_of(ctx);
    const Tokens tokens = ctx.get<Tokens>("tokens");
    if (w->arch) kv::note_context_limit(ctx, *w->arch, tokens);
    const StepCost dec = decode_step(*w, batch, tokens).cost();
    const FlopsPerByte di = intensity(dec);
    ctx.set("decode_flops", dec.flops);
    ctx.set("decode_bytes", dec.bytes);
    ctx.set("decode_intensity", di);
    ctx.set("decode_attainable", attainable(peak, roof.bandwidth, di));
    const bool dmem = di < ridge;
    ctx.verdict("decode_memory_bound", dmem,
                fmt::format("decode at batch {} with {} of context: intensity {} against a ridge of {}", batch,
                            ctx.quote(tokens), ctx.quote(di), ctx.quote(ridge)));
    if (auto rb = ridge_batch(*w, roof, tokens)) ctx.set_number("ridge_batch", *rb);
    else ctx.note("the decode step never reaches the ridge at this context: its KV reads grow as fast as its arithmetic");
    if (tokens.value() >= 1) {
      const StepCost pre = prefill_step(*w, batch, tokens, !ctx.flag("non_causal")).cost();
      const FlopsPerByte pi = intensity(pre);
      ctx.set("prefill_flops", pre.flops);
      ctx.set("prefill_bytes", pre.bytes);
      ctx.set("prefill_intensity", pi);
      ctx.set("prefill_attainable", attainable(peak, roof.bandwidth, pi));
      const bool pmem = pi < ridge;
      ctx.verdict("prefill_memory_bound", pmem,
                  fmt::format("a prefill of {} x {}: intensity {} against a ridge of {}", batch, ctx.quote(tokens),
                              ctx.quote(pi), ctx.quote(ridge)));
    } else {
      ctx.note("--tokens 0: no context, so no KV reads in the decode step and no prefill figures (give --tokens)");
    }
    if (ctx.has("sweep")) add_sweep(ctx, *w, roof, batch, tokens);
  } else if (ctx.has("sweep")) {
    throw UserError{{"--sweep needs a model: give --model ID, --params N or --weights-bytes SIZE", "e.g. --model llama-3-70b"}};
  }
  ctx.note("attainable = min(peak, bandwidth x intensity); ridge point = peak / bandwidth; memory and compute assumed to overlap perfectly");
  if (!ctx.has("mbu") && !ctx.has("mfu")) ctx.note("roofs at 100% of datasheet bandwidth and peak (give --mbu/--mfu for achieved fractions)");
}

}  // namespace

Calculator roofline_calculator() {
  Calculator c;
  c.name = "roofline";
  c.summary = "ridge point, and whether decode and prefill are memory- or compute-bound";
  c.description =
      "ridge_point = peak / bandwidth (FLOP/B). attainable = min(peak, bandwidth x intensity). A decode step at batch B and "
      "context S reads the weights (the experts the batch touches, for MoE) plus B sequences' KV cache and does B x (2 x "
      "matmul parameters + attention) operations; a prefill of B prompts of S tokens reads the weights once and does B x S "
      "times that work plus causal attention, 2 N(N+1) d per layer and head (4 N^2 d with --non-causal). --sweep batch=1..1024 (doubling) or tokens=1k..128k prints the curve; both together print the grid. "
      "Ignores kernel overheads, activation traffic and imperfect overlap of memory and compute.";
  c.refs = model_gpu_refs();
  c.inputs = join(join(model_inputs(), device_inputs(true)),
                  {
                      {.name = "batch", .kind = InputKind::integer, .help = "sequences decoded together (prompts prefilled together)",
                       .default_value = "1", .example = "64", .most = kMaxBatch, .most_why = kBatchWhy},
                      {.name = "tokens", .kind = InputKind::quantity, .dim = dims::token,
                       .help = "sequence length: context held in the KV cache while decoding, prompt length for prefill",
                       .default_value = "0", .example = "8k", .bound = Bound::non_negative},
                      {.name = "non_causal", .kind = InputKind::flag,
                       .help = "count prefill attention over every query-key pair; by default a decoder's causal mask halves it"},
                      {.name = "intensity", .kind = InputKind::quantity, .dim = dims::intensity,
                       .help = "an arithmetic intensity to place on the roofline", .example = "2FLOP/B", .optional = true},
                      {.name = "sweep", .kind = InputKind::text,
                       .help = "print a table across batch or tokens (batch=1..1024 doubling, tokens=1k..128k, batch=1,8,64); give both "
                               "for a grid",
                       .example = "batch=1..1024", .optional = true},
                  });
  c.outputs = {
      {"peak", dims::flop_rate, "peak arithmetic rate used (after --mfu)"},
      {"bandwidth", dims::data_rate, "memory bandwidth used (after --mbu)"},
      {"ridge_point", dims::intensity, "intensity where memory and compute take equally long: peak / bandwidth"},
      {"attainable", dims::flop_rate, "attainable rate at --intensity"},
      {"decode_flops", dims::flop, "operations of one decode step (whole batch)"},
      {"decode_bytes", dims::information, "bytes one decode step moves: weights, KV read and KV written"},
      {"decode_intensity", dims::intensity, "arithmetic intensity of the decode step"},
      {"decode_attainable", dims::flop_rate, "attainable rate of the decode step"},
      {"ridge_batch", dims::none, "batch at which the decode step reaches the ridge (where compute starts to bind)"},
      {"prefill_flops", dims::flop, "operations of the prefill (whole batch)"},
      {"prefill_bytes", dims::information, "bytes the prefill moves: weights once, KV written"},
      {"prefill_intensity", dims::intensity, "arithmetic intensity of the prefill"},
      {"prefill_attainable", dims::flop_rate, "attainable rate of the prefill"},
  };
  c.run = calculate_roofline;
  c.source = __FILE__;
  c.tables = {
      {"sweep", "decode step across batch and context: intensity against attainable rate"},
  };
  c.verdicts = {
      {"decode_memory_bound", "the decode step's intensity is below the ridge point"},
      {"memory_bound", "the given intensity is below the ridge point"},
      {"prefill_memory_bound", "the prefill's intensity is below the ridge point"},
  };
  return c;
}

}  // namespace infracalc::decode
