#include "plugins/network/fabric_math.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "plugins/network/network_common.hpp"

namespace infracalc::net {

LeafPorts leaf_ports(std::int64_t radix, double r) {
  LeafPorts p;
  p.up = static_cast<std::int64_t>(std::ceil(static_cast<double>(radix) / (1.0 + r) - 1e-9));
  p.down = radix - p.up;
  return p;
}

std::int64_t max_endpoints(std::int64_t k, std::int64_t down, int tiers) {
  switch (tiers) {
    case 1: return k;
    case 2: return k * down;  // every spine port reaches a different leaf
    default: return k * (k / 2) * down;  // k pods of k/2 leaves
  }
}

namespace {

// Leaves needed and how they group: hosts fill leaves in order, or (rail-optimised) each group of `down` nodes has
// one leaf per rail.
std::int64_t leaves_for(const FabricInput& in, std::int64_t down, std::int64_t* groups) {
  if (in.design == FabricDesign::rail_optimised) {
    const std::int64_t nodes = ceil_div(in.endpoints, in.rails);
    *groups = ceil_div(nodes, down);
    return *groups * in.rails;
  }
  *groups = 0;
  return ceil_div(in.endpoints, down);
}

// The smallest divisor of `n` that is at least `lo` (n itself when none is smaller).
std::int64_t divisor_at_least(std::int64_t n, std::int64_t lo) {
  for (std::int64_t d = std::max<std::int64_t>(lo, 1); d < n; ++d)
    if (n % d == 0) return d;
  return n;
}

}  // namespace

FabricPlan plan_fabric(const FabricInput& in) {
  if (in.radix < 2) throw UserError{{fmt::format("switch radix {} is too small for a fabric", in.radix), "a switch needs at least 2 ports"}};
  if (in.endpoints < 1) throw UserError{{"the fabric has no endpoints", "give --gpus N"}};
  if (in.oversubscription < 1.0)
    throw UserError{{fmt::format("--oversubscription {} is below 1:1", in.oversubscription),
                     "more uplinks than host ports is not a fat tree; use 1:1 for non-blocking"}};
  FabricPlan p;
  p.radix = in.radix;
  p.endpoints = in.endpoints;
  const LeafPorts lp = leaf_ports(in.radix, in.oversubscription);
  if (lp.down < 1 || lp.up < 1) throw UserError{{"the leaf has no host or no uplink ports at this oversubscription", "lower --oversubscription"}};
  if (in.design == FabricDesign::rail_optimised && in.rails < 1) throw UserError{{"rails must be at least 1", "give --gpus-per-node"}};

  int tiers = in.tiers;
  if (tiers == 0) {
    if (in.endpoints <= in.radix) tiers = 1;
    else {
      std::int64_t groups = 0;
      tiers = leaves_for(in, lp.down, &groups) <= in.radix ? 2 : 3;
    }
  }
  p.tiers = tiers;
  if (tiers == 1) {
    if (in.endpoints > in.radix)
      throw UserError{{fmt::format("{} endpoints do not fit on one {}-port switch", in.endpoints, in.radix), "use --tiers 2"}};
    p.leaves = 1;
    p.leaf_down = in.radix;
    p.host_links = in.endpoints;
    p.max_endpoints = in.radix;
    p.bisection_links = std::floor(static_cast<double>(in.endpoints) / 2.0);
    return p;
  }
  p.leaf_down = lp.down;
  p.leaf_up = lp.up;
  p.leaves = leaves_for(in, lp.down, &p.rail_groups);
  p.host_links = in.endpoints;
  const double share = std::min(1.0, static_cast<double>(lp.up) / static_cast<double>(lp.down));
  p.bisection_links = static_cast<double>(in.endpoints) / 2.0 * share;
  if (tiers == 2) {
    p.max_endpoints = max_endpoints(in.radix, lp.down, 2);
    if (p.leaves > in.radix)
      throw UserError{{fmt::format("{} leaves exceed what {}-port spines can reach ({} leaves, {} endpoints)", p.leaves, in.radix,
                                   in.radix, p.max_endpoints),
                       "use --tiers 3 or a higher-radix switch"}};
    p.leaf_spine_links = p.leaves * lp.up;
    // Every leaf sends up / spines links to each spine, so the spine count divides the uplinks: an uneven spread
    // loads some spines more from one half of the leaves than the other and cuts the bisection.
    p.spines = divisor_at_least(lp.up, ceil_div(p.leaf_spine_links, in.radix));
    return p;
  }
  // Three tiers: pods of k/2 leaves, each with `up` aggregation switches (one per leaf uplink) that are themselves
  // non-blocking (as many uplinks to the core as leaves below them); core planes of ceil(leaves / k) switches,
  // rounded up to a divisor of the leaves per pod so that each aggregation switch spreads its uplinks evenly.
  const std::int64_t half = in.radix / 2;
  p.leaves_per_pod = half;
  if (in.design == FabricDesign::rail_optimised) {
    if (in.rails > half)
      throw UserError{{fmt::format("{} rails do not fit in a pod of {} leaves", in.rails, half), "use fewer NICs per node or a higher radix"}};
    p.leaves_per_pod = half / in.rails * in.rails;
  }
  p.pods = ceil_div(p.leaves, p.leaves_per_pod);
  p.max_endpoints = in.radix * p.leaves_per_pod * lp.down;
  if (p.pods > in.radix)
    throw UserError{{fmt::format("{} pods exceed what {}-port cores can reach (at most {} endpoints in three tiers)", p.pods, in.radix,
                                 p.max_endpoints),
                     "use a higher-radix switch, more oversubscription, or split the cluster"}};
  p.spines = p.pods * lp.up;
  p.leaf_spine_links = p.leaves * lp.up;
  p.spine_core_links = p.leaves * lp.up;
  p.cores_per_plane = divisor_at_least(p.leaves_per_pod, ceil_div(p.leaves, in.radix));
  p.cores = lp.up * p.cores_per_plane;
  return p;
}

namespace {

// Modules for `ends` switch ports spread as evenly as possible over `switches` switches, `m` ports a module.
std::int64_t modules_even(std::int64_t ends, std::int64_t switches, std::int64_t m) {
  if (switches <= 0 || ends <= 0) return 0;
  const std::int64_t q = ends / switches;
  const std::int64_t r = ends % switches;
  return r * ceil_div(q + 1, m) + (switches - r) * ceil_div(q, m);
}

}  // namespace

ModuleCounts count_modules(const FabricPlan& p, std::int64_t m, bool host_optical, bool co_packaged) {
  ModuleCounts out;
  out.nic = host_optical ? p.host_links : 0;
  std::int64_t leaf_host = 0;
  if (p.tiers == 1) {
    leaf_host = ceil_div(p.host_links, m);
  } else if (p.rail_groups > 0) {
    // Every rail leaf of a group holds one NIC of each of the group's nodes; the last group may be partial.
    const std::int64_t rails = p.leaves / p.rail_groups;
    const std::int64_t nodes = p.host_links / rails;
    const std::int64_t last = nodes - (p.rail_groups - 1) * p.leaf_down;
    leaf_host = (p.rail_groups - 1) * rails * ceil_div(p.leaf_down, m) + rails * ceil_div(last, m);
  } else {
    leaf_host = (p.host_links / p.leaf_down) * ceil_div(p.leaf_down, m) + ceil_div(p.host_links % p.leaf_down, m);
  }
  out.leaf_host = host_optical && !co_packaged ? leaf_host : 0;
  if (co_packaged || p.tiers == 1) return out;
  const std::int64_t leaf_up = p.leaves * ceil_div(p.leaf_up, m);
  if (p.tiers == 2) {
    out.leaf_spine = leaf_up + modules_even(p.leaf_spine_links, p.spines, m);
    return out;
  }
  // Three tiers: an aggregation switch has one link down to, and one up for, each leaf of its pod.
  std::int64_t agg = 0;
  for (std::int64_t pod = 0; pod < p.pods; ++pod) {
    const std::int64_t leaves = std::min(p.leaves_per_pod, p.leaves - pod * p.leaves_per_pod);
    agg += p.leaf_up * ceil_div(leaves, m);
  }
  out.leaf_spine = leaf_up + agg;
  out.spine_core = agg + modules_even(p.spine_core_links, p.cores, m);
  return out;
}

}  // namespace infracalc::net
