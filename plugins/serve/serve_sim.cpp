#include "plugins/serve/serve_sim.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <deque>
#include <fmt/format.h>
#include <queue>
#include <stdexcept>

#include "plugins/kernels/rng.hpp"
#include "units/expected.hpp"

namespace infracalc::serve {

namespace {

constexpr std::uint64_t kThinkStream = 0x7417C0FFEEULL;


// The KV pool. A serving engine never shares a block here (no prefix cache), so the pool counts blocks
// (kv::BlockCount, the PagedAttention pool's counters) and a sequence holds a number of them.
class Pool {
 public:
  Pool(std::int64_t blocks, std::int64_t block_size) : block_size_(block_size) {
    if (blocks > 0) count_.emplace(blocks);
  }
  [[nodiscard]] bool limited() const { return count_.has_value(); }
  [[nodiscard]] std::int64_t free_blocks() const { return count_ ? count_->free_blocks() : INT64_MAX / 4; }
  [[nodiscard]] std::int64_t used_blocks() const { return count_ ? count_->used_blocks() : unlimited_used_; }
  [[nodiscard]] std::int64_t total_blocks() const { return count_ ? count_->total_blocks() : 0; }
  [[nodiscard]] std::int64_t blocks_for(std::int64_t tokens) const { return kv::blocks_for(tokens, block_size_); }
  // Grows `held` to `n` blocks; false (and nothing taken) when the pool cannot.
  bool grow(std::int64_t& held, std::int64_t n) {
    if (n <= held) return true;
    if (count_ && !count_->take(n - held)) return false;
    if (!count_) unlimited_used_ += n - held;
    held = n;
    return true;
  }
  void release(std::int64_t& held) {
    if (count_) count_->release(held);
    else unlimited_used_ -= held;
    held = 0;
  }
  [[nodiscard]] kv::BlockStats stats() const { return count_ ? count_->stats() : kv::BlockStats{}; }

 private:
  std::int64_t block_size_;
  std::optional<kv::BlockCount> count_;
  std::int64_t unlimited_used_ = 0;
};

enum class Phase : std::uint8_t { pending, waiting, prefill, decode, done };

struct Seq {
  std::int64_t prompt = 0;
  std::int64_t output = 0;
  std::int64_t context = 0;    // tokens whose K and V are cached
  std::int64_t target = 0;     // tokens the current (re)prefill must cache
  std::int64_t generated = 0;  // output tokens produced
  std::int64_t blocks = 0;  // KV blocks held
  Phase phase = Phase::pending;
  bool swapped = false;  // preempted by swapping: its cache waits in host memory
  bool started = false;
  // Continuous batching decodes every running sequence in the decode phase at every decode step, so while one is
  // there its context and generated count are kept as of decode step `epoch` and grow by one with each step after
  // (Simulator::decoded); they are brought up to date when it leaves the phase.
  std::int64_t epoch = 0;
  std::int64_t next_grow = 0;  // the decode step at which it next needs a block
  std::int64_t stamp = 0;      // when it was last admitted: running_ is in this order
  std::uint32_t version = 0;  // bumped when it leaves the decode phase, which makes its pending Due entries stale
};

// A decode step at which a sequence in the decode phase needs something: a new KV block, to leave the count of those
// below the sliding window, or to retire.
struct Due {
  std::int64_t epoch;
  std::int64_t stamp;
  std::int32_t request;
  std::uint32_t version;
  bool operator>(const Due& o) const { return epoch != o.epoch ? epoch > o.epoch : stamp > o.stamp; }
};

using DueQueue = std::priority_queue<Due, std::vector<Due>, std::greater<>>;

// The work of a step that is a decode group and at most one other entry (a prefill chunk, or static batching's one
// slot): the key of a remembered price.
struct StepKey {
  DecodeGroup group{.sequences = -1};
  SeqWork one{.context = -1, .tokens = 0, .prefill = false};
  bool operator==(const StepKey& o) const {
    return group.sequences == o.group.sequences && group.context_sum == o.group.context_sum &&
           group.below_window == o.group.below_window && group.below_window_context == o.group.below_window_context &&
           one.context == o.one.context && one.tokens == o.one.tokens && one.prefill == o.one.prefill;
  }
};

struct PricedStep {
  StepKey key;
  double seconds = 0;
  std::uint64_t run = 0;  // the simulator run that priced it
};

// Steps of that shape repeat: a replica serving one request at a time prices the same contexts for every request of
// the same lengths. A table of this many sets of kPricedWays prices keeps them; a full set gives up its oldest.
constexpr std::size_t kPricedSets = 1024;
constexpr std::size_t kPricedWays = 4;

// The table, one per thread for its runs one after another (a latency-target search runs seventeen): an entry counts
// only in the run that priced it, so a run starts empty without clearing or allocating 256 kB.
struct PriceTable {
  std::vector<PricedStep> steps = std::vector<PricedStep>(kPricedSets * kPricedWays);
  std::vector<std::uint8_t> next_way = std::vector<std::uint8_t>(kPricedSets);  // the way of each set priced next
  std::uint64_t runs = 0;
};

PriceTable& price_table() {
  thread_local PriceTable table;
  return table;
}

struct Arrival {
  double time;
  std::int32_t request;
  bool operator>(const Arrival& o) const { return time != o.time ? time > o.time : request > o.request; }
};

class Simulator {
 public:
  // most_steps: the steps of the run when no two requests overlap (each step yields one token, and each request takes
  // a prefill step); a loaded run takes fewer.
  Simulator(const SimInput& in, const EngineConfig& cfg, const StepModel& model, const StepObserver& obs, std::int64_t most_steps)
      : in_(in),
        cfg_(cfg),
        model_(model),
        obs_(obs),
        pool_(cfg.kv_blocks, cfg.block_size),
        think_(in.seed ^ kThinkStream),
        grow_ring_(std::bit_ceil(static_cast<std::size_t>(std::min<std::int64_t>(cfg.block_size + 1, 4096)))),
        window_(model.window()) {
    const auto n = in.requests.size();
    seqs_.resize(n);
    res_.requests.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      seqs_[i].prompt = in.requests[i].prompt;
      seqs_[i].output = in.requests[i].output;
      res_.requests[i].prompt = in.requests[i].prompt;
      res_.requests[i].output = in.requests[i].output;
    }
    // Room for that many: a lightly loaded run of a hundred thousand steps otherwise grows the record by copying it a
    // dozen times, and each larger copy's pages fault in again. A loaded run leaves most of the room untouched, and
    // untouched pages cost nothing.
    if (in.record_steps) res_.steps.reserve(static_cast<std::size_t>(std::min(cfg.max_steps, most_steps)));
    if (in.closed) {
      const auto first = std::min<std::size_t>(n, static_cast<std::size_t>(std::max(1, in.closed->users)));
      for (std::size_t i = 0; i < first; ++i) issue(static_cast<std::int32_t>(i), 0.0, static_cast<int>(i));
      next_issue_ = first;
    } else {
      for (std::size_t i = 0; i < n; ++i) issue(static_cast<std::int32_t>(i), in.requests[i].arrival.value(), -1);
      next_issue_ = n;
    }
  }

