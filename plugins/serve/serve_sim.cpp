#include "plugins/serve/serve_sim.hpp"

#include <algorithm>
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


// The KV pool: kv::BlockAllocator when the cache is limited, a counter otherwise.
class Pool {
 public:
  Pool(std::int64_t blocks, std::int64_t block_size) : block_size_(block_size) {
    if (blocks > 0) alloc_.emplace(blocks);
  }
  [[nodiscard]] bool limited() const { return alloc_.has_value(); }
  [[nodiscard]] std::int64_t free_blocks() const { return alloc_ ? alloc_->free_blocks() : INT64_MAX / 4; }
  [[nodiscard]] std::int64_t used_blocks() const { return alloc_ ? alloc_->used_blocks() : unlimited_used_; }
  [[nodiscard]] std::int64_t total_blocks() const { return alloc_ ? alloc_->total_blocks() : 0; }
  [[nodiscard]] std::int64_t blocks_for(std::int64_t tokens) const { return kv::blocks_for(tokens, block_size_); }
  // Grows `held` to `n` blocks; false (and nothing taken) when the pool cannot.
  bool grow(std::vector<std::int32_t>& held, std::int64_t n) {
    // Every decoding sequence asks every step; one in block_size steps needs a block.
    const auto have = static_cast<std::int64_t>(held.size());
    return n <= have || take(held, have, n);
  }
  void release(std::vector<std::int32_t>& held) {
    for (auto b : held) {
      if (alloc_) alloc_->release(b);
      else --unlimited_used_;
    }
    held.clear();
  }
  [[nodiscard]] kv::BlockStats stats() const { return alloc_ ? alloc_->stats() : kv::BlockStats{}; }

 private:
  bool take(std::vector<std::int32_t>& held, std::int64_t have, std::int64_t n) {
    if (n - have > free_blocks()) return false;
    for (std::int64_t i = have; i < n; ++i) {
      if (alloc_) held.push_back(*alloc_->allocate());
      else {
        held.push_back(0);
        ++unlimited_used_;
      }
    }
    return true;
  }

  std::int64_t block_size_;
  std::optional<kv::BlockAllocator> alloc_;
  std::int64_t unlimited_used_ = 0;
};

enum class Phase : std::uint8_t { pending, waiting, prefill, decode, done };

struct Seq {
  std::int64_t prompt = 0;
  std::int64_t output = 0;
  std::int64_t context = 0;    // tokens whose K and V are cached
  std::int64_t target = 0;     // tokens the current (re)prefill must cache
  std::int64_t generated = 0;  // output tokens produced
  std::vector<std::int32_t> blocks;
  Phase phase = Phase::pending;
  bool swapped = false;  // preempted by swapping: its cache waits in host memory
  bool started = false;
};

struct Arrival {
  double time;
  std::int32_t request;
  bool operator>(const Arrival& o) const { return time != o.time ? time > o.time : request > o.request; }
};

