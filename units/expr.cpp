#include "units/expr.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "units/suggest.hpp"

namespace infracalc {

namespace {

enum class Tok : unsigned char { number, symbol, op, lparen, rparen, comma, arrow, end };

struct Token {
  Tok kind;
  std::string text;
  std::size_t pos;
};

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_sym_start(char c) {
  const auto u = static_cast<unsigned char>(c);
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '$' || c == '%' || u >= 0x80;
}
bool is_sym_byte(char c) { return is_sym_start(c) || is_digit(c); }

Expected<std::vector<Token>> tokenize(std::string_view s) {
  std::vector<Token> out;
  std::size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (c == ' ' || c == '\t') {
      ++i;
      continue;
    }
    const std::size_t start = i;
    if (is_digit(c) || (c == '.' && i + 1 < s.size() && is_digit(s[i + 1]))) {
      while (i < s.size() && (is_digit(s[i]) || s[i] == '.' || s[i] == '_' ||
                              ((s[i] == 'e' || s[i] == 'E') && i + 1 < s.size() &&
                               (is_digit(s[i + 1]) || ((s[i + 1] == '-' || s[i + 1] == '+') && i + 2 < s.size() &&
                                                       is_digit(s[i + 2])))))) {
        if (s[i] == 'e' || s[i] == 'E') ++i;  // the sign or first digit of the exponent
        ++i;
      }
      out.push_back({Tok::number, std::string(s.substr(start, i - start)), start});
      continue;
    }
    if (c == '-' && i + 1 < s.size() && s[i + 1] == '>') {
      out.push_back({Tok::arrow, "->", start});
      i += 2;
      continue;
    }
    // UTF-8 operators: × ÷ − ·
    if (s.substr(i, 2) == "\u00D7" || s.substr(i, 2) == "\u00B7") {
      out.push_back({Tok::op, "*", start});
      i += 2;
      continue;
    }
    if (s.substr(i, 2) == "\u00F7") {
      out.push_back({Tok::op, "/", start});
      i += 2;
      continue;
    }
    if (s.substr(i, 3) == "\u2212") {
      out.push_back({Tok::op, "-", start});
      i += 3;
      continue;
    }
    if (c == '+' || c == '-' || c == '*' || c == '/' || c == '^') {
      out.push_back({Tok::op, std::string(1, c), start});
      ++i;
      continue;
    }
    if (c == '(') {
      out.push_back({Tok::lparen, "(", start});
      ++i;
      continue;
    }
    if (c == ')') {
      out.push_back({Tok::rparen, ")", start});
      ++i;
      continue;
    }
    if (c == ',') {
      out.push_back({Tok::comma, ",", start});
      ++i;
      continue;
    }
    if (is_sym_start(c)) {
      // '$' stands alone so that "$2.50" is '$' then a number.
      if (c == '$') {
        out.push_back({Tok::symbol, "$", start});
        ++i;
        continue;
      }
      while (i < s.size() && is_sym_byte(s[i]) && s[i] != '$') ++i;
      out.push_back({Tok::symbol, std::string(s.substr(start, i - start)), start});
      continue;
    }
    return Error{"unexpected character '" + std::string(1, c) + "' at position " + std::to_string(i + 1),
                 "expressions use numbers with units, + - * / ^, parentheses and min max ceil floor sqrt abs"};
  }
  out.push_back({Tok::end, "", s.size()});
  return out;
}

constexpr std::string_view kFunctions[] = {"min", "max", "ceil", "floor", "sqrt", "abs", "round"};

bool is_function(std::string_view name) {
  for (auto f : kFunctions)
    if (f == name) return true;
  return false;
}

class Evaluator {
 public:
  explicit Evaluator(std::vector<Token> toks) : t_(std::move(toks)) {}

  CalcResult run() {
    CalcResult r;
    r.value = sum();
    if (peek().kind == Tok::arrow) {
      ++i_;
      std::string unit_text;
      const std::size_t from = peek().pos;
      while (peek().kind != Tok::end) ++i_;
      (void)from;
      unit_text = std::string(rest_text_);
      auto u = parse_unit(unit_text);
      if (!u) throw UserError{{"after '->': " + u.error().message, u.error().hint}};
      r.target = std::move(u).value();
    }
    if (peek().kind == Tok::comma)
      throw UserError{{"unexpected ',' at position " + std::to_string(peek().pos + 1),
                       "commas separate function arguments only; write 3350 or 3_350, not 3,350"}};
    if (peek().kind != Tok::end)
      throw UserError{{"unexpected '" + peek().text + "' at position " + std::to_string(peek().pos + 1),
                       "check the operators between values"}};
    r.binary = binary_;
    return r;
  }

