#include "plan/plan_xlsx.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>

#include "plan/plan_charts.hpp"
#include "documents/atomic_file.hpp"
#include "units/expr.hpp"
#include "units/format.hpp"

#ifdef INFRACALC_HAVE_XLSX
#include "plan/xlsx_library.hpp"
#endif

namespace infracalc::plan {

#ifndef INFRACALC_HAVE_XLSX

bool xlsx_available() { return false; }

void write_xlsx(const Worksheet&, const SweepTable*, AtomicFile& file) {
  throw UserError{{"--xlsx " + file.target() + ": this infracalc was built without libxlsxwriter, so it cannot write workbooks",
                   "install libxlsxwriter-dev (apt-get install libxlsxwriter-dev) and rebuild; --csv and --json work without it"}};
}

void write_xlsx(const Worksheet&, const SweepTable*, const std::string& path, bool, const std::vector<std::string>&) {
  throw UserError{{"--xlsx " + path + ": this infracalc was built without libxlsxwriter, so it cannot write workbooks",
                   "install libxlsxwriter-dev (apt-get install libxlsxwriter-dev) and rebuild; --csv and --json work without it"}};
}

#else

namespace {

// Valid once write_xlsx has checked that the library opened.
const XlsxLibrary& xl() { return *xlsx_library(); }

// A text cell: spreadsheet_text keeps a plan name, an id or a source that begins with '=', '+', '-' or '@' from being
// read as a formula when the cell is edited.
void write_text(lxw_worksheet* ws, lxw_row_t row, lxw_col_t col, const std::string& s, lxw_format* format) {
  xl().worksheet_write_string(ws, row, col, writers::spreadsheet_text(s).c_str(), format);
}

// Excel limits sheet names to 31 characters and forbids []:*?/\.
std::string sheet_name(const std::string& title) {
  std::string s;
  for (char c : title)
    if (std::string_view("[]:*?/\\").find(c) == std::string_view::npos) s += c;
  return s.substr(0, 31);
}

// A line key as people read it: "kv_bytes_per_token" -> "KV bytes per token", "gpus" -> "GPUs".
std::string human_label(const std::string& key) {
  static const std::pair<std::string_view, std::string_view> kWords[] = {
      {"kv", "KV"},   {"ttft", "TTFT"}, {"tpot", "TPOT"}, {"it", "IT"},     {"gpu", "GPU"},   {"gpus", "GPUs"}, {"mtok", "Mtok"},
      {"pue", "PUE"}, {"wue", "WUE"},   {"cue", "CUE"},   {"tco", "TCO"},   {"tp", "TP"},     {"pp", "PP"},     {"dp", "DP"},
      {"ep", "EP"},   {"mfu", "MFU"},   {"mbu", "MBU"},   {"hbm", "HBM"},   {"nic", "NIC"},   {"nics", "NICs"}, {"cdu", "CDU"},
      {"cdus", "CDUs"}, {"moe", "MoE"}, {"sram", "SRAM"}, {"cpu", "CPU"},   {"tdp", "TDP"},   {"p95", "p95"},   {"sim", "(simulated)"},
      {"id", "ID"},   {"ups", "UPS"},   {"pdu", "PDU"},   {"dtype", "data type"}};
  std::string out;
  for (std::size_t at = 0; at <= key.size();) {
    const std::size_t end = std::min(key.find('_', at), key.size());
    std::string word = key.substr(at, end - at);
    for (const auto& [k, v] : kWords)
      if (word == k) word = v;
    if (!out.empty()) out += ' ';
    out += word;
    at = end + 1;
  }
  if (!out.empty() && out[0] >= 'a' && out[0] <= 'z') out[0] = static_cast<char>(out[0] - 'a' + 'A');
  return out;
}

// The number format of a value shown in `unit`: whole numbers with thousands separators, money to the cent,
// anything else to four significant digits, and scientific notation below a thousandth (a constant format
// per cell: the digits suit the value the plan computed, and stay readable when an input moves it).
std::string number_format(const std::string& unit, double v) {
  const double a = std::fabs(v);
  if (a == 0 || !std::isfinite(v) || (a < 1e15 && v == std::round(v))) return "#,##0";
  if (a < 1e-3) return "0.000E+00";
  int decimals = std::clamp(3 - static_cast<int>(std::floor(std::log10(a))), 0, 6);
  if (!unit.empty() && unit[0] == '$' && a >= 1) decimals = a >= 1000 ? 0 : 2;
  return decimals == 0 ? "#,##0" : "#,##0." + std::string(static_cast<std::size_t>(decimals), '0');
}

// What a value cell is: a yellow input, a blue live formula, a catalog value, a default, or a value a plugin
// or a planner rule computed, which does not move when an input changes (grey, italic, marked "fixed").
enum class Role : unsigned char { plain, input, formula, fixed };

const char* role_name(Role r, LineKind kind) {
  switch (r) {
    case Role::input: return "input";
    case Role::formula: return "formula";
    case Role::fixed: return "fixed";
    case Role::plain: break;
  }
  return kind == LineKind::catalog ? "catalog" : kind == LineKind::choice ? "default" : "";
}

struct Place {
  std::string sheet;  // Excel sheet name
  int row = -1;       // 0-based
  std::string unit;   // display unit
  double factor = 1, offset = 0;
  Role role = Role::plain;
  std::string formula;  // the live formula, when the line has one
};

// A chart's axis in a unit people read (TFLOP/s, not 1E+15 FLOP/s): the unit format_human picks for the
// largest value, its factor, and the label with that unit in its parentheses.
struct AxisUnit {
  double factor = 1;
  std::string label;
};

AxisUnit axis_unit(const svg::ChartAxis& axis, double largest) {
  AxisUnit out{1, axis.label};
  if (!axis.dim || !(largest > 0)) return out;
  const std::string shown = format_human(Quantity{largest, *axis.dim, false});
  const auto space = shown.find(' ');
  if (space == std::string::npos) return out;
  const std::string unit = shown.substr(space + 1);
  out.factor = unit_factor(unit).first;
  if (const auto open = out.label.rfind('('); open != std::string::npos && out.label.back() == ')')
    out.label = out.label.substr(0, open + 1) + unit + ")";
  return out;
}

// Header and footer text: '&' starts a code there, so a literal one is doubled.
std::string header_text(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '&' ? std::string("&&") : std::string(1, c);
  return out;
}

// The fill of fixed values (light grey: it prints in greyscale distinct from the yellow of inputs).
constexpr lxw_color_t kFixedColor = 0xE7E6E6;

class Writer {
 public:
  Writer(const Worksheet& w, lxw_workbook* wb) : w_(w), wb_(wb) {
    bold_ = xl().workbook_add_format(wb_);
    xl().format_set_bold(bold_);
    title_ = xl().workbook_add_format(wb_);
    xl().format_set_bold(title_);
    xl().format_set_font_size(title_, 14);
  }

