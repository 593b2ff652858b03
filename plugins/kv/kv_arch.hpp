// The model description every kv calculator shares: attention layout from --model and/or flags, the
// storage of cached elements, and the parallel split. Flags always override the model file.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "catalog/model_arch.hpp"
#include "host/context.hpp"
#include "plugins/kv/kv_layout.hpp"
#include "host/plugin.hpp"

namespace infracalc::kv {

/// Inputs describing the attention layout: layers, heads, KV heads, head dim, --attention, MLA dims,
/// sliding window and layer pattern, cross-layer sharing. All optional in the descriptor; resolve_arch
/// says what is missing.
[[nodiscard]] std::vector<Input> arch_inputs();

/// Inputs describing how elements are stored: --dtype, --kv-scales, --kv-group-size, --scale-dtype,
/// --zero-point.
[[nodiscard]] std::vector<Input> precision_inputs();

/// Inputs describing the parallel split: --tp, --pp.
[[nodiscard]] std::vector<Input> parallel_inputs();

/// The --model reference.
[[nodiscard]] CatalogRef model_ref();

/// The architecture from --model (when given) with every flag applied over it, or from flags alone.
/// Returns nullopt when nothing describes a model and `required` is false; throws UserError naming the
/// missing or contradictory input otherwise. Cites the model-file fields the cache depends on (layers, head
/// counts and widths, the [attention] table), and with `cite_all` every field read (parameter counts too).
[[nodiscard]] std::optional<ModelArch> resolve_arch(Context& ctx, bool required, bool cite_all = false);

/// The storage of cached elements from --dtype and the scale inputs. With `scales_need_quantized` false,
/// scales given for an unquantized --dtype are kept (for calculators that apply them to INT8/INT4 rows).
[[nodiscard]] KvPrecision resolve_precision(Context& ctx, bool scales_need_quantized = true);

/// True for element formats that carry quantization scales (fp8, int8, int4).
[[nodiscard]] bool quantized(const StorageFormat& f);

/// The parallel split from --tp and --pp, checked against the architecture.
[[nodiscard]] Parallelism resolve_parallel(Context& ctx, const ModelArch& m);

/// The same model with another KV layout (for what-if comparisons): MHA, GQA with `kv_heads`, MQA, or
/// MLA with the given latent and RoPE widths. An MLA model turned into MHA/GQA/MQA caches its
/// decompressed per-head keys (qk_nope + qk_rope wide) and values (v_head_dim wide).
[[nodiscard]] ModelArch with_layout(const ModelArch& m, AttentionLayout layout, int kv_heads, int kv_lora_rank,
                                    int rope_dim);

/// Bytes one position of one layer would take under full MHA of the same query heads (K and V of
/// head_dim each; for an MLA model its decompressed keys, qk_nope + qk_rope wide, and values, v_head_dim
/// wide), scales included; zero when the heads or head width are unknown.
[[nodiscard]] Bytes mha_position_bytes(const ModelArch& m, const KvPrecision& precision);

/// One line describing the layout: "80 layers, GQA: 8 KV heads of 64 x 128, ...".
[[nodiscard]] std::string describe(const ModelArch& m);

/// Notes (not an error: long-context variants and RoPE scaling exist) when `tokens`, given as `flag`, exceed
/// the context the model was trained for (max_context in its catalog file).
void note_context_limit(Context& ctx, const ModelArch& m, Tokens tokens, std::string_view flag = "--tokens");

}  // namespace infracalc::kv