  SimResult run() {
    check_fits();
    if (cfg_.batching == Batching::static_batch) run_static();
    else run_continuous();
    res_.makespan = from_base<Seconds>(t_);
    res_.busy = from_base<Seconds>(busy_);
    res_.pool = pool_.stats();
    return std::move(res_);
  }

 private:
  // --- request issue and arrival ---

  void issue(std::int32_t r, double when, int user) {
    res_.requests[static_cast<std::size_t>(r)].arrival = from_base<Seconds>(when);
    res_.requests[static_cast<std::size_t>(r)].user = user;
    arrivals_.push({when, r});
  }

  // A closed-loop user whose answer returned at `when` sends its next request after thinking.
  void answered(std::int32_t r, double when) {
    if (!in_.closed || next_issue_ >= seqs_.size()) return;
    const ClosedLoop& c = *in_.closed;
    double think = c.think.value();
    if (c.exponential && think > 0) think = -think * std::log1p(-think_.uniform());
    issue(static_cast<std::int32_t>(next_issue_++), when + think, res_.requests[static_cast<std::size_t>(r)].user);
  }

  void take_arrivals() {
    while (!arrivals_.empty() && arrivals_.top().time <= t_) {
      const auto r = arrivals_.top().request;
      arrivals_.pop();
      seqs_[static_cast<std::size_t>(r)].phase = Phase::waiting;
      waiting_.push_back(r);
    }
  }

  // --- checks ---

  void check_fits() const {
    if (!pool_.limited()) return;
    for (std::size_t i = 0; i < seqs_.size(); ++i) {
      const Seq& s = seqs_[i];
      const std::int64_t need = pool_.blocks_for(s.prompt + s.output);
      if (need > pool_.total_blocks())
        throw UserError{{fmt::format("request {} ({} + {} tokens) needs {} KV blocks of {} tokens; the replica holds {}", i + 1, s.prompt,
                                     s.output, need, cfg_.block_size, pool_.total_blocks()),
                         "give more KV memory (--kv-budget, --memory, --tp) or shorter requests"}};
    }
  }

