#include "validation/predict.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fmt/format.h>

#include "catalog/catalog.hpp"
#include "host/context.hpp"
#include "plugins/registry.hpp"
#include "units/parse.hpp"

namespace infracalc::validation {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}


// Letters and digits only, lower case: "Llama-3.1 70B" and "llama-3.1-70b" both become "llama3170b".
std::string squash(std::string_view s) {
  std::string out;
  for (char c : s)
    if (std::isalnum(static_cast<unsigned char>(c))) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The catalog model an entry names: `model_id` when given, else the longest catalog id whose letters and
// digits begin the name's.
std::string model_of(const Measurement& m) {
  if (!m.model_id.empty()) return m.model_id;
  const std::string name = squash(m.model);
  std::string best;
  for (const auto& item : Catalog::instance().index()) {
    if (item.kind != "model") continue;
    const std::string id = squash(item.id);
    if (name.rfind(id, 0) == 0 && id.size() > squash(best).size()) best = item.id;
  }
  return best;
}

// Storage formats from the entry, or from how the source words its precision.
std::string weights_of(const Measurement& m) {
  if (!m.weights.empty()) return m.weights;
  const std::string p = lower(m.precision);
  if (p.find("fp4") != std::string::npos) return "nvfp4";
  if (p.find("fp8") != std::string::npos) return "fp8";
  if (p.find("bf16") != std::string::npos) return "bf16";
  return "fp16";
}

std::string kv_of(const Measurement& m, const std::string& weights) {
  if (!m.kv.empty()) return m.kv;
  return weights == "fp8" || weights == "nvfp4" ? "fp8" : "fp16";
}

std::string engine_of(const Measurement& m) {
  if (!m.engine.empty()) return m.engine;
  const std::string s = lower(m.software);
  if (s.find("tensorrt") != std::string::npos || s.find("trt") != std::string::npos) return "trtllm";
  if (s.find("sglang") != std::string::npos) return "sglang";
  if (s.find("vllm") != std::string::npos) return "vllm";
  if (s.find("llama.cpp") != std::string::npos) return "llamacpp";
  return "generic";
}

// A result value in base units when it parses as a quantity of dimension `want` ("762 tok/s (output)" →
// 762; "42%" → 0.42); nullopt otherwise.
std::optional<double> value_of(const Measurement& m, std::string_view key, Dim want) {
  const Node* n = m.result_value(key);
  if (n == nullptr) return std::nullopt;
  if (n->is_number()) return want == dims::none ? std::optional<double>(n->number) : std::nullopt;
  if (n->kind != Node::Kind::string) return std::nullopt;
  std::string text = n->str;
  if (const auto paren = text.find('('); paren != std::string::npos) text.resize(paren);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  const auto q = parse_quantity(text);
  if (!q || q->dim != want || !std::isfinite(q->value) || q->value <= 0) return std::nullopt;
  return q->value;
}

std::string num(std::int64_t v) { return std::to_string(v); }

Plan skip(std::string why) {
  Plan p;
  p.skipped = std::move(why);
  return p;
}

// Model, accelerator and formats every inference run takes.
std::optional<std::string> common_inputs(const Measurement& m, RawInputs& in) {
  const std::string model = model_of(m);
  if (model.empty()) return "model \"" + m.model + "\" is not in the catalog (give model_id, or add the model)";
  const Entry* me = Catalog::instance().find(model);
  if (me == nullptr || me->kind() != "model") return "model_id \"" + model + "\" is not a catalog model";
  const Entry* ge = m.accelerator.empty() ? nullptr : Catalog::instance().find(m.accelerator);
  if (ge == nullptr || ge->kind() != "accelerator")
    return "accelerator \"" + m.accelerator + "\" is not in the catalog";
  const std::string w = weights_of(m);
  in = {{"model", model}, {"gpu", m.accelerator}, {"dtype", w}, {"kv_dtype", kv_of(m, w)}};
  return std::nullopt;
}

Plan inference_throughput(const Measurement& m) {
  Plan p;
  std::optional<double> v;
  for (const char* key : {"tokens_per_second", "offline_tokens_per_second", "output_token_throughput"})
    if ((v = value_of(m, key, dims::token_rate))) break;
  if (!v) return skip("no output tokens per second of the whole system in [result]");
  const std::string scenario = lower(m.config_string("scenario").value_or(""));
  if (scenario.find("server") != std::string::npos || scenario.find("interactive") != std::string::npos)
    return skip("a server scenario (Poisson arrivals under p99 latency limits): expected figures price the saturated rate");
  const auto in = m.config_int("input_len");
  const auto out = m.config_int("output_len");
  if (!in || !out || *in < 1 || *out < 1) return skip("configuration does not state input_len and output_len");
  if (m.config_int("pp").value_or(1) > 1) return skip("pipeline-parallel serving is not modelled by serve capacity");
  if (m.config_int("ep").value_or(1) > 1) return skip("expert-parallel serving is not modelled by serve capacity");
  const std::int64_t tp = m.config_int("tp").value_or(1);
  if (m.count < 1) return skip("accelerator count not stated");
  if (m.count % tp != 0) return skip(fmt::format("{} accelerators are not whole replicas of tp {}", m.count, tp));
  CalculatorRun r{"serve", "capacity", {}, "expected_pod_tokens_per_second", "pod_tokens_per_second", 1};
  if (auto why = common_inputs(m, r.inputs)) return skip(*why);
  r.inputs.insert(r.inputs.end(), {{"tp", num(tp)}, {"gpus", num(m.count)}, {"prompt_tokens", num(*in)},
                                   {"tokens_per_answer", num(*out)}, {"engine", engine_of(m)}, {"ceiling", "steady-state"}});
  if (auto b = m.config_int("batch_size")) r.inputs.emplace_back("max_batch", num(*b));
  // An offered load below capacity: the system outputs what arrives (Little's law), not what it could.
  if (const Node* q = m.config.find("offered_qps"); q != nullptr && q->is_number() && q->number > 0)
    p.cap = q->number * static_cast<double>(*out);
  p.measured = *v;
  p.metric = "output tok/s (system)";
  p.unit = "tok/s";
  p.runs.push_back(std::move(r));
  return p;
}

Plan inference_latency(const Measurement& m) {
  Plan p;
  RawInputs base;
  if (auto why = common_inputs(m, base)) return skip(*why);
  const std::int64_t tp = m.config_int("tp").value_or(1);
  if (m.count > 1 && !m.config_int("tp")) return skip(fmt::format("{} devices without a stated tensor-parallel degree", m.count));
  base.emplace_back("tp", num(tp));
  base.emplace_back("engine", engine_of(m));
  if (auto v = value_of(m, "decode_tokens_per_second", dims::token_rate)) {
    const std::int64_t context = m.config_int("pp_tokens").value_or(0) / 2 + m.config_int("tg_tokens").value_or(0) / 2 +
                                 m.config_int("input_len").value_or(0);
    CalculatorRun r{"decode", "ceiling", base, "expected_tokens_per_second_per_stream", "tokens_per_second_per_stream", 1};
    r.inputs.insert(r.inputs.end(), {{"batch", "1"}, {"tokens", num(context)}});
    p.measured = *v;
    p.metric = "decode tok/s (one stream)";
    p.unit = "tok/s";
    p.runs.push_back(std::move(r));
    return p;
  }
  if (auto v = value_of(m, "prompt_tokens_per_second", dims::token_rate)) {
    const auto prompt = m.config_int("pp_tokens") ? m.config_int("pp_tokens") : m.config_int("input_len");
    if (!prompt) return skip("configuration does not state the prompt length (pp_tokens or input_len)");
    CalculatorRun r{"decode", "prefill", base, "expected_prefill_tokens_per_second", "prefill_tokens_per_second", 1};
    r.inputs.insert(r.inputs.end(), {{"batch", "1"}, {"tokens", num(*prompt)}});
    p.measured = *v;
    p.metric = "prompt tok/s";
    p.unit = "tok/s";
    p.runs.push_back(std::move(r));
    return p;
  }
  if (auto v = value_of(m, "end_to_end_latency", dims::time)) {
    const auto in = m.config_int("input_len");
    const auto out = m.config_int("output_len");
    const auto batch = m.config_int("batch_size");
    if (!in || !out || !batch) return skip("configuration does not state input_len, output_len and batch_size");
    CalculatorRun pre{"decode", "prefill", base, "expected_prefill_time", "prefill_time", 1};
    pre.inputs.insert(pre.inputs.end(), {{"batch", num(*batch)}, {"tokens", num(*in)}});
    CalculatorRun dec{"decode", "ceiling", base, "expected_step_time", "step_time", static_cast<double>(std::max<std::int64_t>(0, *out - 1))};
    dec.inputs.insert(dec.inputs.end(), {{"batch", num(*batch)}, {"tokens", num(*in + *out / 2)}});
    p.measured = *v;
    p.metric = "end-to-end latency";
    p.unit = "s";
    p.runs = {std::move(pre), std::move(dec)};
    return p;
  }
  return skip("no single-stream decode rate, prompt rate or end-to-end latency in [result] (TTFT and TPOT under load need arrivals)");
}

Plan training(const Measurement& m) {
  Plan p;
  const std::string model = model_of(m);
  if (model.empty()) return skip("model \"" + m.model + "\" is not in the catalog (give model_id, or add the model)");
  const Entry* ge = m.accelerator.empty() ? nullptr : Catalog::instance().find(m.accelerator);
  if (ge == nullptr || ge->kind() != "accelerator") return skip("accelerator \"" + m.accelerator + "\" is not in the catalog");
  if (m.count < 1) return skip("accelerator count not stated");
  const auto seq = m.config_int("seq_len");
  auto batch = m.config_int("global_batch_seqs");
  if (!batch) batch = m.config_int("global_batch_size");
  if (!seq || !batch) return skip("configuration does not state seq_len and the global batch in sequences");
  const std::string precision = weights_of(m) == "fp8" ? "fp8" : "bf16";
  CalculatorRun r{"cluster", "layout", {}, "expected_mfu", "estimated_mfu", 1};
  r.inputs = {{"model", model}, {"gpu", m.accelerator}, {"gpus", num(m.count)}, {"seq", num(*seq)},
              {"batch_sequences", num(*batch)}, {"precision", precision}, {"zero", num(m.config_int("zero").value_or(1))},
              {"matmul_efficiency", "1"}};
  for (const char* k : {"tp", "pp", "cp", "dp", "micro_batch"})
    if (auto v = m.config_int(k)) r.inputs.emplace_back(k, num(*v));
  // Megatron-LM's tables give the model-parallel size only: tensor parallelism fills a node of 8 first, then
  // pipeline stages (Narayanan et al. 2021, section 3.3 and Table 1).
  if (auto mps = m.config_int("model_parallel_size"); mps && !m.config_int("tp")) {
    const std::int64_t tp = std::min<std::int64_t>(8, *mps);
    if (*mps % tp != 0) return skip(fmt::format("model_parallel_size {} is not tp x pp with tp up to 8", *mps));
    r.inputs.emplace_back("tp", num(tp));
    r.inputs.emplace_back("pp", num(*mps / tp));
  }
  if (auto rc = m.config_string("recompute")) r.inputs.emplace_back("recompute", *rc);
  if (auto v = value_of(m, "mfu", dims::none)) {
    p.measured = *v;
    p.metric = "MFU";
    p.unit = "%";
  } else if (auto h = value_of(m, "hfu", dims::none)) {
    p.measured = *h;
    p.metric = "HFU (recomputation counted)";
    p.unit = "%";
    r.factor_key = "recompute_factor";
  } else if (auto t = value_of(m, "tflops_per_gpu", dims::flop_rate)) {
    const auto peak = ge->field("peak." + precision + "_dense");
    const auto q = peak && peak->value->kind == Node::Kind::string ? parse_quantity(peak->value->str) : Expected<Quantity>(Error{"no peak", ""});
    if (!q) return skip(m.accelerator + " has no peak." + precision + "_dense");
    p.measured = *t;
    p.metric = "model TFLOP/s per GPU";
    p.unit = "TFLOP/s";
    r.scale = q->value;
  } else if (auto st = value_of(m, "step_time", dims::time)) {
    p.measured = *st;
    p.metric = "step time";
    p.unit = "s";
    r.expected_key = "expected_step_time";
    r.ceiling_key = "step_time";
  } else {
    return skip("no MFU, TFLOP/s per GPU or step time in [result]");
  }
  p.runs.push_back(std::move(r));
  return p;
}

double output_of(const Result& res, const std::string& key, bool& ok) {
  const Value* v = res.find(key);
  if (v == nullptr) {
    ok = false;
    return 0;
  }
  return v->q.value;
}

}  // namespace

