#include "cli/plan_xlsx.hpp"

#include <cctype>
#include <fmt/format.h>
#include <map>

#include "plugins/core/atomic_file.hpp"
#include "units/format.hpp"

#ifdef INFRACALC_HAVE_XLSX
#include "cli/xlsx_library.hpp"
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
  xl().worksheet_write_string(ws, row, col, cli::spreadsheet_text(s).c_str(), format);
}

// Excel limits sheet names to 31 characters and forbids []:*?/\.
std::string sheet_name(const std::string& title) {
  std::string s;
  for (char c : title)
    if (std::string_view("[]:*?/\\").find(c) == std::string_view::npos) s += c;
  return s.substr(0, 31);
}

std::string number(double v) {
  std::string s = fmt::format("{}", v);
  for (std::size_t i = 1; i + 1 < s.size(); ++i)
    if (s[i] == 'e' && (std::isdigit(static_cast<unsigned char>(s[i - 1])) != 0 || s[i - 1] == '.')) s[i] = 'E';
  return s;
}

// Upper-cases the exponent of number literals in a formula ("1e-06" → "1E-06").
std::string excel_numbers(std::string f) {
  for (std::size_t i = 1; i + 1 < f.size(); ++i) {
    if (f[i] != 'e') continue;
    const bool after_digit = std::isdigit(static_cast<unsigned char>(f[i - 1])) != 0 || f[i - 1] == '.';
    const char next = f[i + 1];
    const bool before_exp = std::isdigit(static_cast<unsigned char>(next)) != 0 ||
                            ((next == '-' || next == '+') && i + 2 < f.size() && std::isdigit(static_cast<unsigned char>(f[i + 2])) != 0);
    if (after_digit && before_exp) f[i] = 'E';
  }
  return f;
}

struct Place {
  std::string sheet;  // Excel sheet name
  int row = -1;       // 0-based
  std::string unit;   // display unit
  double factor = 1, offset = 0;
};

class Writer {
 public:
  Writer(const Worksheet& w, lxw_workbook* wb) : w_(w), wb_(wb) {
    bold_ = xl().workbook_add_format(wb_);
    xl().format_set_bold(bold_);
    title_ = xl().workbook_add_format(wb_);
    xl().format_set_bold(title_);
    xl().format_set_font_size(title_, 14);
    input_ = xl().workbook_add_format(wb_);
    xl().format_set_bg_color(input_, 0xFFF2CC);  // inputs a procurement team may change
    formula_ = xl().workbook_add_format(wb_);
    xl().format_set_font_color(formula_, 0x1F4E79);
    wrap_ = xl().workbook_add_format(wb_);
    xl().format_set_text_wrap(wrap_);
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
  }

