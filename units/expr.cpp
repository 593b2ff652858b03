#include "units/expr.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <string>
#include <vector>

#include "units/format.hpp"
#include "units/printable.hpp"

namespace infracalc {

namespace {

enum class Tok : unsigned char { number, symbol, ref, op, lparen, rparen, comma, arrow, end };

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
bool is_ref_byte(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_' || c == '.'; }

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
    if (c == '@') {
      ++i;
      while (i < s.size() && is_ref_byte(s[i])) ++i;
      if (i == start + 1) return Error{"'@' must be followed by a name", "refer to another line as @name"};
      out.push_back({Tok::ref, std::string(s.substr(start + 1, i - start - 1)), start});
      continue;
    }
    if (c == '-' && i + 1 < s.size() && s[i + 1] == '>') {
      out.push_back({Tok::arrow, "->", start});
      i += 2;
      continue;
    }
    if (s.substr(i, 2) == "\u00D7" || s.substr(i, 2) == "\u00B7") {  // × ·
      out.push_back({Tok::op, "*", start});
      i += 2;
      continue;
    }
    if (s.substr(i, 2) == "\u00F7") {  // ÷
      out.push_back({Tok::op, "/", start});
      i += 2;
      continue;
    }
    if (s.substr(i, 3) == "\u2212") {  // −
      out.push_back({Tok::op, "-", start});
      i += 3;
      continue;
    }
    if (c == '+' || c == '-' || c == '*' || c == '/' || c == '^') {
      out.push_back({Tok::op, std::string(1, c), start});
      ++i;
      continue;
    }
    if (c == '(' || c == ')' || c == ',') {
      out.push_back({c == '(' ? Tok::lparen : c == ')' ? Tok::rparen : Tok::comma, std::string(1, c), start});
      ++i;
      continue;
    }
    if (is_sym_start(c)) {
      if (c == '$') {  // '$' stands alone so that "$2.50" is '$' then a number
        out.push_back({Tok::symbol, "$", start});
        ++i;
        continue;
      }
      while (i < s.size() && is_sym_byte(s[i]) && s[i] != '$') ++i;
      out.push_back({Tok::symbol, std::string(s.substr(start, i - start)), start});
      continue;
    }
    return Error{"unexpected character '" + printable(s.substr(i, 1)) + "' at position " + std::to_string(i + 1),
                 "expressions use numbers with units, + - * / ^, parentheses, @references and min max ceil floor sqrt abs round exp ln log10 log2"};
  }
  out.push_back({Tok::end, "", s.size()});
  return out;
}

constexpr std::string_view kFunctions[] = {"min", "max", "ceil", "floor", "sqrt", "abs", "round", "exp", "ln", "log10", "log2"};

bool is_function(std::string_view name) {
  for (auto f : kFunctions)
    if (f == name) return true;
  return false;
}

// The parser recurses once per parenthesis, function call, sign and '^'; evaluation, spreadsheet translation
// and destruction recurse once per tree level. Both are bounded so that hostile input is an error, not a stack
// overflow: nesting by kMaxNesting, the tree (whose height is at most its size) by kMaxNodes.
constexpr int kMaxNesting = 256;
constexpr int kMaxNodes = 4096;

// Recursive-descent parser producing an ExprNode tree. Throws UserError.
class Parser {
 public:
  Parser(std::vector<Token> toks, std::string_view src) : t_(std::move(toks)), src_(src) {}

  Expression run() {
    Expression e;
    e.root = sum();
    if (peek().kind == Tok::arrow) {
      const std::size_t after = peek().pos + 2;
      auto u = parse_unit(src_.substr(after));
      if (!u) throw UserError{{"after '->': " + u.error().message, u.error().hint}};
      e.target = std::move(u).value();
      while (peek().kind != Tok::end) ++i_;
    }
    if (peek().kind == Tok::comma)
      throw UserError{{"unexpected ',' at position " + std::to_string(peek().pos + 1),
                       "commas separate function arguments only; write 3350 or 3_350, not 3,350"}};
    if (peek().kind != Tok::end)
      throw UserError{{"unexpected '" + peek().text + "' at position " + std::to_string(peek().pos + 1),
                       "check the operators between values"}};
    e.binary = binary_;
    e.refs = std::move(refs_);
    return e;
  }