const char* family_name(Family f) {
  switch (f) {
    case Family::inference: return "inference";
    case Family::training: return "training";
    case Family::power: return "power";
  }
  return "?";
}

Family family_of(const std::string& kind) {
  if (kind.rfind("training", 0) == 0) return Family::training;
  if (kind == "power") return Family::power;
  return Family::inference;
}

Plan plan_for(const Measurement& m) {
  if (m.kind == "inference-throughput") return inference_throughput(m);
  if (m.kind == "inference-latency") {
    Plan p = inference_latency(m);
    // Some latency entries carry a system throughput figure only.
    if (!p.skipped.empty() && value_of(m, "tokens_per_second", dims::token_rate)) {
      Plan t = inference_throughput(m);
      if (t.skipped.empty()) return t;
    }
    return p;
  }
  if (m.kind == "training-mfu" || m.kind == "training-step") return training(m);
  if (m.kind == "training-duration")
    return skip("time to train depends on the tokens processed until the quality target, which the entry does not state");
  if (m.kind == "power") return skip("power under load is not predicted by the calibrated model (see `power` calculators)");
  return skip("kind \"" + m.kind + "\" is not predicted");
}

std::string command_text(const CalculatorRun& r) {
  std::string s = "infracalc " + r.plugin + " " + r.calculator;
  for (const auto& [k, v] : r.inputs) {
    std::string flag = k;
    std::replace(flag.begin(), flag.end(), '_', '-');
    s += " --" + flag + (v.empty() ? "" : " " + v);
  }
  return s;
}

