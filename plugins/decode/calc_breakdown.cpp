// `decode breakdown`: a decode step or a prefill split by operator (embedding, attention projections,
// attention, MLP or experts, router, norms, output head, all-reduces): operations, bytes, intensity, time
// and what binds each, as LLM-Viewer and GenZ show it, summing to what `decode ceiling` and `decode prefill`
// give for the whole step.
#include <algorithm>
#include <fmt/format.h>

#include "host/context.hpp"
#include "plugins/decode/decode_breakdown.hpp"
#include "plugins/decode/decode_calculators.hpp"
#include "plugins/decode/decode_inputs.hpp"
#include "plugins/decode/decode_step_common.hpp"
#include "units/bridge.hpp"
#include "units/format.hpp"

namespace infracalc::decode {

namespace {

// Time of one operator at its own roofline, and what binds it.
struct OpTime {
  Seconds time;
  const char* bound;
};

OpTime op_time(const OperatorCost& op, const Roof& roof) {
  const Seconds memory = op.bytes / roof.bandwidth;
  const Seconds compute = roof.peak ? op.flops / *roof.peak : Seconds{};
  if (op.flops.value() == 0 && op.bytes.value() == 0) return {Seconds{}, "-"};
  return compute > memory ? OpTime{compute, "compute"} : OpTime{memory, "memory"};
}

void run_breakdown(Context& ctx) {
  const Workload w = *resolve_workload(ctx, true);
  if (!w.arch)
    throw UserError{{"a breakdown by operator needs the model's architecture", "give --model ID, or --layers, --heads, --kv-heads and --head-dim"}};
  const Roof roof = resolve_roof(ctx, false);
  const double batch = batch_of(ctx);
  const Tokens tokens = ctx.get<Tokens>("tokens");
  const bool prefill = ctx.text("phase") == "prefill";
  if (prefill && tokens.value() < 1) throw UserError{{"--tokens: a prefill needs a prompt of at least one token", "e.g. --tokens 8k"}};
  const int tp = tp_degree(ctx, w);
  const std::vector<OperatorCost> ops = step_operators(w, batch, tokens, tp, prefill);
  const TpComm comm = tp_comm_time(ctx, w, prefill ? batch * tokens.value() : batch, tp);

  Flops flops{};
  Bytes bytes{};
  Seconds serial{};
  Table t{"operators", prefill ? "one prefill by operator, one device" : "one decode step by operator, one device",
          {{"operator", {}, {}}, {"layers", dims::none, {}}, {"flops", dims::flop, {}}, {"bytes", dims::information, {}},
           {"intensity", dims::intensity, {}}, {"time", dims::time, {}}, {"bound", {}, {}}, {"share", dims::none, "%"}},
          {}};
  std::vector<OpTime> times;
  for (const auto& op : ops) {
    flops += op.flops;
    bytes += op.bytes;
    times.push_back(op_time(op, roof));
    serial += times.back().time;
  }
  serial += comm.ceiling;
  const std::size_t heaviest = static_cast<std::size_t>(
      std::max_element(times.begin(), times.end(), [](const OpTime& a, const OpTime& b) { return a.time < b.time; }) - times.begin());
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const OperatorCost& op = ops[i];
    const Cell intensity = op.bytes.value() > 0 ? Cell{to_quantity(op.flops / op.bytes)} : Cell{std::string("-")};
    t.rows.push_back({op.name, Quantity::number(op.layers), to_quantity(op.flops), to_quantity(op.bytes), intensity,
                      to_quantity(times[i].time), std::string(times[i].bound),
                      Quantity::number(serial.value() > 0 ? (times[i].time / serial).value() : 0.0)});
  }
  if (comm.ceiling.value() > 0)
    t.rows.push_back({std::string("all-reduce (2 per layer, link)"), Quantity::number(w.arch->layers), to_quantity(Flops{}), std::string("-"),
                      std::string("-"), to_quantity(comm.ceiling), std::string("link"), Quantity::number((comm.ceiling / serial).value())});
  ctx.add_table(std::move(t));

  const StepTime whole = step_time({flops, bytes}, roof, comm.ceiling, Seconds{});
  ctx.set("flops_per_step", flops);
  ctx.set("bytes_per_step", bytes);
  ctx.set("intensity", flops / bytes);
  ctx.set("step_time", whole.total);
  ctx.set("operator_sum_time", serial);
  if (comm.ceiling.value() > 0) ctx.set("communication_time", comm.ceiling);
  ctx.note(fmt::format("largest operator: {} ({} of the operator sum)", ops[heaviest].name,
                       ctx.quote_percent((times[heaviest].time / serial).value())));
  ctx.note(fmt::format("step_time overlaps the whole step's memory and compute, as `decode {}` does; operator_sum_time runs the "
                       "operators one after another, each at its own roofline (a kernel is bound by its own bytes or arithmetic), "
                       "which is the more pessimistic of the two",
                       prefill ? "prefill" : "ceiling"));
  if (!roof.peak) ctx.note("no peak: every operator is timed by its bytes alone (give --gpu ID or --peak)");
  ctx.note("norms and activations' own traffic are not counted, as in the whole-step figures; norms appear for their weight bytes");
}

}  // namespace

Calculator breakdown_calculator() {
  Calculator c;
  c.name = "breakdown";
  c.summary = "one decode step or prefill by operator: QKV/O projections, attention, MLP or experts, router, head, all-reduce";
  c.description =
      "Splits one step on one device by operator: attention projections (2 x their parameters x tokens operations, their "
      "weight bytes), attention (scores and values against the KV cache: decode reads it, prefill writes it), MLP or the "
      "experts the batch touches, the MoE router, norms, the output head and the embedding lookup; tensor-parallel "
      "all-reduces when a link is known. Each operator's time is max(bytes / bandwidth, operations / peak). The sums equal "
      "`decode ceiling` (--phase decode) and `decode prefill` (--phase prefill).";
  c.refs = model_gpu_refs();
  c.refs.push_back({"link", {"interconnect"}, "scale-up link from the catalog (sets --link-bandwidth)"});
  c.inputs = join(join(join(model_inputs(), device_inputs(true)), step_inputs()), link_inputs());
  c.inputs.push_back({.name = "phase", .kind = InputKind::choice,
                      .help = "decode (one new token per sequence at --tokens cached) or prefill (prompts of --tokens)",
                      .default_value = "decode", .choices = {"decode", "prefill"}});
  c.outputs = {
      {"flops_per_step", dims::flop, "operations one device does per step (sum of the operators)"},
      {"bytes_per_step", dims::information, "bytes one device moves per step (sum of the operators)"},
      {"intensity", dims::intensity, "operations per byte of the step"},
      {"step_time", dims::time, "max(bytes / bandwidth, operations / peak) of the whole step, plus all-reduces"},
      {"operator_sum_time", dims::time, "the operators one after another, each at its own roofline, plus all-reduces"},
      {"communication_time", dims::time, "tensor-parallel all-reduces at the link's rate"},
  };
  c.run = run_breakdown;
  c.source = __FILE__;
  c.tables = {
      {"operators", "one decode step or prefill by operator, one device"},
  };
  return c;
}

}  // namespace infracalc::decode
