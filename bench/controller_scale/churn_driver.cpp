#include "bench/controller_scale/churn_driver.hpp"

#include <algorithm>
#include <atomic>
#include <boost/json.hpp>
#include <charconv>
#include <condition_variable>
#include <random>
#include <thread>

#include "protocol/transport/http_client.hpp"
#include "protocol/transport/io_runtime.hpp"
#include "sim/lab/quantile.hpp"

namespace kp::bench {
namespace {

using clock_type = std::chrono::steady_clock;

std::uint64_t resource_version_of(const std::string& body) {
  boost::system::error_code ec;
  auto v = boost::json::parse(body, ec);
  if (ec || !v.is_object()) return 0;
  const auto* meta = v.as_object().if_contains("metadata");
  const auto* rv =
      meta && meta->is_object() ? meta->as_object().if_contains("resourceVersion") : nullptr;
  if (rv == nullptr || !rv->is_string()) return 0;
  std::uint64_t out = 0;
  const auto& s = rv->as_string();
  auto [p, err] = std::from_chars(s.data(), s.data() + s.size(), out);
  return err == std::errc() && p == s.data() + s.size() ? out : 0;
}

}  // namespace

struct churn_driver::impl {
  std::string server, token;
  transport::io_runtime runtime{1};
  std::unique_ptr<transport::http_client> client;

  mutable std::mutex m;
  std::condition_variable answered;
  std::multimap<std::uint64_t, clock_type::time_point> pending;  // rv -> acknowledged at
  std::vector<double> lags;
  long sent = 0, acknowledged = 0, failed = 0, in_flight = 0;

  void patch(const churn_target& t, long seq) {
    transport::http_request r;
    r.method = "PATCH";
    r.target = "/api/v1/namespaces/" + t.namespace_ + "/pods/" + t.name;
    r.body = R"({"metadata":{"labels":{"churn":")" + std::to_string(seq) + R"("}}})";
    r.headers.emplace_back("Authorization", "Bearer " + token);
    r.headers.emplace_back("Accept", "application/json");
    r.headers.emplace_back("Content-Type", "application/merge-patch+json");
    {
      std::lock_guard lock(m);
      ++sent;
      ++in_flight;
    }
    client->send(server, std::move(r), [this](transport::response_result res) {
      auto at = clock_type::now();
      std::uint64_t rv = res && res->status == 200 ? resource_version_of(res->body) : 0;
      std::lock_guard lock(m);
      --in_flight;
      if (rv == 0) {
        ++failed;
      } else {
        ++acknowledged;
        pending.emplace(rv, at);
      }
      answered.notify_all();
    });
  }
};

churn_driver::churn_driver(std::string server, std::string ca_pem, std::string token)
    : impl_(std::make_unique<impl>()) {
  impl_->server = std::move(server);
  impl_->token = std::move(token);
  transport::client_options o;
  o.ca_pem = std::move(ca_pem);
  o.max_connections_per_host = 16;
  o.request_timeout = std::chrono::seconds(30);
  impl_->client = std::make_unique<transport::http_client>(impl_->runtime.context(), o);
}

churn_driver::~churn_driver() {
  impl_->client.reset();
}

void churn_driver::run(const std::vector<churn_target>& targets, int rate,
                       std::chrono::seconds duration, std::chrono::milliseconds poll_every,
                       const std::function<void()>& poll) {
  if (targets.empty() || rate <= 0) return;
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<std::size_t> pick(0, targets.size() - 1);
  const auto start = clock_type::now();
  const auto end = start + duration;
  const auto step = std::chrono::milliseconds(10);
  auto next_poll = start;
  long seq = 0;
  for (auto tick = start; tick < end; tick += step) {
    // Patches due by this tick: the schedule stays on rate even when a tick runs late.
    const double elapsed = std::chrono::duration<double>(tick + step - start).count();
    const auto due = static_cast<long>(elapsed * rate);
    while (seq < due) impl_->patch(targets[pick(rng)], seq++);
    if (clock_type::now() >= next_poll) {
      poll();
      next_poll = clock_type::now() + poll_every;
    }
    std::this_thread::sleep_until(tick + step);
  }
  std::unique_lock lock(impl_->m);
  impl_->answered.wait_for(lock, std::chrono::seconds(60), [&] { return impl_->in_flight == 0; });
}

void churn_driver::observe(std::uint64_t rv, clock_type::time_point at) {
  std::lock_guard lock(impl_->m);
  auto last = impl_->pending.upper_bound(rv);
  for (auto it = impl_->pending.begin(); it != last; ++it)
    impl_->lags.push_back(std::chrono::duration<double>(at - it->second).count());
  impl_->pending.erase(impl_->pending.begin(), last);
}

long churn_driver::unobserved() const {
  std::lock_guard lock(impl_->m);
  return static_cast<long>(impl_->pending.size());
}

churn_figures churn_driver::figures(clock_type::time_point end) const {
  std::lock_guard lock(impl_->m);
  churn_figures f;
  f.sent = impl_->sent;
  f.acknowledged = impl_->acknowledged;
  f.failed = impl_->failed;
  f.observed = static_cast<long>(impl_->lags.size());
  auto lags = impl_->lags;
  for (const auto& [rv, at] : impl_->pending)
    lags.push_back(std::chrono::duration<double>(end - at).count());
  for (double l : lags) f.max_lag_s = std::max(f.max_lag_s, l);
  f.p99_lag_s = lab::quantile(lags, 0.99);
  f.p50_lag_s = lab::quantile(lags, 0.5);
  return f;
}

}  // namespace kp::bench
