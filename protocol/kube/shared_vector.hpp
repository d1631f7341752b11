#pragma once
// The API objects use the scheduling model's copy-on-write vector (core/model/shared_vector.hpp):
// one type for both, so a part translated once is shared by every model made from it.
#include "core/model/shared_vector.hpp"

namespace kp::kube {
using model::shared_vector;
}  // namespace kp::kube
