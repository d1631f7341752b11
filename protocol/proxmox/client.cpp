#include "protocol/proxmox/client.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/json.hpp>

#include <algorithm>
#include <atomic>
#include <mutex>

#include "protocol/proxmox/api_error.hpp"
#include "protocol/proxmox/api_reply.hpp"
#include "protocol/proxmox/reply_decoding.hpp"

namespace kp::proxmox {

namespace json = boost::json;
using steady = std::chrono::steady_clock;

namespace {

struct ticket {
  std::string value;
  std::string csrf;
};

std::string api_base(std::string url) {
  while (!url.empty() && url.back() == '/') url.pop_back();
  constexpr std::string_view suffix = "/api2/json";
  if (url.size() < suffix.size() ||
      url.compare(url.size() - suffix.size(), suffix.size(), suffix) != 0) {
    url += suffix;
  }
  return url;
}

kp::error with_context(const std::string& method, const std::string& path, kp::error e) {
  e.message = method + " " + path + ": " + e.message;
  return e;
}

std::string seg(const std::string& s) {
  return encode_path_segment(s);
}
std::string vm_path(const std::string& node, std::uint32_t vmid) {
  return "/nodes/" + seg(node) + "/qemu/" + std::to_string(vmid);
}
const char* bit(bool b) {
  return b ? "1" : "0";
}

form_params rule_params(const firewall_rule& r) {
  form_params p;
  auto add = [&](const char* key, const std::string& value) {
    if (!value.empty()) p.emplace_back(key, value);
  };
  add("type", r.type);
  add("action", r.action);
  add("iface", r.iface);
  if (r.enable) p.emplace_back("enable", bit(*r.enable));
  if (r.pos) p.emplace_back("pos", std::to_string(*r.pos));
  add("comment", r.comment);
  add("macro", r.macro);
  add("proto", r.proto);
  add("dport", r.dport);
  add("sport", r.sport);
  add("source", r.source);
  add("dest", r.dest);
  return p;
}

}  // namespace

struct client::impl : std::enable_shared_from_this<impl> {
  using json_callback = std::function<void(result<json::value>)>;
  using ticket_callback = std::function<void(result<ticket>)>;

  impl(boost::asio::io_context& io_context, client_settings s)
      : io(io_context),
        settings(std::move(s)),
        base(api_base(settings.url)),
        http(std::make_unique<transport::http_client>(io_context, settings.transport)) {}

  boost::asio::io_context& io;
  client_settings settings;
  std::string base;
  std::unique_ptr<transport::http_client> http;
  std::atomic<std::size_t> login_count{0};

  std::mutex mu;  // guards the ticket state below
  std::optional<ticket> current;
  steady::time_point ticket_time;
  bool login_in_flight = false;
  std::vector<ticket_callback> login_waiters;

  bool uses_token() const {
    return std::holds_alternative<token_credentials>(settings.credentials);
  }

  // One API request. `path_template` is only for the observer (metrics never see raw ids).
  void request(std::string method, std::string path, std::string path_template, form_params params,
               json_callback done, std::optional<multipart_body> upload = std::nullopt) {
    if (uses_token()) {
      send(std::move(method), std::move(path), std::move(path_template), std::move(params),
           std::move(upload), std::nullopt, false, std::move(done));
      return;
    }
    with_ticket([self = shared_from_this(), method = std::move(method), path = std::move(path),
                 path_template = std::move(path_template), params = std::move(params),
                 upload = std::move(upload), done = std::move(done)](result<ticket> t) mutable {
      if (!t) return done(with_context(method, path, t.error()));
      self->send(std::move(method), std::move(path), std::move(path_template), std::move(params),
                 std::move(upload), std::move(*t), true, std::move(done));
    });
  }