  void layout() {
    places_.assign(w_.program.lines.size(), Place{});
    for (const auto& sheet : w_.program.sheets) {
      int row = 2;
      for (int i : lines_of(sheet)) {
        Place& p = places_[static_cast<std::size_t>(i)];
        p.sheet = sheet_name(sheet_title(sheet));
        p.row = row++;
        const auto& v = w_.sheet.values[static_cast<std::size_t>(i)];
        if (v)
          if (const auto* q = std::get_if<Quantity>(&*v)) {
            p.unit = display_unit(w_.program.lines[static_cast<std::size_t>(i)], *q);
            const auto [f, o] = unit_factor(p.unit);
            p.factor = f;
            p.offset = o;
          }
      }
    }
    // Formulas need every place; a line's role follows from whether it got one.
    for (std::size_t i = 0; i < places_.size(); ++i) {
      Place& p = places_[i];
      if (p.row < 0) continue;
      p.formula = live_formula(static_cast<int>(i));
      const Line& l = w_.program.lines[i];
      if (!p.formula.empty()) p.role = Role::formula;
      else if (l.kind == LineKind::input) p.role = Role::input;
      else if (l.kind == LineKind::step || l.kind == LineKind::rule || l.kind == LineKind::expression) p.role = Role::fixed;
    }
  }