  void count_step() {
    if (res_.step_count >= cfg_.max_steps)
      throw UserError{{fmt::format("serve: the run did not finish within {} steps", cfg_.max_steps),
                       "simulate fewer or shorter requests (a representative sample)"}};
  }

  // --- stepping ---

  // The step model's time of the step being built.
  double price() {
    if (work_.size() > 1 || (work_.empty() && !group_)) return (group_ ? model_.group_time(*group_, work_) : model_.time(work_)).value();
    StepKey key;
    key.group = group_.value_or(DecodeGroup{});
    if (!work_.empty()) key.one = work_.front();
    const std::uint64_t mix = static_cast<std::uint64_t>(key.group.sequences) * 0x9E3779B97F4A7C15ULL ^
                              static_cast<std::uint64_t>(key.group.context_sum) * 0xC2B2AE3D27D4EB4FULL ^
                              static_cast<std::uint64_t>(key.group.below_window_context) * 0x94D049BB133111EBULL ^
                              static_cast<std::uint64_t>(key.one.context) * 0x165667B19E3779F9ULL ^
                              static_cast<std::uint64_t>(key.one.tokens) * 0x27D4EB2F165667C5ULL ^ (key.one.prefill ? 1ULL : 0ULL);
    const auto set = static_cast<std::size_t>((mix ^ (mix >> 29)) % kPricedSets);
    PricedStep* ways = prices_.steps.data() + set * kPricedWays;
    for (std::size_t w = 0; w < kPricedWays; ++w)
      if (ways[w].run == run_ && ways[w].key == key) return ways[w].seconds;
    // The set's ways take new prices in turn, so the oldest gives way.
    std::uint8_t& next = prices_.next_way[set];
    PricedStep& slot = ways[next];
    next = static_cast<std::uint8_t>((next + 1) % kPricedWays);
    slot.key = key;
    slot.run = run_;
    slot.seconds = (group_ ? model_.group_time(*group_, work_) : model_.time(work_)).value();
    return slot.seconds;
  }

  // Prices the step, advances time, records the sample and tells the observer.
  double run_step(StepSample& sample, double extra) {
    count_step();
    const double dt = price() + extra;
    sample.start = t_;
    sample.duration = dt;
    sample.waiting = static_cast<std::int32_t>(waiting_.size());
    t_ += dt;
    busy_ += dt;
    return dt;
  }

  void publish(const StepSample& sample) {
    ++res_.step_count;
    if (in_.record_steps) res_.steps.push_back(sample);
    if (obs_) {
      StepEvent e;
      e.index = res_.step_count - 1;
      e.start = from_base<Seconds>(sample.start);
      e.duration = from_base<Seconds>(sample.duration);
      e.items = items_;
      e.admitted = admitted_;
      e.preempted = preempted_;
      e.finished = finished_;
      e.sample = in_.record_steps ? &res_.steps.back() : &sample;
      obs_(e);
    }
    work_.clear();
    items_.clear();
    chunk_requests_.clear();
    admitted_.clear();
    preempted_.clear();
    finished_.clear();
    group_.reset();
    decodes_listed_ = false;
    step_decodes_ = 0;
  }

  void idle_until_next_arrival() {
    if (!arrivals_.empty()) t_ = std::max(t_, arrivals_.top().time);
  }

  // --- static batching ---

