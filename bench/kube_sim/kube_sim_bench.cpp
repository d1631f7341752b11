// bench-kube-sim [--pods N] [--watchers W] [--watch-pods M] [--concurrency C]
// Starts kube-sim in-process (its own io thread, all simulated controllers on) and measures it
// from a client on another thread over HTTPS, against the targets of issue #3:
//   creates >= 2,000 pods/s; a list of 100,000 pods < 2 s; 50 watchers within 1 s of the newest.
#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <future>
#include <mutex>
#include <string>
#include <vector>

#include "protocol/transport/http_client.hpp"
#include "protocol/transport/io_runtime.hpp"
#include "sim/kube/cluster.hpp"

namespace {

using clock_type = std::chrono::steady_clock;
using kp::transport::http_request;

double seconds_since(clock_type::time_point t) {
  return std::chrono::duration<double>(clock_type::now() - t).count();
}

struct bench_client {
  std::string url, token;
  kp::transport::io_runtime runtime{1};
  std::unique_ptr<kp::transport::http_client> client;

  bench_client(std::string u, std::string ca, std::string t)
      : url(std::move(u)), token(std::move(t)) {
    kp::transport::client_options o;
    o.ca_pem = std::move(ca);
    o.max_connections_per_host = 16;
    o.request_timeout = std::chrono::seconds(120);
    o.body_limit = 1u << 30;
    client = std::make_unique<kp::transport::http_client>(runtime.context(), o);
  }
  http_request request(const std::string& method, const std::string& target,
                       std::string body = "") {
    http_request r;
    r.method = method;
    r.target = target;
    r.body = std::move(body);
    r.headers.emplace_back("Authorization", "Bearer " + token);
    r.headers.emplace_back("Accept", "application/json");
    if (!r.body.empty()) r.headers.emplace_back("Content-Type", "application/json");
    return r;
  }
  kp::transport::response_result call(const std::string& method, const std::string& target,
                                      std::string body = "") {
    std::promise<kp::transport::response_result> p;
    auto f = p.get_future();
    client->send(url, request(method, target, std::move(body)),
                 [&p](kp::transport::response_result r) { p.set_value(std::move(r)); });
    return f.get();
  }
  // Creates `count` pods named prefix-i with at most `window` requests in flight; returns the
  // time each create was answered (indexed by i) and the number of failures.
  std::pair<std::vector<clock_type::time_point>, int> create_pods(const std::string& ns,
                                                                  const std::string& prefix,
                                                                  int count, int window) {
    std::vector<clock_type::time_point> done_at(static_cast<std::size_t>(count));
    std::mutex m;
    std::condition_variable cv;
    int next = 0, finished = 0, in_flight = 0, failures = 0;
    std::function<void()> pump;
    pump = [&] {
      while (in_flight < window && next < count) {
        int i = next++;
        ++in_flight;
        std::string body =
            R"({"metadata":{"name":")" + prefix + std::to_string(i) +
            R"(","labels":{"app":"bench"}},"spec":{"containers":[{"name":"c","image":"registry.k8s.io/pause:3.9","resources":{"requests":{"cpu":"100m","memory":"64Mi"}}}]}})";
        client->send(url, request("POST", "/api/v1/namespaces/" + ns + "/pods", std::move(body)),
                     [&, i](kp::transport::response_result r) {
                       std::lock_guard lock(m);
                       done_at[static_cast<std::size_t>(i)] = clock_type::now();
                       if (!r || r->status != 201) ++failures;
                       --in_flight;
                       ++finished;
                       pump();
                       cv.notify_all();
                     });
      }
    };
    {
      std::lock_guard lock(m);
      pump();
    }
    std::unique_lock lock(m);
    cv.wait(lock, [&] { return finished == count; });
    return {done_at, failures};
  }
};

struct watcher {
  std::shared_ptr<kp::transport::http_stream> stream;
  std::mutex m;
  std::string tail;
  std::vector<clock_type::time_point> seen;
  std::string prefix;
  int count = 0;
};

}  // namespace