  void summary() {
    lxw_worksheet* ws = xl().workbook_add_worksheet(wb_, "Summary");
    columns(ws, {34, 14, 9, 9, 62, 26});
    write_text(ws, 0, 0, plan_title(w_), title_);
    header(ws, 1, {"item", "value", "unit", "kind", "meaning", "key"});
    int row = 2;
    for (std::size_t i = 0; i < w_.program.lines.size(); ++i) {
      const Line& l = w_.program.lines[i];
      if (!l.headline) continue;
      const auto r = static_cast<lxw_row_t>(row);
      const Place& p = places_[i];
      write_text(ws, r, 0, human_label(l.key), nullptr);
      const auto& v = w_.sheet.values[i];
      if (v && p.row >= 0) {
        const std::string f = "=" + ref(static_cast<int>(i));
        // The summary links to the line's cell; it shows the line's own role, so a fixed value stays marked here.
        const Role role = p.role == Role::fixed ? Role::fixed : Role::formula;
        if (const auto* q = std::get_if<Quantity>(&*v))
          xl().worksheet_write_formula_num(ws, r, 1, f.c_str(), format(role, number_format(p.unit, shown(*q, p))), shown(*q, p));
        else
          xl().worksheet_write_formula_str(ws, r, 1, f.c_str(), format(role, ""), std::get<std::string>(*v).c_str());
        write_text(ws, r, 3, role_name(p.role, l.kind), nullptr);
      }
      write_text(ws, r, 2, p.unit, nullptr);
      write_text(ws, r, 4, l.label, nullptr);
      write_text(ws, r, 5, l.key, nullptr);
      ++row;
    }
    // A sweep's workbook shows its first point even when a step failed there: the values it left empty say why here.
    if (!w_.sheet.errors.empty()) {
      ++row;
      xl().worksheet_write_string(ws, static_cast<lxw_row_t>(row++), 0, "failed steps", bold_);
      for (const auto& e : w_.sheet.errors) write_text(ws, static_cast<lxw_row_t>(row++), 0, e, nullptr);
    }
    ++row;
    xl().worksheet_write_string(ws, static_cast<lxw_row_t>(row++), 0, "checks", bold_);
    for (std::size_t c = 0; c < w_.program.checks.size(); ++c) {
      const auto& v = w_.sheet.checks[c];
      if (!v) continue;
      write_text(ws, static_cast<lxw_row_t>(row), 0, human_label(w_.program.checks[c].key), nullptr);
      xl().worksheet_write_string(ws, static_cast<lxw_row_t>(row), 1, v->first ? "yes" : "no", nullptr);
      write_text(ws, static_cast<lxw_row_t>(row), 4, v->second, nullptr);
      write_text(ws, static_cast<lxw_row_t>(row), 5, w_.program.checks[c].key, nullptr);
      ++row;
    }
    ++row;
    const std::pair<Role, const char*> legend[] = {
        {Role::input, "input: change it and the formulas move"},
        {Role::formula, "formula: computed in the workbook from other cells"},
        {Role::fixed, "fixed: computed by a plugin or a planner rule (named in the 'how' column of its sheet); it does not move "
                      "when an input changes: rerun infracalc plan"}};
    for (const auto& [role, text] : legend) {
      xl().worksheet_write_string(ws, static_cast<lxw_row_t>(row), 0, role_name(role, LineKind::input), format(role, ""));
      xl().worksheet_write_string(ws, static_cast<lxw_row_t>(row++), 1, text, nullptr);
    }
    print_setup(ws, row, 5, true);
  }