  void run_static() {
    std::size_t done = 0;
    while (done < seqs_.size()) {
      take_arrivals();
      if (waiting_.empty()) {
        idle_until_next_arrival();
        continue;
      }
      // Fill the batch first come, first served while every slot's padded length fits the pool.
      std::vector<std::int32_t> batch;
      std::int64_t pmax = 0, omax = 0;
      while (!waiting_.empty() && static_cast<int>(batch.size()) < cfg_.max_batch) {
        const Seq& s = seqs_[static_cast<std::size_t>(waiting_.front())];
        const std::int64_t p = std::max(pmax, s.prompt), o = std::max(omax, s.output);
        const auto n = static_cast<std::int64_t>(batch.size()) + 1;
        if (pool_.limited() && !batch.empty() && n * pool_.blocks_for(p + o) > pool_.total_blocks()) break;
        batch.push_back(waiting_.front());
        waiting_.pop_front();
        pmax = p;
        omax = o;
      }
      const auto n = static_cast<std::int64_t>(batch.size());
      for (auto r : batch) {
        Seq& s = seqs_[static_cast<std::size_t>(r)];
        pool_.grow(s.blocks, pool_.blocks_for(pmax + omax));
        s.phase = Phase::prefill;
        res_.requests[static_cast<std::size_t>(r)].scheduled = from_base<Seconds>(t_);
        admitted_.push_back(r);
        res_.padding_tokens += pmax - s.prompt;
        res_.prefill_tokens += s.prompt;
      }
      res_.peak_running = std::max(res_.peak_running, static_cast<int>(n));
      ++res_.batches;
      res_.batch_slot_steps += n * omax;

      // One prefill of every prompt padded to the longest; it yields each sequence's first token.
      StepSample pre;
      for (auto r : batch) {
        work_.push_back({0, pmax, true});
        items_.push_back({r, seqs_[static_cast<std::size_t>(r)].prompt, true, false});
        pre.prefill_tokens += seqs_[static_cast<std::size_t>(r)].prompt;
      }
      pre.running = pre.carried = pre.prefilling = static_cast<std::int32_t>(n);
      run_step(pre, 0);
      for (auto r : batch) {
        Seq& s = seqs_[static_cast<std::size_t>(r)];
        s.generated = 1;
        s.context = pmax;
        s.phase = Phase::decode;
        res_.requests[static_cast<std::size_t>(r)].first_token = from_base<Seconds>(t_);
        res_.requests[static_cast<std::size_t>(r)].last_token = from_base<Seconds>(t_);
      }
      pre.output_tokens = static_cast<std::int32_t>(n);
      pre.blocks_used = pool_.used_blocks();
      pre.kv_tokens = n * pmax;
      res_.output_tokens += n;
      if (omax == 1) done += finish_batch(batch);
      publish(pre);

      // Lockstep decode: every slot is computed until the longest output is done.
      for (std::int64_t k = 1; k < omax; ++k) {
        take_arrivals();
        StepSample st;
        std::int32_t productive = 0;
        for (auto r : batch) {
          const Seq& s = seqs_[static_cast<std::size_t>(r)];
          work_.push_back({pmax + k - 1, 1, false});
          const bool works = s.generated < s.output;
          items_.push_back({r, 0, works, !works});
          productive += works ? 1 : 0;
        }
        st.running = st.carried = static_cast<std::int32_t>(n);
        st.decoding = productive;
        run_step(st, 0);
        for (auto r : batch) {
          Seq& s = seqs_[static_cast<std::size_t>(r)];
          if (s.generated >= s.output) continue;
          ++s.generated;
          res_.requests[static_cast<std::size_t>(r)].last_token = from_base<Seconds>(t_);
        }
        st.output_tokens = productive;
        st.blocks_used = pool_.used_blocks();
        st.kv_tokens = n * (pmax + k);
        res_.output_tokens += productive;
        res_.idle_slot_steps += n - productive;
        if (k == omax - 1) done += finish_batch(batch);
        publish(st);
      }
    }
  }

  // The batch's answers return together at the end of its last step.
  std::size_t finish_batch(const std::vector<std::int32_t>& batch) {
    for (auto r : batch) {
      Seq& s = seqs_[static_cast<std::size_t>(r)];
      pool_.release(s.blocks);
      s.phase = Phase::done;
      res_.requests[static_cast<std::size_t>(r)].done = from_base<Seconds>(t_);
      finished_.push_back(r);
      answered(r, t_);
    }
    return batch.size();
  }

  // --- continuous batching ---

  // Context and output tokens of a running sequence in the decode phase, brought up to date.
  [[nodiscard]] std::int64_t decoded(const Seq& s) const { return epoch_ - s.epoch; }

  // A running sequence enters the decode phase with its context and generated count as they are now.
  void enter_decode(std::int32_t r) {
    Seq& s = seqs_[static_cast<std::size_t>(r)];
    s.phase = Phase::decode;
    s.epoch = epoch_;
    ++decoding_;
    decode_context_ += s.context;
    if (s.context < window_) {
      ++below_window_;
      below_window_context_ += s.context;
      crossings_.push({epoch_ + window_ - s.context, s.stamp, r, s.version});
    }
    // It retires after the step that brings it to its output; it needs a block at the step whose token would not fit
    // those it holds (pool_.grow's blocks_for(context + 1)).
    finishes_.push({epoch_ + s.output - s.generated, s.stamp, r, s.version});
    s.next_grow = epoch_ + std::max<std::int64_t>(0, s.blocks * cfg_.block_size - s.context);
    schedule_grow({s.next_grow, s.stamp, r, s.version});
  }

  // A sequence needs a block at most every block_size decode steps, so its next need waits in a ring of buckets by
  // decode step instead of a heap: a step looks at one bucket.
  void schedule_grow(const Due& d) { grow_ring_[static_cast<std::size_t>(d.epoch) & (grow_ring_.size() - 1)].push_back(d); }