  void summary() {
    lxw_worksheet* ws = xl().workbook_add_worksheet(wb_, "Summary");
    xl().worksheet_set_column(ws, 0, 0, 28, nullptr);
    xl().worksheet_set_column(ws, 1, 1, 18, nullptr);
    xl().worksheet_set_column(ws, 2, 2, 10, nullptr);
    xl().worksheet_set_column(ws, 3, 3, 70, nullptr);
    write_text(ws, 0, 0, plan_title(w_), title_);
    header(ws, 1, {"line", "value", "unit", "meaning"});
    int row = 2;
    for (std::size_t i = 0; i < w_.program.lines.size(); ++i) {
      const Line& l = w_.program.lines[i];
      if (!l.headline) continue;
      write_text(ws, static_cast<lxw_row_t>(row), 0, l.key, nullptr);
      const Place& p = places_[i];
      const auto& v = w_.sheet.values[i];
      if (v && p.row >= 0) {
        const std::string f = "=" + ref(static_cast<int>(i));
        if (const auto* q = std::get_if<Quantity>(&*v))
          xl().worksheet_write_formula_num(ws, static_cast<lxw_row_t>(row), 1, f.c_str(), formula_, shown(*q, p));
        else
          xl().worksheet_write_formula_str(ws, static_cast<lxw_row_t>(row), 1, f.c_str(), formula_, std::get<std::string>(*v).c_str());
      }
      write_text(ws, static_cast<lxw_row_t>(row), 2, p.unit, nullptr);
      write_text(ws, static_cast<lxw_row_t>(row), 3, l.label, nullptr);
      ++row;
    }
    ++row;
    xl().worksheet_write_string(ws, static_cast<lxw_row_t>(row++), 0, "checks", bold_);
    for (std::size_t c = 0; c < w_.program.checks.size(); ++c) {
      const auto& v = w_.sheet.checks[c];
      if (!v) continue;
      write_text(ws, static_cast<lxw_row_t>(row), 0, w_.program.checks[c].key, nullptr);
      xl().worksheet_write_string(ws, static_cast<lxw_row_t>(row), 1, v->first ? "yes" : "no", nullptr);
      write_text(ws, static_cast<lxw_row_t>(row), 3, v->second, nullptr);
      ++row;
    }
    ++row;
    xl().worksheet_write_string(ws, static_cast<lxw_row_t>(row++), 0,
                           "Yellow cells on the Inputs sheet are inputs; blue values are formulas over other cells and move when an "
                           "input changes. Values computed by a plugin (named in the 'how' column) do not: rerun infracalc plan.",
                           nullptr);
  }

  void sheets() {
    for (const auto& sheet : w_.program.sheets) {
      const auto lines = lines_of(sheet);
      if (lines.empty()) continue;
      lxw_worksheet* ws = xl().workbook_add_worksheet(wb_, sheet_name(sheet_title(sheet)).c_str());
      xl().worksheet_set_column(ws, 0, 0, 28, nullptr);
      xl().worksheet_set_column(ws, 1, 1, 18, nullptr);
      xl().worksheet_set_column(ws, 2, 2, 10, nullptr);
      xl().worksheet_set_column(ws, 3, 3, 60, nullptr);
      xl().worksheet_set_column(ws, 4, 4, 70, nullptr);
      write_text(ws, 0, 0, sheet_title(sheet), title_);
      header(ws, 1, {"line", "value", "unit", "how", "meaning"});
      for (int i : lines) write_line(ws, i);
    }
  }

  void sources() {
    lxw_worksheet* ws = xl().workbook_add_worksheet(wb_, "Sources");
    xl().worksheet_set_column(ws, 0, 0, 40, nullptr);
    xl().worksheet_set_column(ws, 1, 2, 12, nullptr);
    xl().worksheet_set_column(ws, 3, 3, 90, nullptr);
    xl().worksheet_set_column(ws, 4, 4, 60, nullptr);
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
  }