  void sheets() {
    for (const auto& sheet : w_.program.sheets) {
      const auto lines = lines_of(sheet);
      if (lines.empty()) continue;
      lxw_worksheet* ws = xl().workbook_add_worksheet(wb_, sheet_name(sheet_title(sheet)).c_str());
      columns(ws, {34, 14, 9, 9, 48, 62, 26});
      write_text(ws, 0, 0, sheet_title(sheet), title_);
      header(ws, 1, {"item", "value", "unit", "kind", "how", "meaning", "key"});
      int last = 1;
      for (int i : lines) {
        write_line(ws, i);
        last = std::max(last, places_[static_cast<std::size_t>(i)].row);
      }
      print_setup(ws, last + 1, 6, false);
    }
  }

  void sources() {
    lxw_worksheet* ws = xl().workbook_add_worksheet(wb_, "Sources");
    columns(ws, {40, 12, 12, 90, 60});
    xl().worksheet_write_string(ws, 0, 0, "Catalog values used, with their dates and sources", title_);
    header(ws, 1, {"value", "as of", "basis", "source", "note"});
    lxw_row_t row = 2;
    for (const auto& p : all_sources(w_)) {
      write_text(ws, row, 0, (p.id + "." + p.field), nullptr);
      write_text(ws, row, 1, p.as_of, nullptr);
      write_text(ws, row, 2, p.basis, nullptr);
      write_text(ws, row, 3, p.source, nullptr);
      write_text(ws, row, 4, p.note, nullptr);
      ++row;
    }
    ++row;
    xl().worksheet_write_string(ws, row++, 0, "notes", bold_);
    for (const auto& n : all_notes(w_)) write_text(ws, row++, 0, n, nullptr);
    print_setup(ws, static_cast<int>(row), 4, false);
  }

  void sweep(const SweepTable& t) {
    lxw_worksheet* ws = xl().workbook_add_worksheet(wb_, "Sweep");
    const SweepPlan& sw = *t.sweep;
    lxw_col_t col = 0;
    for (const auto& a : sw.axes) write_text(ws, 0, col++, a.key, bold_);
    std::vector<std::pair<double, double>> conv;
    std::vector<std::string> units;
    for (const auto& c : sw.columns) {
      const int i = w_.program.find(c);
      const Place& p = places_[static_cast<std::size_t>(i)];
      std::string unit = p.unit;
      if (unit.empty())
        for (const auto& r : *t.rows)
          if (r.values[conv.size()])
            if (const auto* q = std::get_if<Quantity>(&*r.values[conv.size()])) {
              unit = display_unit(w_.program.lines[static_cast<std::size_t>(i)], *q);
              break;
            }
      conv.push_back(unit_factor(unit));
      units.push_back(unit);
      write_text(ws, 0, col++, (c + (unit.empty() ? "" : " (" + unit + ")")), bold_);
    }
    xl().worksheet_write_string(ws, 0, col, "checks failed", bold_);
    lxw_row_t row = 1;
    for (const auto& r : *t.rows) {
      col = 0;
      for (const auto& l : r.labels) write_text(ws, row, col++, l, nullptr);
      for (std::size_t c = 0; c < r.values.size(); ++c, ++col) {
        if (!r.values[c]) continue;
        if (const auto* q = std::get_if<Quantity>(&*r.values[c])) {
          const double v = (q->value - conv[c].second) / conv[c].first;
          xl().worksheet_write_number(ws, row, col, v, format(Role::plain, number_format(units[c], v)));
        } else {
          write_text(ws, row, col, std::get<std::string>(*r.values[c]), nullptr);
        }
      }
      write_text(ws, row, col, (r.error.empty() ? r.failed : "error: " + r.error), nullptr);
      ++row;
    }
    xl().worksheet_freeze_panes(ws, 1, 0);
    xl().worksheet_set_landscape(ws);
    xl().worksheet_fit_to_pages(ws, 1, 0);
    xl().worksheet_repeat_rows(ws, 0, 0);
  }

  // The plan's charts as native workbook charts on a "Charts" sheet after the summary, drawn from the same
  // chart data as --plot's SVG files. The numbers they plot go on a last sheet, "Chart data" (fixed values:
  // rerun the plan to redraw), written by chart_data() once every other sheet is in place.
  void charts() {
    for (ChartId id : kChartIds)
      if (auto c = plan_chart(w_, id)) charts_.push_back(std::move(*c));
    if (charts_.empty()) return;
    charts_sheet_ = xl().workbook_add_worksheet(wb_, "Charts");
    write_text(charts_sheet_, 0, 0, plan_title(w_) + ": charts", title_);
    xl().worksheet_set_column(charts_sheet_, 0, 0, 12, nullptr);
    xl().worksheet_set_landscape(charts_sheet_);
    xl().worksheet_fit_to_pages(charts_sheet_, 1, 0);
  }