  // The live entries of this step's bucket that are due now, in running order; the later ones stay.
  void take_grows() {
    due_.clear();
    auto& bucket = grow_ring_[static_cast<std::size_t>(epoch_) & (grow_ring_.size() - 1)];
    std::size_t kept = 0;
    for (const Due& d : bucket) {
      if (!live(d)) continue;
      if (d.epoch < epoch_) throw std::logic_error("serve simulator: a decode step was missed");
      if (d.epoch == epoch_) due_.push_back(d);
      else bucket[kept++] = d;
    }
    bucket.resize(kept);
    std::sort(due_.begin(), due_.end(), [](const Due& a, const Due& b) { return a.stamp < b.stamp; });
  }

  // A sequence leaves the decode phase: its lazily kept counts are brought up to date.
  void leave_decode(Seq& s) {
    const std::int64_t d = decoded(s);
    s.context += d;
    s.generated += d;
    s.epoch = epoch_;
    --decoding_;
    decode_context_ -= s.context;
    if (s.context < window_) {
      --below_window_;
      below_window_context_ -= s.context;
    }
    ++s.version;
  }

  // The group of decoding sequences as the step model sees it.
  [[nodiscard]] DecodeGroup decode_group() const { return {decoding_, decode_context_, below_window_, below_window_context_}; }

  // Every decoding sequence has decoded one more token: their sums grow, and those that reach the sliding window leave
  // the count below it.
  void advance_decodes() {
    ++epoch_;
    decode_context_ += decoding_;
    below_window_context_ += below_window_;
    while (!crossings_.empty() && crossings_.top().epoch <= epoch_) {
      const Due d = crossings_.top();
      crossings_.pop();
      if (!live(d)) continue;
      --below_window_;
      below_window_context_ -= window_;
    }
  }

  [[nodiscard]] bool live(const Due& d) const {
    const Seq& s = seqs_[static_cast<std::size_t>(d.request)];
    return s.phase == Phase::decode && s.version == d.version;
  }

  // The sequences that retire at this step, in running order.
  void take_finishes() {
    due_.clear();
    while (!finishes_.empty() && finishes_.top().epoch <= epoch_) {
      const Due d = finishes_.top();
      finishes_.pop();
      if (!live(d)) continue;
      if (d.epoch < epoch_) throw std::logic_error("serve simulator: a decode step was missed");
      due_.push_back(d);
    }
  }

  void leave_prefill(std::int32_t r) {
    prefill_context_ -= seqs_[static_cast<std::size_t>(r)].context;
    prefilling_.erase(std::find(prefilling_.begin(), prefilling_.end(), r));
  }

  // Frees a sequence's slot and blocks; recompute loses its cache, swap keeps it in host memory.
  double preempt(std::int32_t victim) {
    Seq& s = seqs_[static_cast<std::size_t>(victim)];
    running_.erase(std::find(running_.begin(), running_.end(), victim));
    if (s.phase == Phase::decode) leave_decode(s);
    else if (s.phase == Phase::prefill) leave_prefill(victim);
    double cost = 0;
    const auto n = s.blocks;
    if (cfg_.preemption == kv::Preemption::swap && s.phase == Phase::decode) {
      s.swapped = true;
      res_.swapped_blocks += n;
      cost = static_cast<double>(n) * cfg_.swap_time_per_block.value();
    } else {
      res_.recomputed_tokens += s.context;
      s.context = 0;
    }
    pool_.release(s.blocks);
    s.phase = Phase::waiting;
    waiting_.push_front(victim);
    ++res_.preemptions;
    ++res_.requests[static_cast<std::size_t>(victim)].preemptions;
    preempted_.push_back(victim);
    return cost;
  }

