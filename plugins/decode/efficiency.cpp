#include "plugins/decode/efficiency.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "catalog/catalog.hpp"
#include "units/bridge.hpp"
#include "units/expected.hpp"
#include "units/format.hpp"
#include "units/parse.hpp"

namespace infracalc::decode {

namespace {

constexpr std::array<const char*, kEngines.size()> kEngineNames = {"generic", "trtllm", "vllm", "sglang", "llamacpp", "megatron"};

const Efficiency* g_override = nullptr;

// The node itself, not Entry::field_ref: these 36 figures are read on every decode query, and a field reference builds
// its provenance strings, which nothing here cites. A field written as a table with `value` is read the same way.
const Node& read_node(const Entry& e, const std::string& path) {
  const Node* n = e.root().at_path(path);
  if (n != nullptr && n->is_table()) n = n->find("value");
  if (n == nullptr) throw UserError{{e.file() + ": missing '" + path + "'", "regenerate it with `infracalc calibrate --published`"}};
  return *n;
}

double read_number(const Entry& e, const std::string& path) {
  const Node& n = read_node(e, path);
  if (!n.is_number()) throw UserError{{position(e.file(), n) + ": '" + path + "' must be a plain number", ""}};
  return n.number;
}

template <class Q>
Q quantity_at(const Entry& e, const std::string& path) {
  const Node& n = read_node(e, path);
  if (n.kind != Node::Kind::string) throw UserError{{position(e.file(), n) + ": '" + path + "' must be a quantity string", ""}};
  return as<Q>(parse_quantity(n.str).value_or_throw(), e.id() + "." + path);
}

// The fitted values (efficiency.toml, rewritten by calibrate) and the priors (efficiency-prior.toml, by hand)
// are separate files: every expected figure reads the first, and only validate and calibrate read the second.
Efficiency read_efficiency(const std::string& id) {
  const Entry* e = Catalog::instance().find(id);
  if (e == nullptr || e->kind() != "calibration")
    throw UserError{{"no calibration entry '" + id + "' in the catalog", "data/calibration/" + id + ".toml ships with infracalc"}};
  auto number_at = [&](const Entry& en, const std::string& path) { return read_number(en, path); };
  auto field_node = [&](const Entry& en, const std::string& path) -> const Node& { return read_node(en, path); };
  auto bytes_at = [&](const std::string& path) { return quantity_at<Bytes>(*e, path); };
  auto seconds_at = [&](const std::string& path) { return quantity_at<Seconds>(*e, path); };
  Efficiency x;
  x.ideal = false;
  x.bandwidth_fraction = number_at(*e, "bandwidth_fraction");
  x.bandwidth_half = bytes_at("bandwidth_half");
  x.matmul_fraction_16 = number_at(*e, "matmul_fraction_16bit");
  x.matmul_fraction_8 = number_at(*e, "matmul_fraction_8bit");
  x.matmul_fraction_4 = number_at(*e, "matmul_fraction_4bit");
  x.matmul_half_tokens = number_at(*e, "matmul_half_tokens");
  x.attention_fraction = number_at(*e, "attention_fraction");
  x.collective_fraction = number_at(*e, "collective_fraction");
  x.collective_half = bytes_at("collective_half");
  x.collective_latency = seconds_at("collective_latency");
  x.sequence_overhead = seconds_at("sequence_overhead");
  x.training_comm_overlap = number_at(*e, "training_comm_overlap");
  for (Engine g : kEngines) {
    const std::string base = std::string("engines.") + engine_name(g) + ".";
    EngineEfficiency& ee = x.engines[static_cast<std::size_t>(g)];
    ee.bandwidth_scale = number_at(*e, base + "bandwidth_scale");
    ee.compute_scale = number_at(*e, base + "compute_scale");
    ee.step_overhead = seconds_at(base + "step_overhead");
    const Node& mb = field_node(*e, base + "max_batch");
    if (mb.kind != Node::Kind::integer || mb.integer < 1)
      throw UserError{{position(e->file(), mb) + ": " + base + "max_batch must be a whole number of at least 1", ""}};
    ee.max_batch = mb.integer;
  }
  return x;
}

Efficiency make_ideal() {
  Efficiency x;
  for (auto& ee : x.engines) ee.max_batch = 1 << 30;
  return x;
}

double hockney(double n, double half) { return half <= 0 ? 1.0 : n / (n + half); }

}  // namespace

const char* engine_name(Engine e) { return kEngineNames[static_cast<std::size_t>(e)]; }

std::optional<Engine> parse_engine(std::string_view s) {
  for (Engine e : kEngines)
    if (s == engine_name(e)) return e;
  if (s == "tensorrt-llm" || s == "trt-llm") return Engine::trtllm;
  if (s == "llama.cpp") return Engine::llamacpp;
  return std::nullopt;
}

const Efficiency& efficiency() {
  if (g_override != nullptr) return *g_override;
  static const Efficiency shipped = read_efficiency("efficiency");
  return shipped;
}

const Efficiency& prior_efficiency() {
  static const Efficiency prior = read_efficiency("efficiency-prior");
  return prior;
}

const Efficiency& ideal_efficiency() {
  static const Efficiency ideal = make_ideal();
  return ideal;
}

ErrorBand error_band(std::string_view kind) {
  const Entry* e = Catalog::instance().find("efficiency");
  ErrorBand b;
  if (e == nullptr) return b;
  const std::string base = "band." + std::string(kind) + ".";
  if (const FieldRef* f = e->field_ref(base + "median_abs_error"); f != nullptr && f->value->is_number()) b.median = f->value->number;
  if (const FieldRef* f = e->field_ref(base + "p90_abs_error"); f != nullptr && f->value->is_number()) b.p90 = f->value->number;
  if (const FieldRef* f = e->field_ref(base + "loo_median_abs_error"); f != nullptr && f->value->is_number())
    b.loo_median = f->value->number;
  if (const FieldRef* f = e->field_ref(base + "points"); f != nullptr && f->value->kind == Node::Kind::integer)
    b.points = static_cast<int>(f->value->integer);
  return b;
}

std::string band_text(std::string_view kind) {
  const ErrorBand b = error_band(kind);
  if (b.points == 0) return "not yet checked against published measurements";
  // A band of fitted errors is quoted to two digits whatever --digits says: more would claim a precision it lacks.
  return fmt::format("within ±{}% on 90% of {} published {} points (median {}%; `infracalc validate --kind {}`)",
                     format_number(100 * b.p90, 2), b.points, kind, format_number(100 * b.median, 2), kind);
}

ScopedEfficiency::ScopedEfficiency(const Efficiency& e) : previous_(g_override) { g_override = &e; }
ScopedEfficiency::~ScopedEfficiency() { g_override = previous_; }

double bandwidth_share(const Efficiency& e, Engine engine, Bytes bytes) {
  if (e.ideal) return 1.0;
  return std::min(1.0, e.bandwidth_fraction * e.engine(engine).bandwidth_scale) * hockney(bytes.value(), e.bandwidth_half.value());
}

double matmul_share(const Efficiency& e, Engine engine, double tokens, int bits) {
  if (e.ideal) return 1.0;
  const double top = bits <= 4 ? e.matmul_fraction_4 : bits <= 8 ? e.matmul_fraction_8 : e.matmul_fraction_16;
  return std::min(1.0, top * e.engine(engine).compute_scale) * hockney(tokens, e.matmul_half_tokens);
}

Seconds collective_time(const Efficiency& e, Bytes message, Bytes per_rank, std::int64_t steps, BytesPerSecond bandwidth) {
  if (steps <= 0) return Seconds{};
  const double share = e.ideal ? 1.0 : std::min(1.0, e.collective_fraction) * hockney(message.value(), e.collective_half.value());
  return e.collective_latency * static_cast<double>(steps) + per_rank / (bandwidth * share);
}

Seconds step_overhead(const Efficiency& e, Engine engine, double sequences) {
  if (e.ideal) return Seconds{};
  return e.engine(engine).step_overhead + e.sequence_overhead * sequences;
}

StepTime calibrated_step_time(const Efficiency& e, Engine engine, const StepCost& cost, const StepShape& shape,
                              const Roof& roof, Seconds communication) {
  StepTime t;
  t.memory = cost.bytes / (roof.bandwidth * bandwidth_share(e, engine, cost.bytes));
  if (roof.peak) {
    const Flops matmul = cost.flops - shape.attention;
    const double attn_share = e.ideal ? 1.0 : std::min(1.0, e.attention_fraction * e.engine(engine).compute_scale);
    Seconds gemm = matmul / (*roof.peak * matmul_share(e, engine, shape.tokens, shape.bits));
    // A tensor-core GEMM pads a few rows to a whole tile (the tokens / (tokens + half) share); engines run such a
    // step as a GEMV on the vector units instead (llama.cpp's mmvq, TensorRT-LLM's and vLLM's small-batch GEMV
    // kernels), whose arithmetic is that of the rows it has. Which one is faster decides, weak-tensor parts
    // (GeForce, T4, L4) included.
    if (!e.ideal && roof.vector_peak)
      gemm = std::min(gemm, matmul / (*roof.vector_peak * std::min(1.0, e.matmul_fraction_16 * e.engine(engine).compute_scale)));
    t.compute = gemm + shape.attention / (*roof.peak * attn_share);
  }
  t.communication = communication;
  t.overhead = step_overhead(e, engine, shape.sequences);
  t.memory_bound = t.memory >= t.compute;
  t.total = (t.memory_bound ? t.memory : t.compute) + t.communication + t.overhead;
  return t;
}

int precision_bits(std::string_view p) {
  if (p.find("fp4") != std::string_view::npos || p.find("int4") != std::string_view::npos) return 4;
  if (p.find("fp8") != std::string_view::npos || p.find("int8") != std::string_view::npos ||
      p.find("fp6") != std::string_view::npos)
    return 8;
  return 16;
}

}  // namespace infracalc::decode