  void chart_data() {
    if (charts_sheet_ == nullptr) return;
    lxw_worksheet* data = xl().workbook_add_worksheet(wb_, "Chart data");
    columns(data, {34, 14, 14, 14, 14, 14, 14, 14, 14});
    xl().worksheet_write_string(data, 0, 0, "The numbers the charts plot (fixed: computed by infracalc plan; rerun it to redraw)", title_);
    lxw_row_t data_row = 2;
    lxw_row_t chart_row = 2;
    for (const auto& c : charts_) {
      lxw_chart* chart = c.kind == PlanChart::Kind::bars ? bar_chart(data, data_row, c) : line_chart(data, data_row, c);
      if (chart == nullptr) continue;
      xl().chart_title_set_name(chart, c.title.c_str());
      if (c.kind == PlanChart::Kind::lines) xl().chart_legend_set_position(chart, LXW_CHART_LEGEND_BOTTOM);
      lxw_chart_options opt{};
      opt.x_scale = 1.6;
      opt.y_scale = 1.5;
      xl().worksheet_insert_chart_opt(charts_sheet_, chart_row, 0, chart, &opt);
      write_text(charts_sheet_, chart_row + 22, 0, c.footnote, nullptr);
      chart_row += 25;
      page_breaks_.push_back(chart_row);  // one chart and its footnote per printed page
    }
    page_breaks_.push_back(0);  // the list ends in a zero
    xl().worksheet_set_h_pagebreaks(charts_sheet_, page_breaks_.data());
    print_setup(data, static_cast<int>(data_row), 8, false);
  }

 private:
  // Horizontal bars: the parts on the vertical axis from top to bottom, their values along the other.
  lxw_chart* bar_chart(lxw_worksheet* data, lxw_row_t& row, const PlanChart& c) {
    if (c.bars.empty()) return nullptr;
    write_text(data, row++, 0, c.title, bold_);
    write_text(data, row, 0, "part", bold_);
    write_text(data, row++, 1, c.x.label, bold_);
    const lxw_row_t first = row;
    for (const auto& b : c.bars) {
      write_text(data, row, 0, b.label, nullptr);
      xl().worksheet_write_number(data, row++, 1, b.value, format(Role::fixed, number_format("", b.value)));
    }
    lxw_chart* chart = xl().workbook_add_chart(wb_, LXW_CHART_BAR);
    const std::string categories = range(first, row - 1, 0), values = range(first, row - 1, 1);
    lxw_chart_series* s = xl().chart_add_series(chart, categories.c_str(), values.c_str());
    xl().chart_series_set_name(s, c.x.label.c_str());
    // In a bar chart the category axis is drawn upright and starts at the bottom: reversed, the parts read from
    // the top in the order of the chart data, as in the SVG chart.
    xl().chart_axis_set_name(chart->x_axis, c.x.label.c_str());
    xl().chart_axis_set_reverse(chart->y_axis);
    xl().chart_axis_set_crossing_max(chart->y_axis);  // the value axis stays at the bottom
    xl().chart_legend_set_position(chart, LXW_CHART_LEGEND_NONE);
    ++row;
    return chart;
  }