  // Every decoding sequence gets one token slot. The ones whose last block is full take a block, in running order; when
  // none is free the most recently admitted sequence is preempted (possibly the one asking). The others need nothing,
  // so the step knows its decodes by their count and context sum (group_), or, where the step model needs each
  // context or an observer each sequence, lists them in running order.
  double reserve_decodes(bool& preempted_any) {
    double cost = 0;
    take_grows();
    for (const Due& d : due_) {
      const std::int32_t r = d.request;
      Seq& s = seqs_[static_cast<std::size_t>(r)];
      if (s.phase != Phase::decode) continue;  // preempted for an earlier one
      bool self = false;
      while (!pool_.grow(s.blocks, s.blocks + 1)) {
        preempted_any = true;
        const std::int32_t victim = running_.back();
        cost += preempt(victim);
        if (victim == r) {
          self = true;
          break;
        }
      }
      if (self) break;  // it was the last running sequence
      s.next_grow = epoch_ + cfg_.block_size;
      schedule_grow({s.next_grow, s.stamp, r, s.version});
    }
    step_decodes_ = decoding_;
    if (decoding_ == 0) return cost;
    const DecodeGroup group = decode_group();
    decodes_listed_ = !model_.prices_group(group);
    if (!decodes_listed_) group_ = group;
    if (decodes_listed_ || obs_) {
      for (const std::int32_t r : running_) {
        const Seq& s = seqs_[static_cast<std::size_t>(r)];
        if (s.phase != Phase::decode) continue;
        if (decodes_listed_) work_.push_back({s.context + decoded(s), 1, false});
        if (obs_) items_.push_back({r, 0, true, false});
      }
    }
    // The step's token, counted now: a sequence entering the decode phase later in this step starts after it.
    advance_decodes();
    return cost;
  }

  // Admits the head of the queue if a slot and its blocks are free: a fresh or recomputed sequence is
  // given blocks for its whole (re)prefill, a swapped one its cache back. Returns false when it cannot.
  bool admit_head(double& cost) {
    if (waiting_.empty() || static_cast<int>(running_.size()) >= cfg_.max_batch) return false;
    const std::int32_t r = waiting_.front();
    Seq& s = seqs_[static_cast<std::size_t>(r)];
    // Admit only when the next token's block is free too, so the sequence is not preempted at once.
    const std::int64_t tokens = s.swapped ? s.context : s.prompt + s.generated;
    if (pool_.free_blocks() < pool_.blocks_for(tokens + 1)) return false;
    waiting_.pop_front();
    pool_.grow(s.blocks, pool_.blocks_for(tokens));
    if (!running_.empty()) ++res_.backfills;
    running_.push_back(r);
    admitted_.push_back(r);
    s.stamp = next_stamp_++;
    auto& out = res_.requests[static_cast<std::size_t>(r)];
    if (!s.started) {
      s.started = true;
      out.scheduled = from_base<Seconds>(t_);
    }
    if (s.swapped) {
      s.swapped = false;
      cost += static_cast<double>(s.blocks) * cfg_.swap_time_per_block.value();
      enter_decode(r);
    } else {
      s.phase = Phase::prefill;
      s.context = 0;
      s.target = tokens;
      prefilling_.push_back(r);
    }
    res_.peak_running = std::max(res_.peak_running, static_cast<int>(running_.size()));
    return true;
  }

  // Schedules a prefill chunk of at most `budget` tokens for a prefilling sequence.
  std::int64_t schedule_chunk(std::int32_t r, std::int64_t budget) {
    Seq& s = seqs_[static_cast<std::size_t>(r)];
    const std::int64_t chunk = std::min(s.target - s.context, budget);
    if (chunk <= 0) return 0;
    work_.push_back({s.context, chunk, true});
    chunk_requests_.push_back(r);
    if (obs_) items_.push_back({r, chunk, s.context + chunk == s.target, false});
    return chunk;
  }

  void run_continuous() {
    std::size_t done = 0;
    while (done < seqs_.size()) {
      take_arrivals();
      if (running_.empty() && waiting_.empty()) {
        idle_until_next_arrival();
        continue;
      }
      if (run_quiet(done) > 0) continue;
      double extra = 0;
      bool preempted_any = false;
      if (cfg_.chunked_prefill) {
        extra += reserve_decodes(preempted_any);
        std::int64_t budget = cfg_.step_tokens - step_decodes_;
        // Chunks go to the prefilling sequences in running order (schedule_chunk does not change the list).
        for (const std::int32_t r : prefilling_) {
          if (budget <= 0) break;
          budget -= schedule_chunk(r, budget);
        }
        if (!preempted_any) {
          while (budget > 0 && admit_head(extra)) {
            const std::int32_t r = running_.back();
            if (seqs_[static_cast<std::size_t>(r)].phase == Phase::prefill) budget -= schedule_chunk(r, budget);
          }
        }
      } else {
        // Prefills first: whole prompts of the queue's head while they fit the step's token budget (the
        // first one always does); decodes wait for a step without new prompts.
        std::int64_t budget = cfg_.step_tokens;
        bool prefilled = false;
        while (!waiting_.empty()) {
          const Seq& head = seqs_[static_cast<std::size_t>(waiting_.front())];
          const std::int64_t tokens = head.swapped ? 0 : head.prompt + head.generated;
          if (prefilled && tokens > budget) break;
          if (!admit_head(extra)) break;
          const std::int32_t r = running_.back();
          if (seqs_[static_cast<std::size_t>(r)].phase == Phase::prefill) {
            budget -= schedule_chunk(r, std::max<std::int64_t>(tokens, 1));
            prefilled = true;
          }
        }
        if (!prefilled) extra += reserve_decodes(preempted_any);
      }
      if (step_decodes_ == 0 && chunk_requests_.empty()) {
        // Only preemptions or swap-ins happened: copies take time, work resumes next step.
        if (++stalled_ > 3) throw std::logic_error("serve simulator: no progress");
        if (extra > 0) {
          StepSample st;
          st.running = static_cast<std::int32_t>(running_.size());
          run_step(st, extra);
          st.blocks_used = pool_.used_blocks();
          publish(st);
        }
        continue;
      }
      done += run_work(extra);
    }
  }