  void set_source(std::string_view src) { src_ = src; }
  void set_arrow_rest(std::string_view rest) { rest_text_ = rest; }

 private:
  const Token& peek(std::size_t k = 0) const { return t_[std::min(i_ + k, t_.size() - 1)]; }
  bool is_op(std::string_view op, std::size_t k = 0) const { return peek(k).kind == Tok::op && peek(k).text == op; }

  Quantity sum() {
    Quantity acc = product();
    while (is_op("+") || is_op("-")) {
      const bool plus = peek().text == "+";
      ++i_;
      Quantity r = product();
      acc = plus ? add(acc, r) : subtract(acc, r);
    }
    return acc;
  }

  Quantity product() {
    Quantity acc = unary();
    while (is_op("*") || is_op("/")) {
      const bool mul = peek().text == "*";
      ++i_;
      Quantity r = unary();
      acc = mul ? multiply(acc, r) : divide(acc, r);
    }
    return acc;
  }

  Quantity unary() {
    if (is_op("-")) {
      ++i_;
      Quantity q = unary();
      q.value = -q.value;
      return q;
    }
    if (is_op("+")) {
      ++i_;
      return unary();
    }
    return pow_expr();
  }

  Quantity pow_expr() {
    Quantity base = atom();
    if (is_op("^")) {
      ++i_;
      Quantity e = unary();
      if (!e.dim.dimensionless() || e.point)
        throw UserError{{"an exponent must be a plain number", "write e.g. 2^10 or (3 m)^2"}};
      return power(base, e.value);
    }
    return base;
  }

  // Collects a unit written right after a number: symbols joined by / or * (and ^n), stopping before a
  // number, a parenthesis or a function call, so "140 GB / (3.35 TB/s)" reads as (140 GB) / (3.35 TB/s).
  std::string unit_after_number() {
    std::string text;
    auto take_symbol = [&]() {
      text += peek().text;
      ++i_;
      if (is_op("^") && peek(1).kind == Tok::number) {
        text += "^" + peek(1).text;
        i_ += 2;
      } else if (is_op("^") && peek(1).kind == Tok::op && peek(1).text == "-" && peek(2).kind == Tok::number) {
        text += "^-" + peek(2).text;
        i_ += 3;
      }
    };
    if (peek().kind != Tok::symbol || peek().text == "$" || is_function_call(0)) return text;
    take_symbol();
    while ((is_op("/") || is_op("*")) && peek(1).kind == Tok::symbol && peek(1).text != "$" && !is_function_call(1)) {
      text += peek().text;
      ++i_;
      take_symbol();
    }
    return text;
  }

  bool is_function_call(std::size_t k) const {
    return peek(k).kind == Tok::symbol && is_function(peek(k).text) && peek(k + 1).kind == Tok::lparen;
  }

  double number_token() {
    std::string text = peek().text;
    const std::size_t pos = peek().pos;
    ++i_;
    // An attached count suffix: 128k, 8Ki.
    if (peek().kind == Tok::symbol && peek().pos == pos + text.size()) {
      const std::string& s = peek().text;
      static constexpr std::pair<std::string_view, double> kCounts[] = {
          {"k", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"P", 1e15}, {"Ki", 1024.0}, {"Mi", 1048576.0},
          {"Gi", 1073741824.0}, {"Ti", 1099511627776.0}};
      for (auto [suffix, f] : kCounts) {
        if (s == suffix) {
          ++i_;
          if (suffix.back() == 'i') binary_ = true;
          auto q = parse_quantity(text);
          if (!q) throw UserError{q.error()};
          return q->value * f;
        }
      }
    }
    auto q = parse_quantity(text);
    if (!q) throw UserError{q.error()};
    return q->value;
  }

  Quantity with_unit(double value) {
    const std::string unit_text = unit_after_number();
    if (unit_text.empty()) return Quantity::number(value);
    auto u = parse_unit(unit_text);
    if (!u) throw UserError{u.error()};
    binary_ = binary_ || u->binary;
    Quantity q{value * u->factor + u->offset, u->dim, u->point};
    if (!std::isfinite(q.value)) throw UserError{{"'" + unit_text + "' value is out of range", ""}};
    return q;
  }

