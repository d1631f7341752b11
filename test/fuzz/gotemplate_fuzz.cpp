// Go templates from any text, parsed and rendered over cloud-init data the way the NodeClaim
// actor renders user-data, on a thread with a small stack: a template that recurses once per
// input character overflows it here and crashes the target, where the controller's 8 MiB
// stacks would only hide it until a longer input. Execution is bounded (steps, output), so
// every input finishes quickly; errors are values.
#include <pthread.h>
#include <signal.h>

#include <array>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <string>

#include "core/cloudinit/template_data.hpp"
#include "core/gotemplate/template_set.hpp"
#include "test/fuzz/fuzz_check.hpp"

namespace {

#if defined(__SANITIZE_ADDRESS__)
#define KP_FUZZ_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KP_FUZZ_ASAN 1
#endif
#endif

#ifdef KP_FUZZ_ASAN
constexpr std::size_t stack_bytes = 4u << 20;  // ASan's frames are several times larger
#else
constexpr std::size_t stack_bytes = 1u << 20;
#endif

const kp::gotemplate::value& data() {
  static const kp::gotemplate::value values = [] {
    kp::cloudinit::cloud_init_inputs in;
    in.hostname = "default-abcde";
    in.instance_id = "104";
    in.instance_type = "t1.2VCPU-6GB";
    in.provider_id = "proxmox://region-1/104";
    in.region = "region-1";
    in.zone = "pve1";
    in.tags = {"k8s", "worker"};
    in.interfaces.push_back({});
    in.interfaces.back().name = "eth0";
    in.interfaces.back().address4 = {"10.0.0.5/24"};
    in.cpus = 2;
    in.memory_bytes = std::int64_t{6} << 30;
    in.kubernetes_version = "v1.32.0";
    in.endpoint = "https://10.0.0.1:6443";
    in.node_labels = {{"team", "ml"}};
    in.values = {{"key", "value"}};
    return kp::cloudinit::user_data_values(in);
  }();
  return values;
}

void render_one(std::string_view text) {
  auto set = kp::gotemplate::template_set::parse("user-data", text);
  if (!set) return;
  kp::gotemplate::execution_limits limits;
  limits.max_steps = 200'000;
  limits.max_output_bytes = 1u << 20;
  limits.max_function_bytes = 4u << 20;  // the default's ratio to the output limit
  set->set_limits(limits);
  auto out = set->execute(data());
  if (out) kp::fuzz::check(out->size() <= limits.max_output_bytes + 4096, "output is bounded");
}

// Renders one input. Without ASan the thread gets its own signal stack, so the replay driver's
// crash handler still runs when this thread's small stack overflows (an alternate stack is per
// thread). ASan gives every thread one of its own and reports the overflow there; replacing it
// breaks ASan's bookkeeping of the thread's stacks.
//
// One render thread serves the whole run: a thread per input cost more than most renders, since
// ASan poisons and unpoisons the whole stack of every thread it starts and ends.
class render_thread {
 public:
  render_thread() {
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, stack_bytes);
    if (pthread_create(&thread_, &attr, &render_thread::loop, this) != 0) {
      kp::fuzz::broken("pthread_create");
    }
    pthread_attr_destroy(&attr);
  }

  void render(std::string_view text) {
    std::unique_lock lock(mutex_);
    text_ = text;
    pending_ = true;
    changed_.notify_all();
    changed_.wait(lock, [this] { return !pending_; });
  }

 private:
  static void* loop(void* self) {
#ifndef KP_FUZZ_ASAN
    static thread_local std::array<char, 1 << 16> alternate;
    stack_t ss{};
    ss.ss_sp = alternate.data();
    ss.ss_size = alternate.size();
    ::sigaltstack(&ss, nullptr);
#endif
    auto& me = *static_cast<render_thread*>(self);
    std::unique_lock lock(me.mutex_);
    for (;;) {
      me.changed_.wait(lock, [&] { return me.pending_; });
      render_one(me.text_);
      me.pending_ = false;
      me.changed_.notify_all();
    }
    return nullptr;
  }

  pthread_t thread_{};
  std::mutex mutex_;
  std::condition_variable changed_;
  std::string_view text_;
  bool pending_ = false;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
  (void)data();  // built once, on the main thread
  // Never destroyed: the render thread waits for input until the process ends.
  static auto& thread = *new render_thread();
  thread.render(kp::fuzz::text_of(bytes, size));
  return 0;
}