 private:
  ExprNode node(ExprNode::Kind k) {
    if (++nodes_ > kMaxNodes)
      throw UserError{{"the expression is too long: more than " + std::to_string(kMaxNodes) + " values and operations",
                       "split it into several steps"}};
    ExprNode n;
    n.kind = k;
    return n;
  }
  ExprNode leaf(Quantity q) {
    ExprNode n = node(ExprNode::Kind::number);
    n.value = q;
    return n;
  }
  ExprNode binary(ExprNode::Kind k, ExprNode a, ExprNode b) {
    ExprNode n = node(k);
    n.args.reserve(2);
    n.args.push_back(std::move(a));
    n.args.push_back(std::move(b));
    return n;
  }

  // Counts one level of nesting for as long as it lives.
  class Nest {
   public:
    explicit Nest(int& depth) : depth_(depth) {
      if (++depth_ > kMaxNesting)
        throw UserError{{"nesting deeper than " + std::to_string(kMaxNesting) + " levels",
                         "an expression may nest parentheses, function calls and signs at most " +
                             std::to_string(kMaxNesting) + " deep"}};
    }
    ~Nest() { --depth_; }
    Nest(const Nest&) = delete;
    Nest& operator=(const Nest&) = delete;

   private:
    int& depth_;
  };

  const Token& peek(std::size_t k = 0) const { return t_[std::min(i_ + k, t_.size() - 1)]; }
  bool is_op(std::string_view op, std::size_t k = 0) const { return peek(k).kind == Tok::op && peek(k).text == op; }
  bool is_function_call(std::size_t k) const {
    return peek(k).kind == Tok::symbol && is_function(peek(k).text) && peek(k + 1).kind == Tok::lparen;
  }

  ExprNode sum() {
    ExprNode acc = product();
    while (is_op("+") || is_op("-")) {
      const auto k = peek().text == "+" ? ExprNode::Kind::add : ExprNode::Kind::sub;
      ++i_;
      acc = binary(k, std::move(acc), product());
    }
    return acc;
  }

  ExprNode product() {
    ExprNode acc = unary();
    while (is_op("*") || is_op("/")) {
      const auto k = peek().text == "*" ? ExprNode::Kind::mul : ExprNode::Kind::div;
      ++i_;
      acc = binary(k, std::move(acc), unary());
    }
    return acc;
  }

  // Every cycle of the grammar (parentheses, calls, signs, '^') passes through here.
  ExprNode unary() {
    const Nest nest(depth_);
    if (is_op("-")) {
      ++i_;
      // A sign written on a literal temperature point belongs to its reading: "-10 degC" is ten degrees below
      // zero (263.15 K), not the kelvin value negated. Other literals keep '-' as an operator so that -2^2 is -4.
      if (peek().kind == Tok::number) {
        ExprNode lit = with_unit(-number_token());
        if (lit.value.point) return power_tail(std::move(lit));
        lit.value.value = -lit.value.value;
        ExprNode n = node(ExprNode::Kind::neg);
        n.args.push_back(power_tail(std::move(lit)));
        return n;
      }
      ExprNode n = node(ExprNode::Kind::neg);
      n.args.push_back(unary());
      return n;
    }
    if (is_op("+")) {
      ++i_;
      return unary();
    }
    return power_tail(atom());
  }

  // "base ^ exponent" when a '^' follows, else the base.
  ExprNode power_tail(ExprNode base) {
    if (is_op("^")) {
      ++i_;
      return binary(ExprNode::Kind::pow, std::move(base), unary());
    }
    return base;
  }

  // A unit written right after a number: symbols joined by / or * (and ^n), stopping before a number, a
  // parenthesis, a reference or a function call, so "140 GB / (3.35 TB/s)" reads as (140 GB) / (3.35 TB/s).
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

  double number_token() {
    const std::string text = peek().text;
    const std::size_t pos = peek().pos;
    ++i_;
    double mult = 1.0;
    // An attached count suffix: 128k, 8Ki.
    if (peek().kind == Tok::symbol && peek().pos == pos + text.size()) {
      static constexpr std::pair<std::string_view, double> kCounts[] = {
          {"k", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"P", 1e15}, {"Ki", 1024.0}, {"Mi", 1048576.0},
          {"Gi", 1073741824.0}, {"Ti", 1099511627776.0}};
      for (auto [suffix, f] : kCounts) {
        if (peek().text != suffix) continue;
        ++i_;
        binary_ = binary_ || suffix.back() == 'i';
        mult = f;
        break;
      }
    }
    auto q = parse_quantity(text);
    if (!q) throw UserError{q.error()};
    return q->value * mult;
  }