  Quantity atom() {
    const Token& t = peek();
    if (t.kind == Tok::number) {
      const double v = number_token();
      return with_unit(v);
    }
    if (t.kind == Tok::symbol && t.text == "$") {
      ++i_;
      if (peek().kind != Tok::number) throw UserError{{"'$' must be followed by an amount", "write e.g. $2.50/h"}};
      const double v = number_token();
      if (peek().kind == Tok::symbol && (peek().text == "B" || peek().text == "bn"))
        throw UserError{{"'$" + std::to_string(v) + peek().text + "' is not an amount infracalc reads", "for billions write $1.8e9"}};
      Quantity q{v, dims::currency, false};
      // "$2.50/h": a price per unit binds like a unit.
      if (is_op("/") && peek(1).kind == Tok::symbol && peek(1).text != "$" && !is_function_call(1)) {
        ++i_;
        Quantity per = with_unit(1.0);
        q = divide(q, per);
      }
      return q;
    }
    if (t.kind == Tok::lparen) {
      ++i_;
      Quantity q = sum();
      expect_rparen();
      return q;
    }
    if (t.kind == Tok::symbol) {
      if (is_function_call(0)) return call();
      if (is_function(t.text))
        throw UserError{{"'" + t.text + "' is a function", "call it with parentheses, e.g. " + t.text + "(x, y)"}};
      return with_unit(1.0);  // a bare unit is one of it: "GB / s"
    }
    if (t.kind == Tok::end) throw UserError{{"the expression ends too early", "complete the expression"}};
    throw UserError{{"unexpected '" + t.text + "' at position " + std::to_string(t.pos + 1), "check the expression"}};
  }

  void expect_rparen() {
    if (peek().kind != Tok::rparen) throw UserError{{"missing ')'", "close every parenthesis"}};
    ++i_;
  }

  Quantity call() {
    const std::string name = peek().text;
    i_ += 2;  // name and '('
    std::vector<Quantity> args;
    if (peek().kind != Tok::rparen) {
      args.push_back(sum());
      while (peek().kind == Tok::comma) {
        ++i_;
        args.push_back(sum());
      }
    }
    expect_rparen();
    auto need = [&](std::size_t n) {
      if (args.size() != n)
        throw UserError{{name + "() takes " + std::to_string(n) + " argument" + (n == 1 ? "" : "s") + ", got " +
                             std::to_string(args.size()),
                         ""}};
    };
    if (name == "min" || name == "max") {
      if (args.size() < 2) throw UserError{{name + "() takes at least 2 arguments", ""}};
      Quantity best = args[0];
      for (std::size_t k = 1; k < args.size(); ++k) {
        (void)subtract(args[k], best);  // dimension check
        if ((name == "min") == (args[k].value < best.value)) best = args[k];
      }
      return best;
    }
    need(1);
    Quantity a = args[0];
    if (name == "sqrt") {
      for (auto x : a.dim.e)
        if (x % 2 != 0)
          throw UserError{{"sqrt() of " + dim_words(a.dim) + " has no whole-unit result", "square the units first"}};
      if (a.value < 0) throw UserError{{"sqrt() of a negative value", ""}};
      Dim d;
      for (std::size_t k = 0; k < kBaseCount; ++k) d.e[k] = static_cast<std::int8_t>(a.dim.e[k] / 2);
      return {std::sqrt(a.value), d, false};
    }
    if (name == "abs") return {std::fabs(a.value), a.dim, a.point};
    if (!a.dim.dimensionless())
      throw UserError{{name + "() needs a plain number, got " + dim_words(a.dim),
                       "divide by a unit first, e.g. ceil(140 GB / (80 GB))"}};
    if (name == "ceil") return Quantity::number(std::ceil(a.value - 1e-12 * std::fabs(a.value)));
    if (name == "floor") return Quantity::number(std::floor(a.value + 1e-12 * std::fabs(a.value)));
    return Quantity::number(std::round(a.value));
  }

  std::vector<Token> t_;
  std::size_t i_ = 0;
  bool binary_ = false;
  std::string_view src_;
  std::string_view rest_text_;
};

}  // namespace

Expected<CalcResult> evaluate(std::string_view expression) {
  auto toks = tokenize(expression);
  if (!toks) return toks.error();
  std::string_view rest;
  if (const auto arrow = expression.find("->"); arrow != std::string_view::npos) rest = expression.substr(arrow + 2);
  try {
    Evaluator ev(std::move(toks).value());
    ev.set_source(expression);
    ev.set_arrow_rest(rest);
    return ev.run();
  } catch (const UserError& e) {
    return e.error;
  }
}

}  // namespace infracalc