  // Lines and operating points on x-y axes (log axes where the chart has them), each series in two columns.
  lxw_chart* line_chart(lxw_worksheet* data, lxw_row_t& row, const PlanChart& c) {
    double largest_x = 0, largest_y = 0;
    for (const auto& s : c.series)
      for (const auto& [x, y] : s.points) {
        if (std::isfinite(x)) largest_x = std::max(largest_x, std::fabs(x));
        if (std::isfinite(y)) largest_y = std::max(largest_y, std::fabs(y));
      }
    const AxisUnit ux = axis_unit(c.x, largest_x), uy = axis_unit(c.y, largest_y);
    write_text(data, row++, 0, c.title, bold_);
    lxw_chart* chart = xl().workbook_add_chart(wb_, LXW_CHART_SCATTER_STRAIGHT);
    std::vector<ChartSeries> series = c.series;
    // A marker (the ridge) is a vertical line across the y range of the data.
    double lo = largest_y, hi = 0;
    for (const auto& s : c.series)
      for (const auto& [x, y] : s.points)
        if (std::isfinite(y) && (!c.y.log || y > 0)) {
          lo = std::min(lo, y);
          hi = std::max(hi, y);
        }
    for (const auto& m : c.markers) series.push_back({m.text, {{m.x, lo}, {m.x, hi}}, false});
    const lxw_row_t head = row;
    std::size_t longest = 0;
    for (const auto& s : series) longest = std::max(longest, s.points.size());
    for (std::size_t k = 0; k < series.size(); ++k) {
      const auto& s = series[k];
      const auto cx = static_cast<lxw_col_t>(1 + 2 * k), cy = static_cast<lxw_col_t>(2 + 2 * k);
      write_text(data, head, cx, s.name + ": " + ux.label, bold_);
      write_text(data, head, cy, uy.label, bold_);
      lxw_row_t r = head + 1;
      for (const auto& [x, y] : s.points) {
        xl().worksheet_write_number(data, r, cx, x / ux.factor, format(Role::fixed, number_format("", x / ux.factor)));
        xl().worksheet_write_number(data, r++, cy, y / uy.factor, format(Role::fixed, number_format("", y / uy.factor)));
      }
      if (s.points.empty()) continue;
      const std::string xs = range(head + 1, r - 1, cx), ys = range(head + 1, r - 1, cy);
      lxw_chart_series* cs = xl().chart_add_series(chart, xs.c_str(), ys.c_str());
      xl().chart_series_set_name(cs, s.name.c_str());
      if (s.markers) {
        lxw_chart_line none{};
        none.none = LXW_TRUE;
        xl().chart_series_set_line(cs, &none);
        xl().chart_series_set_marker_type(cs, LXW_CHART_MARKER_CIRCLE);
        xl().chart_series_set_marker_size(cs, 8);
      } else {
        xl().chart_series_set_marker_type(cs, LXW_CHART_MARKER_NONE);
      }
    }
    row = head + 1 + static_cast<lxw_row_t>(longest) + 1;
    xl().chart_axis_set_name(chart->x_axis, ux.label.c_str());
    xl().chart_axis_set_name(chart->y_axis, uy.label.c_str());
    if (c.x.log) xl().chart_axis_set_log_base(chart->x_axis, 10);
    if (c.y.log) xl().chart_axis_set_log_base(chart->y_axis, 10);
    return chart;
  }

  // An absolute range on the chart data sheet, e.g. 'Chart data'!$B$4:$B$9.
  static std::string range(lxw_row_t first, lxw_row_t last, lxw_col_t col) {
    std::string letters;
    for (unsigned n = col + 1U; n > 0; n = (n - 1) / 26) letters.insert(letters.begin(), static_cast<char>('A' + (n - 1) % 26));
    return "='Chart data'!$" + letters + "$" + std::to_string(first + 1) + ":$" + letters + "$" + std::to_string(last + 1);
  }

  std::vector<int> lines_of(const std::string& sheet) const {
    std::vector<int> out;
    for (std::size_t i = 0; i < w_.program.lines.size(); ++i) {
      const Line& l = w_.program.lines[i];
      if (l.sheet != sheet) continue;
      if (!w_.sheet.values[i] && (l.kind == LineKind::input || l.kind == LineKind::catalog || l.kind == LineKind::choice)) continue;
      out.push_back(static_cast<int>(i));
    }
    return out;
  }

  void columns(lxw_worksheet* ws, std::initializer_list<double> widths) {
    lxw_col_t c = 0;
    for (double w : widths) {
      xl().worksheet_set_column(ws, c, c, w, nullptr);
      ++c;
    }
  }