  void send(std::string method, std::string path, std::string path_template, form_params params,
            std::optional<multipart_body> upload, std::optional<ticket> auth, bool may_relogin,
            json_callback done) {
    transport::http_request req;
    req.method = method;
    req.target = path;
    req.headers.emplace_back("Accept", "application/json");
    const bool in_query = method == "GET" || method == "DELETE";
    if (upload) {
      req.headers.emplace_back("Content-Type", upload->content_type);
      req.body = upload->body;
    } else if (!params.empty()) {
      if (in_query) {
        req.target += "?" + encode_form(params);
      } else {
        req.headers.emplace_back("Content-Type", "application/x-www-form-urlencoded");
        req.body = encode_form(params);
      }
    }
    if (auth) {
      req.headers.emplace_back("Cookie", "PVEAuthCookie=" + auth->value);
      if (method != "GET") req.headers.emplace_back("CSRFPreventionToken", auth->csrf);
    } else if (const auto* token = std::get_if<token_credentials>(&settings.credentials)) {
      req.headers.emplace_back("Authorization",
                               "PVEAPIToken=" + token->token_id + "=" + token->secret);
    }
    auto started = steady::now();
    http->send(base, std::move(req),
               [self = shared_from_this(), method = std::move(method), path = std::move(path),
                path_template = std::move(path_template), params = std::move(params),
                upload = std::move(upload), auth = std::move(auth), may_relogin, started,
                done = std::move(done)](transport::response_result r) mutable {
                 if (self->settings.on_request) {
                   self->settings.on_request(method, path_template, r.ok() ? r->status : 0,
                                             steady::now() - started);
                 }
                 // A ticket the server no longer accepts (restart, clock skew): log in again
                 // once and repeat the request, as Proxmox's own clients do.
                 if (may_relogin && auth && r.ok() && r->status == 401) {
                   self->forget_ticket(auth->value);
                   self->request_after_relogin(std::move(method), std::move(path),
                                               std::move(path_template), std::move(params),
                                               std::move(upload), std::move(done));
                   return;
                 }
                 auto decoded = decode_reply(r);
                 // Parsed: the body goes before the caller runs with what was decoded.
                 r = transport::http_response{};
                 if (!decoded) return done(with_context(method, path, decoded.error()));
                 done(std::move(decoded));
               });
  }

  void request_after_relogin(std::string method, std::string path, std::string path_template,
                             form_params params, std::optional<multipart_body> upload,
                             json_callback done) {
    with_ticket([self = shared_from_this(), method = std::move(method), path = std::move(path),
                 path_template = std::move(path_template), params = std::move(params),
                 upload = std::move(upload), done = std::move(done)](result<ticket> t) mutable {
      if (!t) return done(with_context(method, path, t.error()));
      self->send(std::move(method), std::move(path), std::move(path_template), std::move(params),
                 std::move(upload), std::move(*t), false, std::move(done));
    });
  }

  void forget_ticket(const std::string& rejected) {
    std::lock_guard lock(mu);
    if (current && current->value == rejected) current.reset();
  }

  // Runs `then` with a fresh ticket, logging in first when there is none or it is due for
  // renewal. Concurrent callers share one login.
  void with_ticket(ticket_callback then) {
    {
      std::lock_guard lock(mu);
      if (current && steady::now() - ticket_time < settings.ticket_renew_after) {
        ticket t = *current;
        // Run outside the lock (the callback sends a request).
        boost::asio::post(io, [then = std::move(then), t = std::move(t)]() mutable { then(t); });
        return;
      }
      login_waiters.push_back(std::move(then));
      if (login_in_flight) return;
      login_in_flight = true;
    }
    login();
  }

  void login() {
    const auto& creds = std::get<password_credentials>(settings.credentials);
    transport::http_request req;
    req.method = "POST";
    req.target = "/access/ticket";
    req.headers.emplace_back("Accept", "application/json");
    req.headers.emplace_back("Content-Type", "application/x-www-form-urlencoded");
    req.body = encode_form({{"username", creds.username}, {"password", creds.password}});
    login_count.fetch_add(1);
    auto started = steady::now();
    http->send(base, std::move(req),
               [self = shared_from_this(), started](transport::response_result r) {
                 if (self->settings.on_request) {
                   self->settings.on_request("POST", "/access/ticket", r.ok() ? r->status : 0,
                                             steady::now() - started);
                 }
                 self->on_login(decode_reply(r));
               });
  }

