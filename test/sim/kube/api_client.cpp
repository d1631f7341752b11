#include "api_client.hpp"

#include <boost/json/parse.hpp>
#include <future>

namespace kp::sim::kube::testing {

boost::json::value reply::json() const {
  boost::system::error_code ec;
  auto v = boost::json::parse(body, ec);
  return ec ? boost::json::value() : v;
}

bool watch_stream::wait_for(const std::function<bool(const std::string&)>& pred,
                            std::chrono::milliseconds within) {
  std::unique_lock lock(m_);
  return cv_.wait_for(lock, within, [&] { return pred(data_); });
}

std::string watch_stream::text() {
  std::lock_guard lock(m_);
  return data_;
}

bool watch_stream::wait_ended(std::chrono::milliseconds within) {
  std::unique_lock lock(m_);
  return cv_.wait_for(lock, within, [&] { return ended_; });
}

bool watch_stream::ended() {
  std::lock_guard lock(m_);
  return ended_;
}

void watch_stream::cancel() {
  if (stream_) stream_->cancel();
}

api_client::api_client(std::string base_url, std::string ca_pem, std::string bearer_token,
                       std::string client_cert_pem, std::string client_key_pem)
    : base_url_(std::move(base_url)), token_(std::move(bearer_token)) {
  transport::client_options o;
  o.ca_pem = std::move(ca_pem);
  o.client_certificate_pem = std::move(client_cert_pem);
  o.client_key_pem = std::move(client_key_pem);
  o.request_timeout = std::chrono::seconds(20);
  client_ = std::make_unique<transport::http_client>(runtime_.context(), o);
}

api_client::~api_client() {
  client_->close();
  runtime_.stop();
}

reply api_client::call(const std::string& method, const std::string& target,
                       const std::string& body, const std::string& content_type) {
  transport::http_request req;
  req.method = method;
  req.target = target;
  req.body = body;
  if (!token_.empty()) req.headers.emplace_back("Authorization", "Bearer " + token_);
  req.headers.emplace_back("Accept", "application/json");
  if (!body.empty()) req.headers.emplace_back("Content-Type", content_type);
  auto done = std::make_shared<std::promise<reply>>();
  auto fut = done->get_future();
  client_->send(base_url_, std::move(req), [done](transport::response_result r) {
    reply out;
    if (r) {
      out.status = r->status;
      out.body = r->body;
      out.headers = r->headers;
    } else {
      out.error = r.error().code + ": " + r.error().message;
    }
    done->set_value(std::move(out));
  });
  if (fut.wait_for(std::chrono::seconds(30)) != std::future_status::ready)
    return reply{0, "", "timeout", {}};
  return fut.get();
}

std::shared_ptr<watch_stream> api_client::watch(const std::string& target) {
  auto w = std::make_shared<watch_stream>();
  transport::http_request req;
  req.target = target;
  if (!token_.empty()) req.headers.emplace_back("Authorization", "Bearer " + token_);
  transport::stream_callbacks cb;
  cb.on_head = [w](int status, const transport::header_list&) {
    std::lock_guard lock(w->m_);
    w->status_ = status;
  };
  cb.on_data = [w](std::string_view data) {
    {
      std::lock_guard lock(w->m_);
      w->data_.append(data);
    }
    w->cv_.notify_all();
  };
  cb.on_end = [w](kp::status) {
    {
      std::lock_guard lock(w->m_);
      w->ended_ = true;
    }
    w->cv_.notify_all();
  };
  w->stream_ =
      client_->open_stream(base_url_, std::move(req), std::move(cb), std::chrono::seconds(60));
  return w;
}

}  // namespace kp::sim::kube::testing