  void header(lxw_worksheet* ws, lxw_row_t row, std::initializer_list<const char*> names) {
    lxw_col_t c = 0;
    for (const char* n : names) xl().worksheet_write_string(ws, row, c++, n, bold_);
  }

  // Printed on paper as it reads on screen: landscape, as wide as one page (the summary on one page), the
  // column headings on every page, the plan and the sheet on top, page numbers below.
  void print_setup(lxw_worksheet* ws, int rows, lxw_col_t last_col, bool one_page) {
    xl().worksheet_set_landscape(ws);
    xl().worksheet_fit_to_pages(ws, 1, one_page ? 1 : 0);
    xl().worksheet_repeat_rows(ws, 1, 1);
    xl().worksheet_print_area(ws, 0, 0, static_cast<lxw_row_t>(std::max(rows, 1)), last_col);
    xl().worksheet_freeze_panes(ws, 2, 0);
    const std::string head = "&L" + header_text(plan_title(w_)) + "&R&A";
    xl().worksheet_set_header(ws, head.c_str());
    xl().worksheet_set_footer(ws, "&Cpage &P of &N");
  }

  // One format per role and number format, made on first use.
  lxw_format* format(Role role, const std::string& number) {
    const auto key = std::make_pair(role, number);
    if (auto it = formats_.find(key); it != formats_.end()) return it->second;
    if (role == Role::plain && number.empty()) return nullptr;
    lxw_format* f = xl().workbook_add_format(wb_);
    if (!number.empty()) xl().format_set_num_format(f, number.c_str());
    switch (role) {
      case Role::input: xl().format_set_bg_color(f, 0xFFF2CC); break;  // inputs a procurement team may change
      case Role::formula: xl().format_set_font_color(f, 0x1F4E79); break;
      case Role::fixed:
        xl().format_set_bg_color(f, kFixedColor);
        xl().format_set_italic(f);
        break;
      case Role::plain: break;
    }
    formats_.emplace(key, f);
    return f;
  }

  std::string ref(int i) const {
    const Place& p = places_[static_cast<std::size_t>(i)];
    return "'" + p.sheet + "'!$B$" + std::to_string(p.row + 1);
  }

  // A referenced line's cell with the scale that gives its value in base units (a temperature point, with its
  // offset, is brought to kelvin in the formula).
  SpreadsheetTerm base_term(int i) const {
    const Place& p = places_[static_cast<std::size_t>(i)];
    if (p.offset == 0) return {ref(i), p.factor};
    return {"(" + scaled_formula({ref(i), p.factor}, p.factor) + "+" + spreadsheet_number(p.offset) + ")", 1};
  }

  static double shown(const Quantity& q, const Place& p) { return (q.value - p.offset) / p.factor; }

  // The formula that shows a base-unit term in the line's display unit.
  static std::string to_display(const SpreadsheetTerm& t, const Place& p) {
    if (p.offset == 0) return "=" + scaled_formula(t, t.scale / p.factor);
    return "=" + scaled_formula({"(" + scaled_formula(t, t.scale) + "-" + spreadsheet_number(p.offset) + ")", 1}, 1 / p.factor);
  }

  // Expressions become formulas over the cells they read; a choice points at the cell it took.
  std::string live_formula(int i) const {
    const auto ui = static_cast<std::size_t>(i);
    const Line& l = w_.program.lines[ui];
    const Place& p = places_[ui];
    const auto& v = w_.sheet.values[ui];
    if (!v) return {};
    const auto* q = std::get_if<Quantity>(&*v);
    if (l.kind == LineKind::expression && q != nullptr) {
      for (int d : l.deps)
        if (places_[static_cast<std::size_t>(d)].row < 0) return {};
      return to_display(to_spreadsheet_formula(*l.expr, [&](std::string_view name) { return base_term(w_.program.find(name)); }), p);
    }
    if (l.kind == LineKind::choice && w_.sheet.chosen[ui] >= 0 && places_[static_cast<std::size_t>(w_.sheet.chosen[ui])].row >= 0) {
      const int c = w_.sheet.chosen[ui];
      return q != nullptr ? to_display(base_term(c), p) : "=" + ref(c);
    }
    return {};
  }

