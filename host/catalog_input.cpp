#include "host/catalog_input.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "units/format.hpp"

namespace infracalc {

void record_input(Context& ctx, std::string_view key, Cell value, Origin origin, std::string raw, std::string from, std::string field) {
  auto& inputs = ctx.result().inputs;
  std::erase_if(inputs, [&](const ResolvedInput& r) { return r.key == key; });
  ResolvedInput ri;
  ri.key = std::string(key);
  ri.origin = origin;
  ri.value = std::move(value);
  ri.raw = std::move(raw);
  ri.from = std::move(from);
  ri.field = std::move(field);
  inputs.push_back(std::move(ri));
}

std::optional<double> idle_share_of(Context& ctx, const Entry& e) {
  if (e.field_ref("idle_power") == nullptr) return std::nullopt;
  const std::string_view full_field = e.kind() == "system" ? "power" : "tdp";
  if (e.field_ref(full_field) == nullptr) return std::nullopt;
  const auto idle = ctx.catalog<Watts>(e, "idle_power");
  const auto full = ctx.catalog<Watts>(e, full_field);
  if (!idle || !full || full->value() <= 0) return std::nullopt;
  if (*idle > *full)
    throw UserError{{fmt::format("{}: idle_power {} exceeds its full power {}", e.id(), format_human(to_quantity(*idle)),
                                 format_human(to_quantity(*full))),
                     "fix the data file"}};
  return idle->value() / full->value();
}

namespace {

void record_text(Context& ctx, std::string_view key, const std::string& text, Origin origin, std::string from, std::string field) {
  record_input(ctx, key, Cell{text}, origin, text, std::move(from), std::move(field));
}

}  // namespace

CatalogRef system_ref(std::string_view help, std::vector<std::pair<std::string_view, std::string_view>> more) {
  CatalogRef r{"system", {"system"}, help};
  r.implies = {{"gpu", "accelerator"}};
  r.implies.insert(r.implies.end(), more.begin(), more.end());
  return r;
}

void fill_weight_format(Context& ctx, std::string_view key, std::string_view expert_key) {
  if (ctx.has(key)) return;
  const Entry* model = ctx.ref("model");
  std::optional<std::string> native, native_experts;
  if (model != nullptr) {
    native = ctx.catalog_text(*model, "native_format");
    if (native) native_experts = ctx.catalog_text(*model, "native_expert_format");
  }
  if (!native) {
    record_text(ctx, key, std::string(kDefaultWeightFormat), Origin::default_value, "", "");
    if (model != nullptr)
      ctx.note(fmt::format("weights in {} by default: {} gives no native checkpoint format (native_format); give {} to change it",
                           kDefaultWeightFormat, model->id(), Context::flag_name(key)));
    return;
  }
  record_text(ctx, key, *native, Origin::catalog, model->id(), "native_format");
  const bool experts = native_experts && !expert_key.empty() && !ctx.has(expert_key);
  if (experts) record_text(ctx, expert_key, *native_experts, Origin::catalog, model->id(), "native_expert_format");
  ctx.note(fmt::format("weights in {}{}: the native checkpoint format of {} (native_format{}), the default when --model is given; "
                       "give {} to change it",
                       *native, experts ? fmt::format(", routed experts in {}", *native_experts) : std::string(), model->id(),
                       experts ? ", native_expert_format" : "", Context::flag_name(key)));
}

std::optional<DeviceMemory> device_memory_of(Context& ctx, const Entry& e) {
  if (e.field_ref("memory_visible") != nullptr)
    if (auto b = ctx.catalog<Bytes>(e, "memory_visible")) return DeviceMemory{*b, true};
  if (auto b = ctx.catalog<Bytes>(e, "memory_capacity")) return DeviceMemory{*b, false};
  return std::nullopt;
}

void note_device_memory(Context& ctx, std::string_view key) {
  const ResolvedInput* ri = nullptr;
  for (const auto& in : ctx.result().inputs)
    if (in.key == key) ri = &in;
  if (ri == nullptr || ri->origin != Origin::catalog || ri->from.empty()) return;
  const Entry* e = Catalog::instance().find(ri->from);
  if (e == nullptr || e->kind() != "accelerator") return;
  const auto* q = std::get_if<Quantity>(&ri->value);
  if (q == nullptr) return;
  if (ri->field == "memory_visible") {
    const FieldRef* label = e->field_ref("memory_capacity");
    ctx.note(fmt::format("{}: {} per device, the capacity software sees on {} (memory_visible, {}){}", Context::flag_name(key),
                         ctx.quote(*q, "GB"), e->id(), ri->raw,
                         label != nullptr && label->value->kind == Node::Kind::string
                             ? fmt::format("; marketed as {}", label->value->str)
                             : std::string()));
  } else if (ri->field == "memory_capacity") {
    ctx.note(fmt::format("{}: {} per device, the marketed capacity of {} (memory_capacity): the catalog has no capacity visible "
                         "to software for it (an nvidia-smi or rocm-smi total), so the label stands in; give {} to override",
                         Context::flag_name(key), ctx.quote(*q, "GB"), e->id(), Context::flag_name(key)));
  }
}

std::string fill_idle_share(Context& ctx, std::string_view key, std::initializer_list<std::string_view> refs) {
  if (ctx.has(key)) return {};
  for (const std::string_view ref : refs) {
    const Entry* e = ctx.ref(ref);
    if (e == nullptr) continue;
    const Entry* from = e;
    std::optional<double> share = idle_share_of(ctx, *e);
    if (!share && e->kind() == "system") {
      if (auto acc = ctx.catalog_text(*e, "accelerator")) {
        if (const Entry* a = Catalog::instance().find(*acc)) {
          share = idle_share_of(ctx, *a);
          from = a;
        }
      }
    }
    if (!share) continue;
    record_input(ctx, key, Quantity::number(*share), Origin::catalog, format_machine(*share), from->id());
    ctx.note(fmt::format("idle floor {} of full power: {}'s idle_power against its {}{}", ctx.quote_percent(*share), from->id(),
                         from->kind() == "system" ? "power" : "tdp",
                         from != e ? fmt::format(" ({} has no idle draw of its own; its accelerator's share is applied to it)", e->id())
                                   : std::string()));
    return from->id();
  }
  return {};
}

bool fill_from_ref(Context& ctx, std::string_view key, std::string_view ref, std::string_view path,
                   const Expectation& want) {
  if (ctx.has(key)) return true;
  const Entry* e = ctx.ref(ref);
  if (e == nullptr) return false;
  std::optional<FieldRef> field = e->field(path);
  if (!field) return false;
  if (field->value->kind == Node::Kind::array) {
    const Date& as_of = ctx.options().as_of;
    field = e->dated(path, as_of);
    if (!field)
      throw UserError{{fmt::format("--{} {}: '{}' has no entry dated on or before {}", ref, e->id(), path,
                                   as_of.valid() ? as_of.str() : std::string("today")),
                       "pick a later --as-of, or give " + Context::flag_name(key) + " directly"}};
  }
  const Node& node = *field->value;
  const std::string label = field->location + ": " + e->id() + "." + std::string(path);
  auto q = node_quantity(node, want, label);
  if (!q) throw UserError{q.error()};
  if (!std::isfinite(q->value) || q->value < 0) throw UserError{{label + " must be zero or more", "fix the data file"}};
  record_input(ctx, key, q.value(), Origin::catalog, node.kind == Node::Kind::string ? node.str : format_machine(node.number),
               e->id());
  ctx.cite(field->provenance);
  return true;
}

}  // namespace infracalc