Prediction run_plan(const Measurement& m, const Plan& p, bool with_ceiling) {
  Prediction out;
  out.entry = &m;
  out.family = family_of(m.kind);
  out.metric = p.metric;
  out.unit = p.unit;
  out.measured = p.measured;
  out.skipped = p.skipped;
  if (!p.skipped.empty()) return out;
  out.command = command_text(p.runs.front());
  for (const auto& r : p.runs) {
    const Plugin* plugin = find_plugin(r.plugin);
    const Calculator* calc = plugin != nullptr ? plugin->find(r.calculator) : nullptr;
    if (calc == nullptr) {
      out.skipped = "no calculator " + r.plugin + " " + r.calculator;
      return out;
    }
    Result res;
    try {
      res = run_calculator(*plugin, *calc, r.inputs);
    } catch (const UserError& e) {
      out.skipped = "the calculator refused the configuration: " + e.error.message;
      return out;
    }
    bool ok = true;
    const double x = output_of(res, r.expected_key, ok);
    if (!ok) {
      std::string why = "the calculator gave no " + r.expected_key;
      for (const auto& v : res.verdicts)
        if (!v.ok) why += " (" + v.text + ")";
      out.skipped = why;
      return out;
    }
    const double factor = r.factor_key.empty() ? 1.0 : output_of(res, r.factor_key, ok);
    out.expected += r.scale * factor * x;
    if (with_ceiling) out.ceiling += r.scale * factor * output_of(res, r.ceiling_key, ok);
  }
  if (p.cap > 0) {
    out.expected = std::min(out.expected, p.cap);
    out.ceiling = std::min(out.ceiling, p.cap);
  }
  out.error = out.expected / out.measured - 1.0;
  return out;
}

std::vector<Prediction> predict_all(const std::vector<Measurement>& entries) {
  std::vector<Prediction> out;
  out.reserve(entries.size());
  for (const auto& m : entries) out.push_back(run_plan(m, plan_for(m)));
  return out;
}

Summary summarize(const std::vector<Prediction>& rows, std::optional<Family> family) {
  std::vector<double> errs;
  double sum = 0;
  for (const auto& r : rows) {
    if (!r.skipped.empty() || (family && r.family != *family)) continue;
    errs.push_back(std::fabs(r.error));
    sum += r.error;
  }
  Summary s;
  s.points = static_cast<int>(errs.size());
  if (errs.empty()) return s;
  std::sort(errs.begin(), errs.end());
  const std::size_t n = errs.size();
  s.median_abs_error = n % 2 ? errs[n / 2] : 0.5 * (errs[n / 2 - 1] + errs[n / 2]);
  s.p90_abs_error = errs[std::min(n - 1, static_cast<std::size_t>(std::ceil(0.9 * static_cast<double>(n))) - 1)];
  s.mean_error = sum / static_cast<double>(n);
  return s;
}

}  // namespace infracalc::validation