  void write_line(lxw_worksheet* ws, int i) {
    const auto ui = static_cast<std::size_t>(i);
    const Line& l = w_.program.lines[ui];
    const Place& p = places_[ui];
    const auto row = static_cast<lxw_row_t>(p.row);
    write_text(ws, row, 0, human_label(l.key), nullptr);
    write_text(ws, row, 2, p.unit, nullptr);
    write_text(ws, row, 4, line_how(w_, i), nullptr);
    write_text(ws, row, 5, l.label, nullptr);
    write_text(ws, row, 6, l.key, nullptr);
    const auto& v = w_.sheet.values[ui];
    if (!v) return;
    write_text(ws, row, 3, role_name(p.role, l.kind), nullptr);
    const auto* q = std::get_if<Quantity>(&*v);
    const std::string text = q == nullptr ? std::get<std::string>(*v) : std::string();
    lxw_format* cell = format(p.role, q != nullptr ? number_format(p.unit, shown(*q, p)) : "");
    if (!p.formula.empty()) {
      if (q != nullptr) xl().worksheet_write_formula_num(ws, row, 1, p.formula.c_str(), cell, shown(*q, p));
      else xl().worksheet_write_formula_str(ws, row, 1, p.formula.c_str(), cell, text.c_str());
    } else if (q != nullptr) {
      xl().worksheet_write_number(ws, row, 1, shown(*q, p), cell);
    } else {
      write_text(ws, row, 1, text, cell);
    }
  }

  const Worksheet& w_;
  lxw_workbook* wb_;
  lxw_format* bold_ = nullptr;
  lxw_format* title_ = nullptr;
  std::map<std::pair<Role, std::string>, lxw_format*> formats_;
  std::vector<Place> places_;
  std::vector<PlanChart> charts_;
  lxw_worksheet* charts_sheet_ = nullptr;
  std::vector<lxw_row_t> page_breaks_;
};

}  // namespace

bool xlsx_available() { return xlsx_library() != nullptr; }

void write_xlsx(const Worksheet& w, const SweepTable* sweep, AtomicFile& file) {
  const std::string& path = file.target();
  if (xlsx_library() == nullptr)
    throw UserError{{"--xlsx " + path + ": libxlsxwriter could not be loaded (" + std::string(xlsx_library_error()) + ")",
                     "install it (apt-get install libxlsxwriter4); --csv and --json work without it"}};
  lxw_workbook_options options{};
  options.constant_memory = LXW_FALSE;
  options.tmpdir = nullptr;
  lxw_workbook* wb = xl().workbook_new_opt(file.temp_path().c_str(), &options);
  if (wb == nullptr) throw UserError{{"--xlsx " + path + ": cannot create the workbook", "check that the directory is writable"}};
  Writer writer(w, wb);
  writer.layout();
  writer.summary();
  writer.charts();
  writer.sheets();
  if (sweep != nullptr && sweep->sweep != nullptr && sweep->rows != nullptr) writer.sweep(*sweep);
  writer.sources();
  writer.chart_data();
  const lxw_error err = xl().workbook_close(wb);
  if (err != LXW_NO_ERROR)
    throw UserError{{"--xlsx " + path + ": " + std::string(xl().lxw_strerror(err)), "check the disk space and the directory's permissions"}};
}

void write_xlsx(const Worksheet& w, const SweepTable* sweep, const std::string& path, bool force, const std::vector<std::string>& inputs) {
  if (xlsx_library() == nullptr)
    throw UserError{{"--xlsx " + path + ": libxlsxwriter could not be loaded (" + std::string(xlsx_library_error()) + ")",
                     "install it (apt-get install libxlsxwriter4); --csv and --json work without it"}};
  AtomicFile file(path, force, inputs);
  write_xlsx(w, sweep, file);
  file.commit();
}

#endif

}  // namespace infracalc::plan
