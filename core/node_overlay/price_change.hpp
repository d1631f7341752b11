#pragma once
// A NodeOverlay's change to an offering's price: `price` sets it ("0.25"), `priceAdjustment`
// moves it by an amount ("+0.5", "-1") or a percentage ("+10%", "-25%", at most "-100%").
// The texts follow the CRD's patterns; anything else is an "invalid_price" error naming the
// field, so a bad object is refused rather than read half-way.
#include <string>
#include <string_view>

#include "core/result.hpp"

namespace kp::overlays {

struct price_change {
  enum class kind : unsigned char { set, add, percent };
  kind how = kind::set;
  double amount = 0;  // the new price, the signed amount, or the signed percentage
  friend bool operator==(const price_change&, const price_change&) = default;
};

// `price`: digits with an optional fraction ("3", "0.125").
result<price_change> parse_price(std::string_view text);
// `priceAdjustment`: a sign, digits with an optional fraction, and an optional '%'.
result<price_change> parse_price_adjustment(std::string_view text);

// The offering's new price; an adjustment never makes it negative (Karpenter clamps at 0).
double adjusted_price(double price, const price_change& change);

}  // namespace kp::overlays
