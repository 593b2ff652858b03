#include "cli/commands.hpp"
#include "units/expr.hpp"
#include "units/format.hpp"

namespace infracalc::cli {

ExitStatus run_calc(const std::string& expression, const GlobalOptions& g) {
  auto r = evaluate(expression);
  if (!r) throw UserError{{"calc: " + r.error().message, r.error().hint}};
  Result res;
  res.plugin = "calc";
  res.calculator = "calc";
  res.inputs.push_back({"expression", Origin::flag, expression, expression, "", ""});
  res.values.push_back({"result", r->value, ""});
  std::string human;
  if (r->target) {
    human = format_in_unit(r->value, *r->target, g.out.number.digits);
    res.notes.push_back("converted to " + r->target->text + ": " + human);
  } else {
    FormatOptions f = g.out.number;
    f.binary = f.binary || r->binary;
    human = format_human(r->value, f);
  }
  if (g.out.format == OutputFormat::table) {
    emit(human + "\n");
  } else {
    emit(render_result(res, g.out));
  }
  return ExitStatus::ok;
}

}  // namespace infracalc::cli