  void sweep(const SweepTable& t) {
    lxw_worksheet* ws = xl().workbook_add_worksheet(wb_, "Sweep");
    const SweepPlan& sw = *t.sweep;
    lxw_col_t col = 0;
    for (const auto& a : sw.axes) write_text(ws, 0, col++, a.key, bold_);
    std::vector<std::pair<double, double>> conv;
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
      write_text(ws, 0, col++, (c + (unit.empty() ? "" : " (" + unit + ")")), bold_);
    }
    xl().worksheet_write_string(ws, 0, col, "checks failed", bold_);
    lxw_row_t row = 1;
    for (const auto& r : *t.rows) {
      col = 0;
      for (const auto& l : r.labels) write_text(ws, row, col++, l, nullptr);
      for (std::size_t c = 0; c < r.values.size(); ++c, ++col) {
        if (!r.values[c]) continue;
        if (const auto* q = std::get_if<Quantity>(&*r.values[c]))
          xl().worksheet_write_number(ws, row, col, (q->value - conv[c].second) / conv[c].first, nullptr);
        else
          write_text(ws, row, col, std::get<std::string>(*r.values[c]), nullptr);
      }
      write_text(ws, row, col, (r.error.empty() ? r.failed : "error: " + r.error), nullptr);
      ++row;
    }
  }

 private:
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

  void header(lxw_worksheet* ws, lxw_row_t row, std::initializer_list<const char*> names) {
    lxw_col_t c = 0;
    for (const char* n : names) xl().worksheet_write_string(ws, row, c++, n, bold_);
  }

  std::string ref(int i) const {
    const Place& p = places_[static_cast<std::size_t>(i)];
    return "'" + p.sheet + "'!$B$" + std::to_string(p.row + 1);
  }

  // A referenced line's value in base units, as a formula term.
  std::string base_term(int i) const {
    const Place& p = places_[static_cast<std::size_t>(i)];
    std::string t = ref(i);
    if (p.factor != 1) t += "*" + number(p.factor);
    if (p.offset != 0) t += "+" + number(p.offset);
    return "(" + t + ")";
  }

  static double shown(const Quantity& q, const Place& p) { return (q.value - p.offset) / p.factor; }

  // The formula that shows a base-unit expression in the line's display unit.
  static std::string to_display(const std::string& base, const Place& p) {
    std::string f = base;
    if (p.offset != 0) f = "(" + f + "-" + number(p.offset) + ")";
    if (p.factor != 1) f = "(" + f + ")/" + number(p.factor);
    return "=" + f;
  }

  void write_line(lxw_worksheet* ws, int i) {
    const auto ui = static_cast<std::size_t>(i);
    const Line& l = w_.program.lines[ui];
    const Place& p = places_[ui];
    const auto row = static_cast<lxw_row_t>(p.row);
    write_text(ws, row, 0, l.key, nullptr);
    write_text(ws, row, 2, p.unit, nullptr);
    write_text(ws, row, 3, line_how(w_, i), nullptr);
    write_text(ws, row, 4, l.label, nullptr);
    const auto& v = w_.sheet.values[ui];
    if (!v) return;
    const auto* q = std::get_if<Quantity>(&*v);
    const std::string text = q == nullptr ? std::get<std::string>(*v) : std::string();
    // Expressions become formulas over the cells they read; a choice points at the cell it took.
    std::string formula;
    if (l.kind == LineKind::expression && q != nullptr) {
      bool all_placed = true;
      for (int d : l.deps) all_placed = all_placed && places_[static_cast<std::size_t>(d)].row >= 0;
      if (all_placed)
        formula = to_display(excel_numbers(to_spreadsheet_formula(*l.expr, [&](std::string_view name) {
                               return base_term(w_.program.find(name));
                             })),
                             p);
    } else if (l.kind == LineKind::choice && w_.sheet.chosen[ui] >= 0 && places_[static_cast<std::size_t>(w_.sheet.chosen[ui])].row >= 0) {
      const int c = w_.sheet.chosen[ui];
      formula = q != nullptr ? to_display(base_term(c), p) : "=" + ref(c);
    }
    lxw_format* fmt_cell = l.kind == LineKind::input ? input_ : nullptr;
    if (!formula.empty()) {
      if (q != nullptr) xl().worksheet_write_formula_num(ws, row, 1, formula.c_str(), formula_, shown(*q, p));
      else xl().worksheet_write_formula_str(ws, row, 1, formula.c_str(), formula_, text.c_str());
    } else if (q != nullptr) {
      xl().worksheet_write_number(ws, row, 1, shown(*q, p), fmt_cell);
    } else {
      write_text(ws, row, 1, text, fmt_cell);
    }
  }

  const Worksheet& w_;
  lxw_workbook* wb_;
  lxw_format* bold_ = nullptr;
  lxw_format* title_ = nullptr;
  lxw_format* input_ = nullptr;
  lxw_format* formula_ = nullptr;
  lxw_format* wrap_ = nullptr;
  std::vector<Place> places_;
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
  writer.sheets();
  if (sweep != nullptr && sweep->sweep != nullptr && sweep->rows != nullptr) writer.sweep(*sweep);
  writer.sources();
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