  // Runs the step built (its decodes reserved, its chunks scheduled): prices it, applies it, retires the sequences it
  // finished and records it. Returns the sequences retired.
  std::size_t run_work(double extra) {
    stalled_ = 0;
    StepSample st;
    st.running = static_cast<std::int32_t>(running_.size());
    st.decoding = static_cast<std::int32_t>(step_decodes_);
    st.carried = static_cast<std::int32_t>(step_decodes_ + static_cast<std::int64_t>(chunk_requests_.size()));
    st.prefilling = static_cast<std::int32_t>(chunk_requests_.size());
    for (const auto& w : chunk_work()) st.prefill_tokens += w.tokens;
    run_step(st, extra);
    apply_step(st);
    st.blocks_used = pool_.used_blocks();
    st.kv_tokens = decode_context_ + prefill_context_;
    const std::size_t retired = retire();
    publish(st);
    return retired;
  }

  // Runs the steps of a lightly loaded replica in which its few sequences only decode: none is waiting, arriving,
  // prefilling, needing a block or retiring. Each is the step the loop above would run, without its scheduling (a
  // replica serving one request at a time runs hundreds of such steps per request). Returns the steps run; adds the
  // sequences retired to `done` (none: a quiet step ends before a last token).
  std::int64_t run_quiet(std::size_t& done) {
    constexpr std::size_t kQuietBatch = 16;
    if (obs_ || !waiting_.empty() || !prefilling_.empty() || decoding_ == 0 || running_.size() > kQuietBatch) return 0;
    // Steps until the first that starts at a sequence's next_grow, or ends with one's last token.
    std::int64_t steps = INT64_MAX;
    for (const std::int32_t r : running_) {
      const Seq& s = seqs_[static_cast<std::size_t>(r)];
      steps = std::min({steps, s.next_grow - epoch_, s.epoch + s.output - s.generated - 1 - epoch_});
    }
    std::int64_t ran = 0;
    while (ran < steps && (arrivals_.empty() || arrivals_.top().time > t_)) {
      const DecodeGroup group = decode_group();
      if (!model_.prices_group(group)) break;
      group_ = group;
      step_decodes_ = decoding_;
      advance_decodes();
      done += run_work(0);
      ++ran;
    }
    return ran;
  }

  // The prefill chunks of the step being built: work_ after its decodes, when they are listed.
  [[nodiscard]] std::span<const SeqWork> chunk_work() const {
    return std::span<const SeqWork>(work_).subspan(decodes_listed_ ? static_cast<std::size_t>(step_decodes_) : 0);
  }

  // The step's decodes were counted when they were reserved; its prefill chunks cache their tokens, and a sequence
  // whose (re)prefill is complete has its next output token and decodes from then on.
  void apply_step(StepSample& st) {
    st.output_tokens += static_cast<std::int32_t>(step_decodes_);
    res_.output_tokens += step_decodes_;
    const auto chunks = chunk_work();
    for (std::size_t i = 0; i < chunks.size(); ++i) {
      const std::int32_t r = chunk_requests_[i];
      Seq& s = seqs_[static_cast<std::size_t>(r)];
      auto& out = res_.requests[static_cast<std::size_t>(r)];
      s.context += chunks[i].tokens;
      prefill_context_ += chunks[i].tokens;
      res_.prefill_tokens += chunks[i].tokens;
      if (s.context < s.target) continue;
      leave_prefill(r);
      ++s.generated;
      ++st.output_tokens;
      ++res_.output_tokens;
      if (s.generated == 1) out.first_token = from_base<Seconds>(t_);
      out.last_token = from_base<Seconds>(t_);
      enter_decode(r);
    }
  }