  void on_login(result<json::value> reply) {
    result<ticket> outcome = make_error("invalid_reply", "no ticket");
    if (!reply) {
      outcome = with_context("POST", "/access/ticket", reply.error());
    } else if (reply->is_object()) {
      const auto& o = reply->as_object();
      auto* t = o.if_contains("ticket");
      auto* c = o.if_contains("CSRFPreventionToken");
      if (t != nullptr && t->is_string() && c != nullptr && c->is_string()) {
        outcome = ticket{std::string(t->as_string()), std::string(c->as_string())};
      } else {
        outcome = make_error("invalid_reply",
                             "POST /access/ticket: the reply has no ticket or CSRF token");
      }
    }
    std::vector<ticket_callback> waiters;
    {
      std::lock_guard lock(mu);
      if (outcome.ok()) {
        current = outcome.value();
        ticket_time = steady::now();
      }
      login_in_flight = false;
      waiters.swap(login_waiters);
    }
    for (auto& w : waiters) w(outcome);
  }
};

namespace {

// A typed call: request, then decode the data with `decode`; errors carry the method and path.
template <class T, class Decode>
void typed(const std::shared_ptr<client::impl>& impl, std::string method, std::string path,
           std::string path_template, form_params params, callback<T> done, Decode decode,
           std::optional<multipart_body> upload = std::nullopt) {
  impl->request(
      method, path, std::move(path_template), std::move(params),
      [done = std::move(done), decode, method, path](result<json::value> r) {
        if (!r) return done(r.error());
        result<T> decoded = decode(r.value());
        // Decoded: the document (megabytes for a listing of 4,000 VMs) goes before `done` runs.
        r = json::value();
        if (!decoded) return done(with_context(method, path, decoded.error()));
        done(std::move(decoded));
      },
      std::move(upload));
}

// For calls whose reply carries no data worth keeping.
void untyped(const std::shared_ptr<client::impl>& impl, std::string method, std::string path,
             std::string path_template, form_params params, done_callback done) {
  impl->request(method, path, std::move(path_template), std::move(params),
                [done = std::move(done)](result<json::value> r) {
                  if (!r) return done(r.error());
                  done(status{});
                });
}

result<std::optional<upid>> optional_upid(const json::value& data) {
  if (data.is_null()) return std::optional<upid>{};
  auto u = decode_upid(data);
  if (!u) return u.error();
  return std::optional<upid>(std::move(*u));
}

}  // namespace

client::client(boost::asio::io_context& io, client_settings settings)
    : impl_(std::make_shared<impl>(io, std::move(settings))) {}

client::~client() {
  impl_->http->close();
}

void client::close() {
  impl_->http->close();
}

std::size_t client::logins() const {
  return impl_->login_count.load();
}

void client::version(callback<version_info> done) {
  typed<version_info>(impl_, "GET", "/version", "/version", {}, std::move(done), decode_version);
}

void client::cluster_resources(std::optional<resource_type> type,
                               callback<std::vector<cluster_resource>> done) {
  form_params p;
  if (type) {
    p.emplace_back("type", *type == resource_type::vm     ? "vm"
                           : *type == resource_type::node ? "node"
                                                          : "storage");
  }
  typed<std::vector<cluster_resource>>(impl_, "GET", "/cluster/resources", "/cluster/resources",
                                       std::move(p), std::move(done), decode_cluster_resources);
}

void client::node_status(const std::string& node, callback<kp::proxmox::node_status> done) {
  typed<kp::proxmox::node_status>(impl_, "GET", "/nodes/" + seg(node) + "/status",
                                  "/nodes/{node}/status", {}, std::move(done), decode_node_status);
}

void client::node_network(const std::string& node, callback<std::vector<network_interface>> done) {
  typed<std::vector<network_interface>>(impl_, "GET", "/nodes/" + seg(node) + "/network",
                                        "/nodes/{node}/network", {}, std::move(done),
                                        decode_network);
}

void client::pci_mappings(callback<std::vector<pci_resource_mapping>> done) {
  typed<std::vector<pci_resource_mapping>>(impl_, "GET", "/cluster/mapping/pci",
                                           "/cluster/mapping/pci", {}, std::move(done),
                                           decode_pci_mappings);
}

void client::next_vmid(std::optional<std::uint32_t> wanted, callback<std::uint32_t> done) {
  form_params p;
  if (wanted) p.emplace_back("vmid", std::to_string(*wanted));
  typed<std::uint32_t>(impl_, "GET", "/cluster/nextid", "/cluster/nextid", std::move(p),
                       std::move(done), decode_vmid);
}

void client::clone_vm(const clone_request& r, callback<upid> done) {
  form_params p{{"newid", std::to_string(r.new_vmid)}};
  if (!r.name.empty()) p.emplace_back("name", r.name);
  if (!r.description.empty()) p.emplace_back("description", r.description);
  p.emplace_back("full", bit(r.full));
  if (!r.target.empty()) p.emplace_back("target", r.target);
  if (!r.storage.empty() && r.full) p.emplace_back("storage", r.storage);
  if (!r.pool.empty()) p.emplace_back("pool", r.pool);
  typed<upid>(impl_, "POST", vm_path(r.node, r.source_vmid) + "/clone",
              "/nodes/{node}/qemu/{vmid}/clone", std::move(p), std::move(done), decode_upid);
}

void client::create_vm(const create_vm_request& r, callback<upid> done) {
  form_params p{{"vmid", std::to_string(r.vmid)}};
  for (const auto& kv : r.config) p.push_back(kv);
  typed<upid>(impl_, "POST", "/nodes/" + seg(r.node) + "/qemu", "/nodes/{node}/qemu", std::move(p),
              std::move(done), decode_upid);
}

void client::convert_to_template(const std::string& node, std::uint32_t vmid, callback<upid> done) {
  typed<upid>(impl_, "POST", vm_path(node, vmid) + "/template",
              "/nodes/{node}/qemu/{vmid}/template", {}, std::move(done), decode_upid);
}

void client::download_url(const download_url_request& r, callback<upid> done) {
  form_params p{{"content", r.content}, {"filename", r.filename}, {"url", r.url}};
  if (!r.checksum.empty()) {
    p.emplace_back("checksum", r.checksum);
    p.emplace_back("checksum-algorithm",
                   r.checksum_algorithm.empty() ? "sha256" : r.checksum_algorithm);
  }
  p.emplace_back("verify-certificates", bit(r.verify_certificates));
  typed<upid>(
      impl_, "POST", "/nodes/" + seg(r.node) + "/storage/" + seg(r.storage) + "/download-url",
      "/nodes/{node}/storage/{storage}/download-url", std::move(p), std::move(done), decode_upid);
}

void client::vm_config(const std::string& node, std::uint32_t vmid,
                       callback<kp::proxmox::vm_config> done) {
  typed<kp::proxmox::vm_config>(impl_, "GET", vm_path(node, vmid) + "/config",
                                "/nodes/{node}/qemu/{vmid}/config", {}, std::move(done),
                                [](const json::value& data) -> result<kp::proxmox::vm_config> {
                                  auto raw = decode_text_object(data);
                                  if (!raw) return raw.error();
                                  return parse_vm_config(*raw);
                                });
}

namespace {
// Refusals decided here still complete on an io thread, never inside the caller's own call, so
// an actor's handler is not re-entered.
template <class Callback>
void fail_on_io(boost::asio::io_context& io, Callback done, kp::error e) {
  boost::asio::post(io,
                    [done = std::move(done), e = std::move(e)]() mutable { done(std::move(e)); });
}

// The task answer wait as Proxmox takes it (whole seconds, 1-30); none when 0.
std::optional<std::string> answer_wait_seconds(const client_settings& s) {
  auto n = std::clamp<std::int64_t>(s.task_answer_wait.count(), 0, 30);
  if (n == 0) return std::nullopt;
  return std::to_string(n);
}

kp::error refused_root_only() {
  return make_error("forbidden",
                    "the change sets a root-only key (affinity, args, hookscript or lock); API "
                    "tokens cannot, use ticket authentication as root@pam");
}

// The form of a config write (POST or PUT), or why it is refused before any request: a
// root-only key over an API token, or nothing to change.
result<form_params> config_write_form(bool uses_token, const vm_config_update& update) {
  if (uses_token && update.needs_root()) return refused_root_only();
  auto p = to_form(update);
  if (p.empty()) return make_error("invalid_parameter", "no options specified");
  return p;
}
}  // namespace

void client::update_vm_config(const std::string& node, std::uint32_t vmid,
                              const vm_config_update& update, callback<std::optional<upid>> done) {
  auto p = config_write_form(impl_->uses_token(), update);
  if (!p) return fail_on_io(impl_->io, std::move(done), p.error());
  if (auto wait = answer_wait_seconds(impl_->settings)) p->emplace_back("background_delay", *wait);
  typed<std::optional<upid>>(impl_, "POST", vm_path(node, vmid) + "/config",
                             "/nodes/{node}/qemu/{vmid}/config", std::move(*p), std::move(done),
                             optional_upid);
}

void client::put_vm_config(const std::string& node, std::uint32_t vmid,
                           const vm_config_update& update, done_callback done) {
  auto p = config_write_form(impl_->uses_token(), update);
  if (!p) return fail_on_io(impl_->io, std::move(done), p.error());
  untyped(impl_, "PUT", vm_path(node, vmid) + "/config", "/nodes/{node}/qemu/{vmid}/config",
          std::move(*p), std::move(done));
}

void client::resize_disk(const std::string& node, std::uint32_t vmid, const std::string& disk,
                         const std::string& size, callback<std::optional<upid>> done) {
  typed<std::optional<upid>>(impl_, "PUT", vm_path(node, vmid) + "/resize",
                             "/nodes/{node}/qemu/{vmid}/resize", {{"disk", disk}, {"size", size}},
                             std::move(done), optional_upid);
}

void client::start_vm(const std::string& node, std::uint32_t vmid, callback<upid> done) {
  typed<upid>(impl_, "POST", vm_path(node, vmid) + "/status/start",
              "/nodes/{node}/qemu/{vmid}/status/start", {}, std::move(done), decode_upid);
}

void client::stop_vm(const std::string& node, std::uint32_t vmid, callback<upid> done) {
  typed<upid>(impl_, "POST", vm_path(node, vmid) + "/status/stop",
              "/nodes/{node}/qemu/{vmid}/status/stop", {}, std::move(done), decode_upid);
}

void client::shutdown_vm(const std::string& node, std::uint32_t vmid,
                         std::optional<unsigned> timeout_seconds, bool force_stop,
                         callback<upid> done) {
  form_params p;
  if (timeout_seconds) p.emplace_back("timeout", std::to_string(*timeout_seconds));
  if (force_stop) p.emplace_back("forceStop", "1");
  typed<upid>(impl_, "POST", vm_path(node, vmid) + "/status/shutdown",
              "/nodes/{node}/qemu/{vmid}/status/shutdown", std::move(p), std::move(done),
              decode_upid);
}

void client::vm_status(const std::string& node, std::uint32_t vmid,
                       callback<kp::proxmox::vm_status> done) {
  typed<kp::proxmox::vm_status>(impl_, "GET", vm_path(node, vmid) + "/status/current",
                                "/nodes/{node}/qemu/{vmid}/status/current", {}, std::move(done),
                                decode_vm_status);
}

void client::delete_vm(const std::string& node, std::uint32_t vmid, bool purge,
                       callback<upid> done) {
  form_params p;
  if (purge) {
    p.emplace_back("purge", "1");
    p.emplace_back("destroy-unreferenced-disks", "1");
  }
  typed<upid>(impl_, "DELETE", vm_path(node, vmid), "/nodes/{node}/qemu/{vmid}", std::move(p),
              std::move(done), decode_upid);
}

void client::storages(const std::string& node, callback<std::vector<storage_info>> done) {
  typed<std::vector<storage_info>>(impl_, "GET", "/nodes/" + seg(node) + "/storage",
                                   "/nodes/{node}/storage", {}, std::move(done), decode_storages);
}

void client::storage_content(const std::string& node, const std::string& storage,
                             const std::string& content,
                             callback<std::vector<kp::proxmox::storage_content>> done) {
  form_params p;
  if (!content.empty()) p.emplace_back("content", content);
  typed<std::vector<kp::proxmox::storage_content>>(
      impl_, "GET", "/nodes/" + seg(node) + "/storage/" + seg(storage) + "/content",
      "/nodes/{node}/storage/{storage}/content", std::move(p), std::move(done),
      decode_storage_content);
}

void client::upload(const iso_upload& u, callback<upid> done) {
  // Proxmox reads the fields in order and wants `content` (and any checksum) before the file.
  std::vector<multipart_part> parts;
  parts.push_back({"content", std::nullopt, "", u.content});
  if (!u.checksum.empty()) {
    parts.push_back({"checksum-algorithm", std::nullopt, "",
                     u.checksum_algorithm.empty() ? "sha256" : u.checksum_algorithm});
    parts.push_back({"checksum", std::nullopt, "", u.checksum});
  }
  parts.push_back({"filename", u.filename, "application/octet-stream", u.data});
  typed<upid>(impl_, "POST", "/nodes/" + seg(u.node) + "/storage/" + seg(u.storage) + "/upload",
              "/nodes/{node}/storage/{storage}/upload", {}, std::move(done), decode_upid,
              encode_multipart(parts));
}

void client::delete_volume(const std::string& node, const std::string& storage,
                           const std::string& volid, callback<std::optional<upid>> done) {
  form_params p;
  if (auto wait = answer_wait_seconds(impl_->settings)) p.emplace_back("delay", *wait);
  typed<std::optional<upid>>(
      impl_, "DELETE",
      "/nodes/" + seg(node) + "/storage/" + seg(storage) + "/content/" + percent_encode(volid),
      "/nodes/{node}/storage/{storage}/content/{volume}", std::move(p), std::move(done),
      optional_upid);
}

void client::firewall_options(const std::string& node, std::uint32_t vmid,
                              callback<kp::proxmox::firewall_options> done) {
  typed<kp::proxmox::firewall_options>(impl_, "GET", vm_path(node, vmid) + "/firewall/options",
                                       "/nodes/{node}/qemu/{vmid}/firewall/options", {},
                                       std::move(done), decode_firewall_options);
}

void client::set_firewall_options(const std::string& node, std::uint32_t vmid,
                                  const kp::proxmox::firewall_options& o, done_callback done) {
  form_params p;
  if (o.enable) p.emplace_back("enable", bit(*o.enable));
  if (o.dhcp) p.emplace_back("dhcp", bit(*o.dhcp));
  if (o.ipfilter) p.emplace_back("ipfilter", bit(*o.ipfilter));
  if (o.macfilter) p.emplace_back("macfilter", bit(*o.macfilter));
  if (!o.policy_in.empty()) p.emplace_back("policy_in", o.policy_in);
  if (!o.policy_out.empty()) p.emplace_back("policy_out", o.policy_out);
  untyped(impl_, "PUT", vm_path(node, vmid) + "/firewall/options",
          "/nodes/{node}/qemu/{vmid}/firewall/options", std::move(p), std::move(done));
}

void client::firewall_rules(const std::string& node, std::uint32_t vmid,
                            callback<std::vector<firewall_rule>> done) {
  typed<std::vector<firewall_rule>>(impl_, "GET", vm_path(node, vmid) + "/firewall/rules",
                                    "/nodes/{node}/qemu/{vmid}/firewall/rules", {}, std::move(done),
                                    decode_firewall_rules);
}

void client::add_firewall_rule(const std::string& node, std::uint32_t vmid,
                               const firewall_rule& rule, done_callback done) {
  untyped(impl_, "POST", vm_path(node, vmid) + "/firewall/rules",
          "/nodes/{node}/qemu/{vmid}/firewall/rules", rule_params(rule), std::move(done));
}

void client::delete_firewall_rule(const std::string& node, std::uint32_t vmid, unsigned pos,
                                  done_callback done) {
  untyped(impl_, "DELETE", vm_path(node, vmid) + "/firewall/rules/" + std::to_string(pos),
          "/nodes/{node}/qemu/{vmid}/firewall/rules/{pos}", {}, std::move(done));
}

void client::firewall_groups(callback<std::vector<firewall_group>> done) {
  typed<std::vector<firewall_group>>(impl_, "GET", "/cluster/firewall/groups",
                                     "/cluster/firewall/groups", {}, std::move(done),
                                     decode_firewall_groups);
}

void client::create_firewall_group(const std::string& group, const std::string& comment,
                                   done_callback done) {
  form_params p{{"group", group}};
  if (!comment.empty()) p.emplace_back("comment", comment);
  untyped(impl_, "POST", "/cluster/firewall/groups", "/cluster/firewall/groups", std::move(p),
          std::move(done));
}

void client::add_firewall_group_rule(const std::string& group, const firewall_rule& rule,
                                     done_callback done) {
  untyped(impl_, "POST", "/cluster/firewall/groups/" + seg(group),
          "/cluster/firewall/groups/{group}", rule_params(rule), std::move(done));
}

void client::pools(callback<std::vector<pool_info>> done) {
  typed<std::vector<pool_info>>(impl_, "GET", "/pools", "/pools", {}, std::move(done),
                                decode_pools);
}

void client::pool(const std::string& poolid, callback<pool_info> done) {
  typed<pool_info>(impl_, "GET", "/pools/" + seg(poolid), "/pools/{poolid}", {}, std::move(done),
                   decode_pool);
}

void client::create_pool(const std::string& poolid, const std::string& comment,
                         done_callback done) {
  form_params p{{"poolid", poolid}};
  if (!comment.empty()) p.emplace_back("comment", comment);
  untyped(impl_, "POST", "/pools", "/pools", std::move(p), std::move(done));
}

void client::set_pool_member(const std::string& poolid, std::uint32_t vmid, bool member,
                             done_callback done) {
  form_params p{{"vms", std::to_string(vmid)}};
  if (!member) p.emplace_back("delete", "1");
  untyped(impl_, "PUT", "/pools/" + encode_path_segment(poolid), "/pools/{poolid}", std::move(p),
          std::move(done));
}

void client::agent_ping(const std::string& node, std::uint32_t vmid, done_callback done) {
  untyped(impl_, "POST", vm_path(node, vmid) + "/agent/ping",
          "/nodes/{node}/qemu/{vmid}/agent/ping", {}, std::move(done));
}

void client::agent_exec(const std::string& node, std::uint32_t vmid,
                        const std::vector<std::string>& command, const std::string& input_data,
                        callback<int> done) {
  form_params p;
  for (const auto& arg : command) p.emplace_back("command", arg);  // an array: repeated keys
  if (!input_data.empty()) p.emplace_back("input-data", input_data);
  typed<int>(impl_, "POST", vm_path(node, vmid) + "/agent/exec",
             "/nodes/{node}/qemu/{vmid}/agent/exec", std::move(p), std::move(done),
             decode_exec_pid);
}

void client::agent_exec_status(const std::string& node, std::uint32_t vmid, int pid,
                               callback<kp::proxmox::agent_exec_status> done) {
  typed<kp::proxmox::agent_exec_status>(impl_, "GET", vm_path(node, vmid) + "/agent/exec-status",
                                        "/nodes/{node}/qemu/{vmid}/agent/exec-status",
                                        {{"pid", std::to_string(pid)}}, std::move(done),
                                        decode_exec_status);
}

void client::task_status(const upid& task, callback<kp::proxmox::task_status> done) {
  // The task runs on (and is polled at) the node named in its UPID.
  typed<kp::proxmox::task_status>(
      impl_, "GET", "/nodes/" + seg(task.node) + "/tasks/" + seg(task.text) + "/status",
      "/nodes/{node}/tasks/{upid}/status", {}, std::move(done), decode_task_status);
}

void client::cluster_tasks(callback<std::vector<kp::proxmox::task_status>> done) {
  typed<std::vector<kp::proxmox::task_status>>(impl_, "GET", "/cluster/tasks", "/cluster/tasks", {},
                                               std::move(done), decode_cluster_tasks);
}

void client::wait_task(const upid& task, task_wait_options options,
                       callback<kp::proxmox::task_status> done) {
  std::weak_ptr<impl> weak = impl_;
  wait_for_task(
      impl_->io,
      [weak, task](task_status_callback reply) {
        auto self = weak.lock();
        if (!self) return reply(make_error("cancelled", "the Proxmox client is gone"));
        typed<kp::proxmox::task_status>(
            self, "GET", "/nodes/" + seg(task.node) + "/tasks/" + seg(task.text) + "/status",
            "/nodes/{node}/tasks/{upid}/status", {}, std::move(reply), decode_task_status);
      },
      options, std::move(done));
}

void client::call(const std::string& method, const std::string& path, const form_params& params,
                  callback<std::string> done) {
  typed<std::string>(
      impl_, method, path, "(raw)", params, std::move(done),
      [](const json::value& data) { return result<std::string>(json::serialize(data)); });
}

}  // namespace kp::proxmox