class Simulator {
 public:
  // least_steps: the fewest steps that can finish the run (simulate() checks it against max_steps).
  Simulator(const SimInput& in, const EngineConfig& cfg, const StepModel& model, const StepObserver& obs, std::int64_t least_steps,
            std::vector<StepSample> steps)
      : in_(in), cfg_(cfg), model_(model), obs_(obs), pool_(cfg.kv_blocks, cfg.block_size), think_(in.seed ^ kThinkStream) {
    const auto n = in.requests.size();
    seqs_.resize(n);
    res_.requests.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      seqs_[i].prompt = in.requests[i].prompt;
      seqs_[i].output = in.requests[i].output;
      // Its blocks at the longest (a request too long for the pool is refused by check_fits before it runs).
      if (pool_.limited())
        seqs_[i].blocks.reserve(static_cast<std::size_t>(std::min(pool_.blocks_for(seqs_[i].prompt + seqs_[i].output), pool_.total_blocks())));
      res_.requests[i].prompt = in.requests[i].prompt;
      res_.requests[i].output = in.requests[i].output;
    }
    // Those steps and a prefill step per request: a run of a few hundred thousand steps otherwise grows the record by
    // copying it a dozen times.
    res_.steps = std::move(steps);
    res_.steps.clear();
    res_.steps.reserve(static_cast<std::size_t>(std::min(cfg.max_steps, least_steps + static_cast<std::int64_t>(n))));
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
    if (static_cast<std::int64_t>(res_.steps.size()) >= cfg_.max_steps)
      throw UserError{{fmt::format("serve: the run did not finish within {} steps", cfg_.max_steps),
                       "simulate fewer or shorter requests (a representative sample)"}};
  }

  // --- stepping ---

  // Prices the step, advances time, records the sample and tells the observer.
  double run_step(StepSample& sample, double extra) {
    count_step();
    const double dt = model_.time(work_).value() + extra;
    sample.start = t_;
    sample.duration = dt;
    sample.waiting = static_cast<std::int32_t>(waiting_.size());
    t_ += dt;
    busy_ += dt;
    return dt;
  }

  void publish(const StepSample& sample) {
    res_.steps.push_back(sample);
    if (obs_) {
      StepEvent e;
      e.index = static_cast<std::int64_t>(res_.steps.size()) - 1;
      e.start = from_base<Seconds>(sample.start);
      e.duration = from_base<Seconds>(sample.duration);
      e.items = items_;
      e.admitted = admitted_;
      e.preempted = preempted_;
      e.finished = finished_;
      e.sample = &res_.steps.back();
      obs_(e);
    }
    work_.clear();
    items_.clear();
    admitted_.clear();
    preempted_.clear();
    finished_.clear();
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

  // Frees a sequence's slot and blocks; recompute loses its cache, swap keeps it in host memory.
  double preempt(std::int32_t victim) {
    Seq& s = seqs_[static_cast<std::size_t>(victim)];
    running_.erase(std::find(running_.begin(), running_.end(), victim));
    double cost = 0;
    const auto n = static_cast<std::int64_t>(s.blocks.size());
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

  // Every decoding sequence gets one token slot, taking a block when its last one is full; when none is
  // free the most recently admitted sequence is preempted (possibly the one asking).
  double reserve_decodes(bool& preempted_any) {
    double cost = 0;
    for (std::size_t i = 0; i < running_.size(); ++i) {
      const std::int32_t r = running_[i];
      Seq& s = seqs_[static_cast<std::size_t>(r)];
      if (s.phase != Phase::decode) continue;
      bool self = false;
      while (!pool_.grow(s.blocks, pool_.blocks_for(s.context + 1))) {
        preempted_any = true;
        const std::int32_t victim = running_.back();
        cost += preempt(victim);
        if (victim == r) {
          self = true;
          break;
        }
      }
      if (self) break;  // it was the last running sequence
      work_.push_back({s.context, 1, false});
      items_.push_back({r, 0, true, false});
    }
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
    auto& out = res_.requests[static_cast<std::size_t>(r)];
    if (!s.started) {
      s.started = true;
      out.scheduled = from_base<Seconds>(t_);
    }
    if (s.swapped) {
      s.swapped = false;
      s.phase = Phase::decode;
      cost += static_cast<double>(s.blocks.size()) * cfg_.swap_time_per_block.value();
    } else {
      s.phase = Phase::prefill;
      s.context = 0;
      s.target = tokens;
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
    items_.push_back({r, chunk, s.context + chunk == s.target, false});
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
      double extra = 0;
      bool preempted_any = false;
      if (cfg_.chunked_prefill) {
        extra += reserve_decodes(preempted_any);
        std::int64_t budget = cfg_.step_tokens - static_cast<std::int64_t>(work_.size());
        for (auto r : running_)
          if (seqs_[static_cast<std::size_t>(r)].phase == Phase::prefill && budget > 0) budget -= schedule_chunk(r, budget);
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
      if (work_.empty()) {
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
      stalled_ = 0;
      StepSample st;
      st.running = static_cast<std::int32_t>(running_.size());
      st.carried = static_cast<std::int32_t>(work_.size());
      for (const auto& w : work_) {
        if (w.prefill) {
          ++st.prefilling;
          st.prefill_tokens += w.tokens;
        } else {
          ++st.decoding;
        }
      }
      run_step(st, extra);
      apply_step(st);
      std::int64_t kv_tokens = 0;
      for (auto r : running_) kv_tokens += seqs_[static_cast<std::size_t>(r)].context;
      st.blocks_used = pool_.used_blocks();
      st.kv_tokens = kv_tokens;
      done += retire();
      publish(st);
    }
  }

  void apply_step(StepSample& st) {
    for (std::size_t i = 0; i < work_.size(); ++i) {
      const std::int32_t r = items_[i].request;
      Seq& s = seqs_[static_cast<std::size_t>(r)];
      auto& out = res_.requests[static_cast<std::size_t>(r)];
      s.context += work_[i].tokens;
      if (work_[i].prefill) {
        res_.prefill_tokens += work_[i].tokens;
        if (s.context < s.target) continue;
        s.phase = Phase::decode;
      }
      ++s.generated;
      ++st.output_tokens;
      ++res_.output_tokens;
      if (s.generated == 1) out.first_token = from_base<Seconds>(t_);
      out.last_token = from_base<Seconds>(t_);
    }
  }

  std::size_t retire() {
    std::size_t n = 0;
    // Compacted in place, in order: this runs every step.
    std::size_t kept = 0;
    for (std::size_t i = 0; i < running_.size(); ++i) {
      const std::int32_t r = running_[i];
      Seq& s = seqs_[static_cast<std::size_t>(r)];
      if (s.phase != Phase::decode || s.generated < s.output) {
        running_[kept++] = r;
        continue;
      }
      pool_.release(s.blocks);
      s.phase = Phase::done;
      res_.requests[static_cast<std::size_t>(r)].done = from_base<Seconds>(t_);
      finished_.push_back(r);
      answered(r, t_);
      ++n;
    }
    running_.resize(kept);
    return n;
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
  // The step being built.
  std::vector<SeqWork> work_;
  std::vector<StepItem> items_;
  std::vector<std::int32_t> admitted_, preempted_, finished_;
};

}  // namespace

SimResult simulate(const SimInput& input, const EngineConfig& engine, const StepModel& model, const StepObserver& observer,
                   std::vector<StepSample> steps) {
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
  return Simulator(input, engine, model, observer, static_cast<std::int64_t>(least_steps), std::move(steps)).run();
}

}  // namespace infracalc::serve