  // Sequences that produced their last token leave, in running order.
  std::size_t retire() {
    take_finishes();
    for (const Due& d : due_) {
      const std::int32_t r = d.request;
      Seq& s = seqs_[static_cast<std::size_t>(r)];
      leave_decode(s);
      pool_.release(s.blocks);
      s.phase = Phase::done;
      auto& out = res_.requests[static_cast<std::size_t>(r)];
      out.last_token = from_base<Seconds>(t_);
      out.done = from_base<Seconds>(t_);
      finished_.push_back(r);
      answered(r, t_);
    }
    if (!due_.empty())
      running_.erase(std::remove_if(running_.begin(), running_.end(),
                                    [this](std::int32_t r) { return seqs_[static_cast<std::size_t>(r)].phase == Phase::done; }),
                     running_.end());
    return due_.size();
  }

  const SimInput& in_;
  const EngineConfig& cfg_;
  const StepModel& model_;
  const StepObserver& obs_;
  Pool pool_;
  kernels::Rng think_;
  std::vector<Seq> seqs_;
  std::priority_queue<Arrival, std::vector<Arrival>, std::greater<>> arrivals_;
  std::size_t next_issue_ = 0;
  std::deque<std::int32_t> waiting_;
  std::vector<std::int32_t> running_;
  double t_ = 0;
  double busy_ = 0;
  int stalled_ = 0;
  SimResult res_;
  // Continuous batching's decode phase: decode steps so far, the running sequences in the phase and the sum of their
  // contexts, the sum over the running sequences still prefilling (and those, in running order), and when each
  // decoding sequence next needs a block or retires.
  std::int64_t epoch_ = 0;
  std::int64_t decoding_ = 0;
  std::int64_t decode_context_ = 0;
  std::int64_t prefill_context_ = 0;
  std::vector<std::int32_t> prefilling_;
  std::int64_t next_stamp_ = 0;
  std::vector<std::vector<Due>> grow_ring_;
  DueQueue finishes_;
  // The model's sliding window (0: none), the decoding sequences whose context is shorter and the sum of their contexts,
  // and when each reaches it.
  std::int64_t window_ = 0;
  std::int64_t below_window_ = 0;
  std::int64_t below_window_context_ = 0;
  DueQueue crossings_;
  std::vector<Due> due_;
  // The step being built: its work for the step model (the decodes listed first when decodes_listed_, else priced as
  // group_), the request of each prefill chunk, the decoding sequences, and for an observer each sequence's part.
  std::vector<SeqWork> work_;
  std::optional<DecodeGroup> group_;
  bool decodes_listed_ = false;
  std::vector<std::int32_t> chunk_requests_;
  std::int64_t step_decodes_ = 0;
  std::vector<StepItem> items_;
  std::vector<std::int32_t> admitted_, preempted_, finished_;
  PriceTable& prices_ = price_table();
  const std::uint64_t run_ = ++prices_.runs;
};

}  // namespace

SimResult simulate(const SimInput& input, const EngineConfig& engine, const StepModel& model, const StepObserver& observer) {
  if (input.requests.empty()) throw UserError{{"serve: no requests to simulate", "give --count, --requests or --requests-file"}};
  if (engine.max_batch < 1) throw UserError{{"--max-batch: expected at least 1 sequence", "e.g. --max-batch 64"}};
  if (engine.block_size < 1) throw UserError{{"--block-size: expected at least 1 token", "e.g. --block-size 16"}};
  if (engine.batching == Batching::continuous && engine.step_tokens < engine.max_batch)
    throw UserError{{fmt::format("--step-tokens {} is below --max-batch {}: a step could not decode every running sequence",
                                 engine.step_tokens, engine.max_batch),
                     "raise --step-tokens or lower --max-batch"}};
  double outputs = 0, longest = 0;
  for (const auto& r : input.requests) {
    if (r.prompt < 1 || r.output < 1) throw UserError{{"serve: every request needs a prompt and an output of at least one token", ""}};
    outputs += static_cast<double>(r.output);
    longest = std::max(longest, static_cast<double>(r.output));
  }
  // Every step yields at most max_batch tokens, and one sequence at most one token a step, so fewer steps than
  // this cannot finish the run.
  const double least_steps = std::ceil(std::max(outputs / engine.max_batch, longest));
  if (least_steps > static_cast<double>(engine.max_steps))
    throw UserError{{fmt::format("serve: the run needs more than {} steps ({:.4g} output tokens, at most {} a step; the longest answer "
                                 "{:.4g} tokens, one a step)",
                                 engine.max_steps, outputs, engine.max_batch, longest),
                     "simulate a representative sample (fewer or shorter requests)"}};
  return Simulator(input, engine, model, observer, static_cast<std::int64_t>(outputs) + static_cast<std::int64_t>(input.requests.size())).run();
}

}  // namespace infracalc::serve
