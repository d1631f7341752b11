#include "core/node_overlay/price_change.hpp"

#include <algorithm>
#include <cctype>

#include "core/parse_number.hpp"

namespace kp::overlays {
namespace {

// Digits with at most one '.', as the CRD patterns allow: "3", "0.5", and for adjustments
// also ".5" (their pattern is `\d*\.?\d+`). No exponent, no sign, no spaces.
bool plain_decimal(std::string_view s, bool leading_dot_ok) {
  if (s.empty() || s.back() == '.') return false;
  if (s.front() == '.' && !leading_dot_ok) return false;
  int dots = 0;
  for (char c : s) {
    if (c == '.') {
      if (++dots > 1) return false;
    } else if (!std::isdigit(static_cast<unsigned char>(c))) {
      return false;
    }
  }
  return true;
}

error invalid(std::string_view field, std::string_view text, std::string_view why) {
  std::string shown(text.substr(0, 64));
  return make_error("invalid_price",
                    std::string(field) + ": \"" + shown + "\" " + std::string(why));
}

}  // namespace

result<price_change> parse_price(std::string_view text) {
  if (!plain_decimal(text, false)) return invalid("spec.price", text, "is not a decimal price");
  auto v = parse_decimal(text);
  if (!v) return invalid("spec.price", text, "is not a decimal price");
  return price_change{price_change::kind::set, *v};
}

result<price_change> parse_price_adjustment(std::string_view text) {
  constexpr std::string_view field = "spec.priceAdjustment";
  if (text.size() < 2 || (text.front() != '+' && text.front() != '-'))
    return invalid(field, text, "needs a sign: +N, -N, +N% or -N%");
  bool negative = text.front() == '-';
  bool percent = text.back() == '%';
  auto number = text.substr(1, text.size() - 1 - (percent ? 1 : 0));
  if (!plain_decimal(number, true)) return invalid(field, text, "is not a signed decimal");
  // from_chars does not take a leading '.', so read ".5" as "0.5".
  std::string digits = number.front() == '.' ? "0" + std::string(number) : std::string(number);
  auto v = parse_decimal(digits);
  if (!v) return invalid(field, text, "is not a signed decimal");
  if (percent && negative && *v > 100) return invalid(field, text, "lowers a price by over 100%");
  double amount = negative ? -*v : *v;
  return price_change{percent ? price_change::kind::percent : price_change::kind::add, amount};
}

double adjusted_price(double price, const price_change& change) {
  switch (change.how) {
    case price_change::kind::set:
      return change.amount;
    case price_change::kind::add:
      return std::max(0.0, price + change.amount);
    case price_change::kind::percent:
      return std::max(0.0, price * (1 + change.amount / 100));
  }
  return price;
}

}  // namespace kp::overlays
