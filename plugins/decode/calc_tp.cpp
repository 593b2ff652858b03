// `decode tp`: what tensor parallelism does to a decode step: each device reads 1/TP of the weights,
// but every layer adds two all-reduces whose latency does not shrink, so the speed-up flattens.
#include <fmt/format.h>

#include "host/context.hpp"
#include "plugins/decode/decode_calculators.hpp"
#include "plugins/decode/decode_inputs.hpp"
#include "plugins/decode/decode_step_common.hpp"
#include "plugins/kv/kv_layout.hpp"
#include "units/bridge.hpp"
#include "units/format.hpp"

namespace infracalc::decode {

namespace {

struct TpRow {
  int tp = 1;
  StepDetail detail;
  TpCommunication comm;
  StepTime time;
};

TpRow evaluate(const Workload& w, const Roof& roof, const std::optional<Link>& link, double batch, Tokens tokens, int tp,
               Bytes act, Seconds overhead) {
  TpRow r;
  r.tp = tp;
  r.detail = decode_step(w, batch, tokens, tp);
  if (link && w.arch) r.comm = tp_communication(w.arch->layers, w.arch->hidden_size, batch, act, tp, *link);
  r.time = step_time(r.detail.cost(), roof, r.comm.total, overhead);
  return r;
}

void calculate_tp(Context& ctx) {
  const Workload w = *resolve_workload(ctx, true);
  if (!w.arch || w.arch->hidden_size <= 0)
    throw UserError{{"decode tp needs the layer count and model width for its all-reduces", "give --model, or --layers, --heads, --kv-heads, --head-dim and --hidden-size"}};
  const Roof roof = resolve_roof(ctx, false);
  const auto link = resolve_link(ctx);
  if (!link) ctx.note("no link bandwidth (give --link-bandwidth, --link or a --gpu with scaleup_bandwidth): communication not counted");
  const double batch = batch_of(ctx);
  const Tokens tokens = ctx.get<Tokens>("tokens");
  const Bytes act = activation_bytes(ctx);
  const Seconds overhead = ctx.has("overhead") ? ctx.get<Seconds>("overhead") : Seconds{};
  const std::vector<int> tps = parse_int_list(ctx.text("tp"), "--tp");
  for (int tp : tps) check_tp(ctx, w, tp);
  const TpRow base = evaluate(w, roof, link, batch, tokens, 1, act, overhead);
  Table t;
  t.name = "tp";
  t.title = fmt::format("decode step at batch {}, {} of context, by tensor-parallel degree", batch, ctx.quote(tokens));
  t.columns = {{"tp", dims::none, ""},
               {"weights_per_device", dims::information, ""},
               {"bytes_per_step", dims::information, ""},
               {"memory_time", dims::time, ""},
               {"compute_time", dims::time, ""},
               {"allreduces", dims::none, ""},
               {"allreduce_bytes", dims::information, ""},
               {"communication_time", dims::time, ""},
               {"step_time", dims::time, ""},
               {"tokens_per_second_per_stream", dims::token_rate, ""},
               {"speedup", dims::none, ""},
               {"efficiency", dims::none, "%"}};
  TpRow last = base;
  for (int tp : tps) {
    last = evaluate(w, roof, link, batch, tokens, tp, act, overhead);
    const double speedup = (base.time.total / last.time.total).value();
    t.rows.push_back({Quantity::number(tp), to_quantity(w.weights_resident / static_cast<double>(tp)),
                      to_quantity(last.detail.cost().bytes), to_quantity(last.time.memory), to_quantity(last.time.compute),
                      Quantity::number(last.comm.allreduces), to_quantity(last.comm.allreduces > 0 ? last.comm.message : Bytes{}), to_quantity(last.comm.total),
                      to_quantity(last.time.total), to_quantity(from_base<Tokens>(1.0) / last.time.total), Quantity::number(speedup),
                      Quantity::number(speedup / tp)});
  }
  const double speedup = (base.time.total / last.time.total).value();
  ctx.set("weights_per_device", w.weights_resident / static_cast<double>(last.tp));
  ctx.set("weights_read", last.detail.weights);
  ctx.set("kv_read", last.detail.kv_read);
  ctx.set("bytes_per_step", last.detail.cost().bytes);
  ctx.set_number("allreduces_per_step", 2.0 * w.arch->layers);
  ctx.set("allreduce_bytes", from_base<Bytes>(batch * w.arch->hidden_size * act.value()));
  if (link) {
    ctx.set("allreduce_time", last.comm.each);
    ctx.set("communication_time", last.comm.total);
  }
  ctx.set("memory_time", last.time.memory);
  if (roof.peak) ctx.set("compute_time", last.time.compute);
  ctx.set("step_time", last.time.total);
  ctx.set("tokens_per_second_per_stream", from_base<Tokens>(1.0) / last.time.total);
  ctx.set("tokens_per_second", from_base<Tokens>(batch) / last.time.total);
  ctx.set_number("speedup", speedup);
  ctx.set_number("efficiency", speedup / last.tp);
  ctx.add_table(std::move(t));
  ctx.note(fmt::format("each decode step does 2 all-reduces per layer ({} for {} layers) whatever the batch; only their size, "
                       "batch x hidden x activation bytes, grows with it",
                       2 * w.arch->layers, w.arch->layers));
  ctx.note("ring all-reduce: 2(p-1) x latency + 2(p-1)/p x bytes / link bandwidth, not overlapped with compute");
  ctx.note("scalar outputs are for the last --tp value; speed-up is against one device holding everything");
  ceiling_notes(ctx, w, roof, tokens, last.tp, link.has_value());
}

}  // namespace

Calculator tp_calculator() {
  Calculator c;
  c.name = "tp";
  c.summary = "tensor-parallel decode: bytes per device, all-reduces per token, and how the speed-up flattens";
  c.description =
      "Each of TP devices reads weights / TP and its share of the KV heads per step and does 1/TP of the arithmetic; every "
      "layer adds two all-reduces (after the attention output and the MLP down projection) of batch x hidden x activation "
      "bytes, each costing 2(p-1) latencies plus 2(p-1)/p x bytes / link bandwidth. The count, 2 x layers per step, is the "
      "same at batch 1 and 256. step time = max(memory, compute) + all-reduces. --tp 1..8 (doubling) or 1,2,4,8 prints a "
      "table.";
  c.refs = model_gpu_refs();
  c.refs.push_back({"link", {"interconnect"}, "scale-up link from the catalog (sets --link-bandwidth)"});
  std::vector<Input> own = step_inputs();
  for (auto& in : own)
    if (in.name == "tp") {
      in.kind = InputKind::text;
      in.help = "tensor-parallel degrees: 8, 1..8 (doubling) or 1,2,4,8";
      in.default_value = "1..8";
      in.example = "1..8";
    }
  c.inputs = join(join(join(model_inputs(), device_inputs(true)), own), link_inputs());
  c.outputs = {
      {"weights_per_device", dims::information, "weights each device stores"},
      {"weights_read", dims::information, "weight bytes each device reads per step"},
      {"kv_read", dims::information, "KV-cache bytes each device reads per step"},
      {"bytes_per_step", dims::information, "bytes each device moves per step"},
      {"allreduces_per_step", dims::none, "all-reduces per decode step: 2 per layer, independent of batch"},
      {"allreduce_bytes", dims::information, "bytes each all-reduce reduces: batch x hidden x activation bytes"},
      {"allreduce_time", dims::time, "time of one all-reduce"},
      {"communication_time", dims::time, "all-reduce time per step"},
      {"memory_time", dims::time, "bytes / bandwidth per device"},
      {"compute_time", dims::time, "operations / peak per device"},
      {"step_time", dims::time, "time per decode step"},
      {"tokens_per_second_per_stream", dims::token_rate, "tokens per second one sequence sees"},
      {"tokens_per_second", dims::token_rate, "tokens per second of the whole batch"},
      {"speedup", dims::none, "step time on one device / step time on TP devices"},
      {"efficiency", dims::none, "speed-up / TP", "%"},
  };
  c.run = calculate_tp;
  c.source = __FILE__;
  c.tables = {
      {"tp", "the decode step by tensor-parallel degree"},
  };
  return c;
}

}  // namespace infracalc::decode
