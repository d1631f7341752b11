#include "cmd/karpenter-proxmox/heap_limits.hpp"

#include <malloc.h>

namespace kp::cmd {

void limit_heap_growth() {
  constexpr int arenas = 2;
  mallopt(M_ARENA_MAX, arenas);
}

}  // namespace kp::cmd