int main(int argc, char** argv) {
  int pods = 100000, watchers = 50, watch_pods = 2000, concurrency = 64;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    int v = std::atoi(argv[i + 1]);
    if (a == "--pods")
      pods = v;
    else if (a == "--watchers")
      watchers = v;
    else if (a == "--watch-pods")
      watch_pods = v;
    else if (a == "--concurrency")
      concurrency = v;
  }
  kp::transport::io_runtime server_io(1);
  kp::sim::kube::cluster_options options;
  options.watch_history = static_cast<std::size_t>(pods) * 3 + 10000;
  auto sim = std::make_shared<kp::sim::kube::cluster>(server_io.context(), options);
  std::promise<kp::status> started;
  boost::asio::post(server_io.context(), [&] { started.set_value(sim->start()); });
  if (auto st = started.get_future().get(); !st) {
    std::fprintf(stderr, "kube-sim did not start: %s\n", st.error().message.c_str());
    return 1;
  }
  bench_client c(sim->server_url(), sim->ca_pem(), sim->admin_token());
  bool all_ok = true;

  // 1. Creates.
  auto t0 = clock_type::now();
  auto [done, failures] = c.create_pods("default", "bench-", pods, concurrency);
  double create_s = seconds_since(t0);
  double rate = pods / create_s;
  bool create_ok = rate >= 2000 && failures == 0;
  all_ok &= create_ok;
  std::printf("creates: %d pods in %.2f s = %.0f pods/s (%d failed)  target >= 2000/s: %s\n", pods,
              create_s, rate, failures, create_ok ? "PASS" : "FAIL");

  // 2. Lists.
  t0 = clock_type::now();
  auto whole = c.call("GET", "/api/v1/pods");
  double list_s = seconds_since(t0);
  bool list_ok = whole && whole->status == 200 && list_s < 2.0;
  all_ok &= list_ok;
  std::printf("list: %d pods (%.1f MB) in %.3f s  target < 2 s: %s\n", pods,
              whole ? static_cast<double>(whole->body.size()) / 1e6 : 0.0, list_s,
              list_ok ? "PASS" : "FAIL");
  t0 = clock_type::now();
  std::string cont;
  int pages = 0;
  do {
    auto r = c.call(
        "GET", "/api/v1/pods?limit=500" + (cont.empty() ? std::string() : "&continue=" + cont));
    if (!r || r->status != 200) break;
    ++pages;
    auto at = r->body.find("\"continue\":\"");
    cont.clear();
    if (at != std::string::npos) {
      auto end = r->body.find('"', at + 12);
      cont = r->body.substr(at + 12, end - at - 12);
    }
  } while (!cont.empty());
  std::printf("paged list: %d pages of 500 in %.3f s (kubectl's way; reported, no target)\n", pages,
              seconds_since(t0));

  // 3. Watch lag.
  (void)c.call("POST", "/api/v1/namespaces", R"({"metadata":{"name":"bench-watch"}})");
  auto rv_reply = c.call("GET", "/api/v1/namespaces/bench-watch/pods?limit=1");
  std::string rv = "0";
  if (rv_reply) {
    auto at = rv_reply->body.find("\"resourceVersion\":\"");
    if (at != std::string::npos)
      rv = rv_reply->body.substr(at + 19, rv_reply->body.find('"', at + 19) - at - 19);
  }
  std::vector<std::unique_ptr<watcher>> ws;
  std::atomic<int> heads{0};
  for (int i = 0; i < watchers; ++i) {
    auto w = std::make_unique<watcher>();
    w->prefix = "\"name\":\"wp-";
    w->seen.resize(static_cast<std::size_t>(watch_pods));
    auto* raw = w.get();
    kp::transport::stream_callbacks cb;
    cb.on_head = [&heads](int, const kp::transport::header_list&) { ++heads; };
    cb.on_data = [raw](std::string_view data) {
      std::lock_guard lock(raw->m);
      auto now = clock_type::now();
      raw->tail.append(data);
      std::size_t pos = 0, line_end;
      while ((line_end = raw->tail.find('\n', pos)) != std::string::npos) {
        auto at = raw->tail.find(raw->prefix, pos);
        if (at != std::string::npos && at < line_end) {
          int idx = std::atoi(raw->tail.c_str() + at + raw->prefix.size());
          if (idx >= 0 && idx < static_cast<int>(raw->seen.size()) &&
              raw->seen[static_cast<std::size_t>(idx)] == clock_type::time_point{}) {
            raw->seen[static_cast<std::size_t>(idx)] = now;
            ++raw->count;
          }
        }
        pos = line_end + 1;
      }
      raw->tail.erase(0, pos);
    };
    cb.on_end = [](kp::status) {};
    w->stream = c.client->open_stream(
        c.url,
        c.request("GET", "/api/v1/namespaces/bench-watch/pods?watch=true&resourceVersion=" + rv),
        std::move(cb), std::chrono::seconds(120));
    ws.push_back(std::move(w));
  }
  auto deadline = clock_type::now() + std::chrono::seconds(30);
  while (heads.load() < watchers && clock_type::now() < deadline) std::this_thread::yield();
  auto [wdone, wfail] = c.create_pods("bench-watch", "wp-", watch_pods, concurrency);
  deadline = clock_type::now() + std::chrono::seconds(60);
  auto all_seen = [&] {
    for (auto& w : ws) {
      std::lock_guard lock(w->m);
      if (w->count < watch_pods) return false;
    }
    return true;
  };
  while (!all_seen() && clock_type::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  double worst = 0, sum = 0;
  long n = 0;
  int complete = 0;
  for (auto& w : ws) {
    std::lock_guard lock(w->m);
    complete += w->count == watch_pods;
    for (int i = 0; i < watch_pods; ++i) {
      auto seen = w->seen[static_cast<std::size_t>(i)];
      if (seen == clock_type::time_point{}) continue;
      // Lag behind the newest event: from the create's answer to this watcher's copy.
      double lag = std::chrono::duration<double>(seen - wdone[static_cast<std::size_t>(i)]).count();
      worst = std::max(worst, lag);
      sum += lag;
      ++n;
    }
    w->stream->cancel();
  }
  bool watch_ok = complete == watchers && worst < 1.0 && wfail == 0;
  all_ok &= watch_ok;
  std::printf(
      "watch: %d watchers x %d events, %d complete, lag mean %.3f s, max %.3f s  target < 1 s: "
      "%s\n",
      watchers, watch_pods, complete, n ? sum / static_cast<double>(n) : 0.0, worst,
      watch_ok ? "PASS" : "FAIL");
  c.client->close();
  std::promise<void> stopped;
  boost::asio::post(server_io.context(), [&] {
    sim.reset();
    stopped.set_value();
  });
  stopped.get_future().wait();
  return all_ok ? 0 : 1;
}
