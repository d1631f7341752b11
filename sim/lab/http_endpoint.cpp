#include "sim/lab/http_endpoint.hpp"

#include <boost/json.hpp>
#include <future>

#include "protocol/transport/http_client.hpp"
#include "protocol/transport/io_runtime.hpp"

namespace kp::lab {

boost::json::value http_reply::json() const {
  boost::system::error_code ec;
  auto v = boost::json::parse(body, ec);
  return ec ? boost::json::value() : v;
}

struct http_endpoint::impl {
  std::string token;
  transport::io_runtime runtime{1};
  std::unique_ptr<transport::http_client> client;
};

http_endpoint::http_endpoint(std::string base_url, std::string ca_pem, std::string authorization)
    : base_url_(std::move(base_url)), impl_(std::make_unique<impl>()) {
  impl_->token = std::move(authorization);
  transport::client_options options;
  options.ca_pem = std::move(ca_pem);
  options.connect_timeout = std::chrono::seconds(5);
  options.request_timeout = std::chrono::seconds(30);
  options.max_connections_per_host = 4;
  impl_->client = std::make_unique<transport::http_client>(impl_->runtime.context(), options);
}

http_endpoint::~http_endpoint() {
  impl_->client->close();
  impl_->runtime.stop();
  impl_->client.reset();
}

result<http_reply> http_endpoint::call(const std::string& method, const std::string& target,
                                       const std::string& body, const std::string& content_type,
                                       std::chrono::milliseconds timeout) {
  transport::http_request req;
  req.method = method;
  req.target = target;
  req.body = body;
  req.headers.emplace_back("Accept", "application/json");
  if (!body.empty()) req.headers.emplace_back("Content-Type", content_type);
  if (!impl_->token.empty()) req.headers.emplace_back("Authorization", impl_->token);
  auto promise = std::make_shared<std::promise<transport::response_result>>();
  auto future = promise->get_future();
  impl_->client->send(base_url_, std::move(req), [promise](transport::response_result r) {
    promise->set_value(std::move(r));
  });
  if (future.wait_for(timeout) != std::future_status::ready)
    return make_error("timeout", method + " " + target + ": no answer within " +
                                     std::to_string(timeout.count()) + " ms");
  auto r = future.get();
  if (!r) return make_error(r.error().code, method + " " + target + ": " + r.error().message);
  return http_reply{r->status, std::move(r->body)};
}

}  // namespace kp::lab