  ExprNode with_unit(double value) {
    const std::string unit_text = unit_after_number();
    if (unit_text.empty()) return leaf(Quantity::number(value));
    auto u = parse_unit(unit_text);
    if (!u) throw UserError{u.error()};
    binary_ = binary_ || u->binary;
    const Quantity q{value * u->factor + u->offset, u->dim, u->point};
    if (!std::isfinite(q.value)) throw UserError{{"'" + unit_text + "' value is out of range", ""}};
    return leaf(q);
  }

  ExprNode atom() {
    const Token& t = peek();
    if (t.kind == Tok::number) return with_unit(number_token());
    if (t.kind == Tok::ref) {
      ExprNode n = node(ExprNode::Kind::ref);
      n.name = t.text;
      if (std::find(refs_.begin(), refs_.end(), t.text) == refs_.end()) refs_.push_back(t.text);
      ++i_;
      return n;
    }
    if (t.kind == Tok::symbol && t.text == "$") {
      ++i_;
      if (peek().kind != Tok::number) throw UserError{{"'$' must be followed by an amount", "write e.g. $2.50/h"}};
      const double v = number_token();
      if (peek().kind == Tok::symbol && (peek().text == "B" || peek().text == "bn"))
        throw UserError{{"'$" + fmt::format("{}", v) + peek().text + "' is not an amount infracalc reads", "for billions write $1.8e9"}};
      ExprNode money = leaf(Quantity{v, dims::currency, false});
      // "$2.50/h": a price per unit binds like a unit.
      if (is_op("/") && peek(1).kind == Tok::symbol && peek(1).text != "$" && !is_function_call(1)) {
        ++i_;
        ExprNode per = with_unit(1.0);
        money.value = divide(money.value, per.value);
      }
      return money;
    }
    if (t.kind == Tok::lparen) {
      ++i_;
      ExprNode n = sum();
      expect_rparen();
      return n;
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

  ExprNode call() {
    ExprNode n = node(ExprNode::Kind::call);
    n.name = peek().text;
    i_ += 2;  // name and '('
    if (peek().kind != Tok::rparen) {
      n.args.push_back(sum());
      while (peek().kind == Tok::comma) {
        ++i_;
        n.args.push_back(sum());
      }
    }
    expect_rparen();
    const bool variadic = n.name == "min" || n.name == "max";
    if (variadic && n.args.size() < 2) throw UserError{{n.name + "() takes at least 2 arguments", ""}};
    if (!variadic && n.args.size() != 1)
      throw UserError{{n.name + "() takes 1 argument, got " + std::to_string(n.args.size()), ""}};
    return n;
  }

  std::vector<Token> t_;
  std::string_view src_;
  std::size_t i_ = 0;
  bool binary_ = false;
  int depth_ = 0;
  int nodes_ = 0;
  std::vector<std::string> refs_;
};

Quantity call_value(const std::string& name, const std::vector<Quantity>& args) {
  // A temperature point (degC) is a reading on a scale with an arbitrary zero: comparing points is meaningful,
  // but the size, root or rounding of a reading is not. Such calls are errors; take a difference first.
  const bool variadic = name == "min" || name == "max";
  for (const auto& a : args) {
    if (!a.point) continue;
    if (!variadic)
      throw UserError{{name + "() of a temperature point (degC) is not defined: a reading has no size of its own",
                       "apply it to a difference in K, e.g. " + name + "(T - 20 degC)"}};
    if (!std::all_of(args.begin(), args.end(), [](const Quantity& x) { return x.point; }))
      throw UserError{{name + "() compares temperature points (degC) with temperature differences (K)",
                       "give every argument in degC, or every one in K"}};
  }
  if (variadic) {
    Quantity best = args[0];
    for (std::size_t k = 1; k < args.size(); ++k) {
      (void)subtract(args[k], best);  // dimension check
      if ((name == "min") == (args[k].value < best.value)) best = args[k];
    }
    return best;
  }
  const Quantity& a = args[0];
  if (name == "sqrt") {
    for (auto x : a.dim.e)
      if (x % 2 != 0) throw UserError{{"sqrt() of " + dim_words(a.dim) + " has no whole-unit result", "square the units first"}};
    if (a.value < 0) throw UserError{{"sqrt() of a negative value", ""}};
    Dim d;
    for (std::size_t k = 0; k < kBaseCount; ++k) d.e[k] = static_cast<std::int8_t>(a.dim.e[k] / 2);
    return {std::sqrt(a.value), d, false};
  }
  if (name == "abs") return {std::fabs(a.value), a.dim, a.point};
  if (!a.dim.dimensionless())
    throw UserError{{name + "() needs a plain number, got " + dim_words(a.dim), "divide by a unit first, e.g. ceil(140 GB / (80 GB))"}};
  // Logarithms and the exponential take and give plain numbers (a ratio, a count), as numbat's do.
  if (name == "exp") return Quantity::number(std::exp(a.value));
  if (name == "ln" || name == "log10" || name == "log2") {
    if (!(a.value > 0)) throw UserError{{name + "() of " + format_machine(a.value) + ": the logarithm is defined for positive numbers only", ""}};
    return Quantity::number(name == "ln" ? std::log(a.value) : name == "log10" ? std::log10(a.value) : std::log2(a.value));
  }
  // ceil/floor forgive floating-point dust so that ceil(1.0000000000002) is 1, not 2.
  if (name == "ceil") return Quantity::number(std::ceil(a.value - 1e-12 * std::fabs(a.value)));
  if (name == "floor") return Quantity::number(std::floor(a.value + 1e-12 * std::fabs(a.value)));
  return Quantity::number(std::round(a.value));
}

Quantity eval_node(const ExprNode& n, const ExprResolver& resolve) {
  using K = ExprNode::Kind;
  switch (n.kind) {
    case K::number:
      return n.value;
    case K::ref: {
      std::optional<Quantity> v = resolve ? resolve(n.name) : std::nullopt;
      if (!v) throw UserError{{"unknown reference @" + n.name, "refer to an input or an earlier line by its key"}};
      return *v;
    }
    case K::neg: {
      Quantity q = eval_node(n.args[0], resolve);
      if (q.point)
        throw UserError{{"cannot negate a temperature point (degC): the reading's zero is arbitrary",
                         "write the sign on the reading itself (-10 degC), or negate a difference in K"}};
      q.value = -q.value;
      return q;
    }
    case K::add: return add(eval_node(n.args[0], resolve), eval_node(n.args[1], resolve));
    case K::sub: return subtract(eval_node(n.args[0], resolve), eval_node(n.args[1], resolve));
    case K::mul: return multiply(eval_node(n.args[0], resolve), eval_node(n.args[1], resolve));
    case K::div: return divide(eval_node(n.args[0], resolve), eval_node(n.args[1], resolve));
    case K::pow: {
      const Quantity e = eval_node(n.args[1], resolve);
      if (!e.dim.dimensionless() || e.point) throw UserError{{"an exponent must be a plain number", "write e.g. 2^10 or (3 m)^2"}};
      return power(eval_node(n.args[0], resolve), e.value);
    }
    case K::call: {
      std::vector<Quantity> args;
      args.reserve(n.args.size());
      for (const auto& a : n.args) args.push_back(eval_node(a, resolve));
      return call_value(n.name, args);
    }
  }
  return n.value;
}

bool same_scale(double a, double b) { return std::fabs(a - b) <= 1e-12 * std::max(std::fabs(a), std::fabs(b)); }

// Every operand at one scale: the first operand's.
std::vector<std::string> at_scale_of_first(const std::vector<SpreadsheetTerm>& terms) {
  std::vector<std::string> out;
  for (const auto& t : terms) out.push_back(scaled_formula(t, t.scale / terms.front().scale));
  return out;
}

SpreadsheetTerm formula_of(const ExprNode& n, const CellMapper& cell) {
  using K = ExprNode::Kind;
  auto sub = [&](std::size_t k) { return formula_of(n.args[k], cell); };
  auto join = [](const std::vector<std::string>& parts) {
    std::string out;
    for (const auto& p : parts) out += (out.empty() ? "" : ",") + p;
    return out;
  };
  switch (n.kind) {
    case K::number: return {spreadsheet_number(n.value.value), 1};
    case K::ref: return cell(n.name);
    case K::neg: {
      auto a = sub(0);
      return {"(-" + a.text + ")", a.scale};
    }
    case K::add:
    case K::sub: {
      // A sum is taken at one scale; the right operand is brought to the left one's.
      auto a = sub(0), b = sub(1);
      const char* op = n.kind == K::add ? "+" : "-";
      if (same_scale(a.scale, b.scale)) return {"(" + a.text + op + b.text + ")", a.scale};
      return {"(" + a.text + op + scaled_formula(b, b.scale / a.scale) + ")", a.scale};
    }
    case K::mul: {
      auto a = sub(0), b = sub(1);
      return {"(" + a.text + "*" + b.text + ")", a.scale * b.scale};
    }
    case K::div: {
      auto a = sub(0), b = sub(1);
      return {"(" + a.text + "/" + b.text + ")", a.scale / b.scale};
    }
    case K::pow: {
      auto a = sub(0), b = sub(1);
      if (n.args[1].kind == K::number) return {"(" + a.text + "^" + b.text + ")", std::pow(a.scale, n.args[1].value.value)};
      return {"(" + scaled_formula(a, a.scale) + "^" + scaled_formula(b, b.scale) + ")", 1};
    }
    case K::call: {
      std::vector<SpreadsheetTerm> args;
      for (std::size_t k = 0; k < n.args.size(); ++k) args.push_back(sub(k));
      if (n.name == "min" || n.name == "max") return {(n.name == "min" ? "MIN(" : "MAX(") + join(at_scale_of_first(args)) + ")", args.front().scale};
      if (n.name == "abs") return {"ABS(" + args.front().text + ")", args.front().scale};
      if (n.name == "sqrt") return {"SQRT(" + args.front().text + ")", std::sqrt(args.front().scale)};
      // Rounding and the transcendental functions depend on the unit: they take base-unit values.
      std::vector<std::string> base;
      for (const auto& t : args) base.push_back(scaled_formula(t, t.scale));
      if (n.name == "ceil") return {"CEILING(" + join(base) + ",1)", 1};
      if (n.name == "floor") return {"FLOOR(" + join(base) + ",1)", 1};
      if (n.name == "round") return {"ROUND(" + join(base) + ",0)", 1};
      if (n.name == "log2") return {"LOG(" + join(base) + ",2)", 1};
      std::string upper = n.name;
      for (auto& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
      return {upper + "(" + join(base) + ")", 1};
    }
  }
  return {"0", 1};
}

}  // namespace

Expected<Expression> parse_expression(std::string_view text) {
  auto toks = tokenize(text);
  if (!toks) return toks.error();
  try {
    return Parser(std::move(toks).value(), text).run();
  } catch (const UserError& e) {
    return e.error;
  }
}

Expected<Quantity> evaluate(const Expression& e, const ExprResolver& resolve) {
  try {
    return eval_node(e.root, resolve);
  } catch (const UserError& err) {
    return err.error;
  }
}

Expected<CalcResult> evaluate(std::string_view expression) {
  auto e = parse_expression(expression);
  if (!e) return e.error();
  auto v = evaluate(e.value(), {});
  if (!v) return v.error();
  return CalcResult{v.value(), e->target, e->binary};
}

SpreadsheetTerm to_spreadsheet_formula(const Expression& e, const CellMapper& cell) { return formula_of(e.root, cell); }

std::string spreadsheet_number(double v) {
  if (std::fabs(v) < 1e15 && v == std::round(v)) return fmt::format("{:.0f}", v);  // "3600", not "3.6E+03"
  std::string s;
  for (int digits = 1; digits <= 17; ++digits) {
    s = fmt::format("{:.{}g}", v, digits);
    const double back = std::strtod(s.c_str(), nullptr);
    if (!same_scale(back, v)) continue;
    if (std::fabs(back) < 1e15 && back == std::round(back)) return fmt::format("{:.0f}", back);  // 999.9999999999999 -> "1000"
    break;
  }
  // Spreadsheets write the exponent in capitals, with its sign ("1E-06"); fmt already gives the sign.
  for (auto& ch : s)
    if (ch == 'e') ch = 'E';
  return s;
}

std::string scaled_formula(const SpreadsheetTerm& t, double k) {
  if (same_scale(k, 1)) return t.text;
  const std::string times = spreadsheet_number(k), over = spreadsheet_number(1 / k);
  // Significant digits, without the zeros that only place the point ("3600" has 2, "0.001" has 1).
  auto significant = [](const std::string& s) {
    std::string digits;
    for (char ch : s) {
      if (ch == 'E') break;
      if (ch >= '0' && ch <= '9') digits += ch;
    }
    const auto first = digits.find_first_not_of('0'), last = digits.find_last_not_of('0');
    return first == std::string::npos ? std::size_t{0} : last - first + 1;
  };
  // The reading with fewer significant digits; at a tie, a scale below one divides (B4/1000, not B4*0.001).
  const bool divide = significant(over) < significant(times) || (significant(over) == significant(times) && k < 1);
  return "(" + t.text + (divide ? "/" + over : "*" + times) + ")";
}

}  // namespace infracalc
