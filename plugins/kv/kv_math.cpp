#include "plugins/kv/kv_math.hpp"

namespace infracalc::kv {

// Each layer caches one key and one value vector per KV head per token (Vaswani et al. 2017; GQA:
// Ainslie et al. 2023, MQA: Shazeer 2019 share those heads across query heads).
Bytes bytes_per_token(const KvShape& s) { return 2.0 * s.layers * s.kv_heads * s.head_dim * s.bytes_per_element; }

Bytes total(Bytes per_token, Tokens tokens, Number batch) { return per_token * token_count(tokens) * batch; }

Number token_count(Tokens t) { return Number::from_value(t.value()); }

}  // namespace infracalc::kv
