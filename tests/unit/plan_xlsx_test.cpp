// The workbook: opened as the zip of XML it is, every formula is evaluated from the cells it references and
// must give the value the planner stored; changing an input cell moves the totals that depend on it.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <sstream>
#include <unistd.h>

#include "plan/plan_charts.hpp"
#include "plan/plan_output.hpp"
#include "plan/plan_sweep.hpp"
#include "plan/plan_xlsx.hpp"
#include "plan_test_util.hpp"
#include "documents/json.hpp"
#include "units/parse.hpp"

#ifdef INFRACALC_TEST_ZLIB
#include <zlib.h>
#endif

using namespace infracalc;
namespace fs = std::filesystem;

namespace {

#ifdef INFRACALC_TEST_ZLIB

std::uint32_t u32(const std::string& s, std::size_t at) {
  return static_cast<std::uint32_t>(static_cast<unsigned char>(s[at])) | static_cast<std::uint32_t>(static_cast<unsigned char>(s[at + 1])) << 8 |
         static_cast<std::uint32_t>(static_cast<unsigned char>(s[at + 2])) << 16 |
         static_cast<std::uint32_t>(static_cast<unsigned char>(s[at + 3])) << 24;
}
std::uint16_t u16(const std::string& s, std::size_t at) {
  return static_cast<std::uint16_t>(static_cast<unsigned char>(s[at]) | static_cast<unsigned char>(s[at + 1]) << 8);
}

// A minimal zip reader: the central directory, then each member stored or deflated (RFC 1951, raw).
std::map<std::string, std::string> unzip(const std::string& zip) {
  std::map<std::string, std::string> out;
  std::size_t eocd = zip.rfind(std::string("PK\x05\x06", 4));
  REQUIRE(eocd != std::string::npos);
  const std::size_t entries = u16(zip, eocd + 10);
  std::size_t p = u32(zip, eocd + 16);
  for (std::size_t k = 0; k < entries; ++k) {
    REQUIRE(u32(zip, p) == 0x02014b50);
    const std::uint16_t method = u16(zip, p + 10);
    const std::uint32_t csize = u32(zip, p + 20), usize = u32(zip, p + 24);
    const std::uint16_t nlen = u16(zip, p + 28), xlen = u16(zip, p + 30), clen = u16(zip, p + 32);
    const std::uint32_t local = u32(zip, p + 42);
    const std::string name = zip.substr(p + 46, nlen);
    p += 46 + nlen + xlen + clen;
    const std::size_t data = local + 30 + u16(zip, local + 26) + u16(zip, local + 28);
    std::string body = zip.substr(data, csize);
    if (method == 0) {
      out[name] = body;
      continue;
    }
    REQUIRE(method == 8);
    std::string raw(usize, '\0');
    z_stream zs{};
    REQUIRE(inflateInit2(&zs, -MAX_WBITS) == Z_OK);
    zs.next_in = reinterpret_cast<Bytef*>(body.data());
    zs.avail_in = static_cast<uInt>(body.size());
    zs.next_out = reinterpret_cast<Bytef*>(raw.data());
    zs.avail_out = static_cast<uInt>(raw.size());
    const int rc = inflate(&zs, Z_FINISH);
    inflateEnd(&zs);
    REQUIRE(rc == Z_STREAM_END);
    out[name] = raw;
  }
  return out;
}

std::string unescape(std::string s) {
  const std::pair<const char*, const char*> ents[] = {{"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&apos;", "'"}, {"&amp;", "&"}};
  for (const auto& [e, c] : ents)
    for (std::size_t pos; (pos = s.find(e)) != std::string::npos;) s.replace(pos, std::strlen(e), c);
  return s;
}

struct CellX {
  std::string formula;  // without '='
  std::string text;     // string cells
  double number = std::nan("");
  bool is_text = false;
  int style = 0;  // index into styles.xml's cellXfs
};

using Book = std::map<std::string, std::map<std::string, CellX>>;  // sheet → "B12" → cell

Book read_book(const std::map<std::string, std::string>& files) {
  std::vector<std::string> shared;
  if (auto it = files.find("xl/sharedStrings.xml"); it != files.end()) {
    const std::regex si("<si>(?:<t[^>]*>([^<]*)</t>|<t/>)</si>");
    for (std::sregex_iterator m(it->second.begin(), it->second.end(), si), end; m != end; ++m) shared.push_back(unescape((*m)[1]));
  }
  const std::string& wb = files.at("xl/workbook.xml");
  const std::regex sheet_re("<sheet name=\"([^\"]*)\"");
  Book book;
  int n = 0;
  for (std::sregex_iterator m(wb.begin(), wb.end(), sheet_re), end; m != end; ++m) {
    const std::string name = unescape((*m)[1]);
    const std::string& xml = files.at("xl/worksheets/sheet" + std::to_string(++n) + ".xml");
    const std::regex cell_re("<c r=\"([A-Z]+[0-9]+)\"([^>]*?)(?:/>|>(.*?)</c>)");
    for (std::sregex_iterator c(xml.begin(), xml.end(), cell_re), e2; c != e2; ++c) {
      CellX x;
      const std::string attrs = (*c)[2];
      std::smatch style;
      if (std::regex_search(attrs, style, std::regex("s=\"([0-9]+)\""))) x.style = std::stoi(style[1]);
      const std::string inner = (*c)[3];
      std::smatch f, v;
      if (std::regex_search(inner, f, std::regex("<f>(.*?)</f>"))) x.formula = unescape(f[1]);
      if (std::regex_search(inner, v, std::regex("<v>(.*?)</v>"))) {
        if (attrs.find("t=\"s\"") != std::string::npos) {
          x.is_text = true;
          x.text = shared.at(std::stoul(v[1]));
        } else if (attrs.find("t=\"str\"") != std::string::npos) {
          x.is_text = true;
          x.text = unescape(v[1]);
        } else {
          x.number = std::stod(v[1]);
        }
      }
      book[name][(*c)[1]] = x;
    }
  }
  return book;
}

// Evaluates the spreadsheet formulas infracalc writes: numbers, 'Sheet'!$B$n references, + - * / ^,
// parentheses, CEILING, FLOOR, ROUND, MIN, MAX, SQRT, ABS.
class Formula {
 public:
  Formula(const std::string& text, std::function<double(const std::string&, const std::string&)> ref) : s_(text), ref_(std::move(ref)) {}
  double run() {
    const double v = sum();
    REQUIRE(i_ == s_.size());
    return v;
  }

 private:
  double sum() {
    double v = product();
    while (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-')) {
      const char op = s_[i_++];
      const double r = product();
      v = op == '+' ? v + r : v - r;
    }
    return v;
  }
  double product() {
    double v = power();
    while (i_ < s_.size() && (s_[i_] == '*' || s_[i_] == '/')) {
      const char op = s_[i_++];
      const double r = power();
      v = op == '*' ? v * r : v / r;
    }
    return v;
  }
  double power() {
    double v = unary();
    if (i_ < s_.size() && s_[i_] == '^') {
      ++i_;
      v = std::pow(v, power());
    }
    return v;
  }
  double unary() {
    if (s_[i_] == '-') {
      ++i_;
      return -unary();
    }
    return atom();
  }
  double atom() {
    const char c = s_[i_];
    if (c == '(') {
      ++i_;
      const double v = sum();
      REQUIRE(s_[i_] == ')');
      ++i_;
      return v;
    }
    if (c == '\'') {
      const std::size_t close = s_.find('\'', i_ + 1);
      const std::string sheet = s_.substr(i_ + 1, close - i_ - 1);
      i_ = close + 1;
      REQUIRE(s_[i_] == '!');
      ++i_;
      std::string cell;
      while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) != 0 || s_[i_] == '$')) {
        if (s_[i_] != '$') cell += s_[i_];
        ++i_;
      }
      return ref_(sheet, cell);
    }
    if (std::isdigit(static_cast<unsigned char>(c)) != 0 || c == '.') {
      std::size_t used = 0;
      const double v = std::stod(s_.substr(i_), &used);
      i_ += used;
      return v;
    }
    std::string name;
    while (i_ < s_.size() && std::isalpha(static_cast<unsigned char>(s_[i_])) != 0) name += s_[i_++];
    REQUIRE(s_[i_] == '(');
    ++i_;
    std::vector<double> args{sum()};
    while (s_[i_] == ',') {
      ++i_;
      args.push_back(sum());
    }
    REQUIRE(s_[i_] == ')');
    ++i_;
    if (name == "CEILING") return std::ceil(args[0] / args[1]) * args[1];
    if (name == "FLOOR") return std::floor(args[0] / args[1]) * args[1];
    if (name == "ROUND") return std::round(args[0]);
    if (name == "MIN") return *std::min_element(args.begin(), args.end());
    if (name == "MAX") return *std::max_element(args.begin(), args.end());
    if (name == "SQRT") return std::sqrt(args[0]);
    if (name == "ABS") return std::fabs(args[0]);
    FAIL("unknown function " << name);
    return 0;
  }

  std::string s_;
  std::size_t i_ = 0;
  std::function<double(const std::string&, const std::string&)> ref_;
};

// The same row's unit cell, column C.
std::string column_c(std::string cell) {
  cell[0] = 'C';
  return cell;
}

// The column of a sheet whose heading (row 2) is `name` ("key": the line keys of --json).
std::string column_named(const Book& book, const std::string& sheet, const std::string& name) {
  for (const auto& [ref, c] : book.at(sheet))
    if (ref.size() == 2 && ref[1] == '2' && c.is_text && c.text == name) return ref.substr(0, 1);
  FAIL("no column " << name << " on sheet " << sheet);
  return {};
}

// The row number of a cell reference ("B12" -> 12).
int row_of(const std::string& ref) { return std::stoi(ref.substr(ref.find_first_of("0123456789"))); }

// The value cell (column B) of the row whose key column holds `key`.
std::string value_cell(const Book& book, const std::string& sheet, const std::string& key) {
  const std::string col = column_named(book, sheet, "key");
  for (const auto& [ref, c] : book.at(sheet))
    if (ref.compare(0, col.size(), col) == 0 && std::isdigit(static_cast<unsigned char>(ref[col.size()])) != 0 && c.is_text &&
        c.text == key)
      return "B" + std::to_string(row_of(ref));
  FAIL("no line " << key << " on sheet " << sheet);
  return {};
}

// A unit as the parser reads it; "1" (a plain number in --json) and "" (none shown) are plain numbers and
// "req/s" is requests per second.
Unit unit_of(const std::string& text) {
  if (text.empty() || text == "1") return Unit{};
  auto u = parse_unit(text == "req/s" ? "1/s" : text);
  INFO("unit " << text);
  REQUIRE(u.ok());
  return *u;
}
std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Column letters of a 0-based column (A..Z, AA..).
std::string column_name(std::size_t c) {
  std::string out;
  for (std::size_t n = c + 1; n > 0; n = (n - 1) / 26) out.insert(out.begin(), static_cast<char>('A' + (n - 1) % 26));
  return out;
}

// Checks a workbook cell against a value of the --json output ({"value": .., "unit": ..}): text equal; a
// number shown in a unit of the same dimension as the JSON's, and equal once both are converted by the unit
// parser alone (the writer's own conversion is what is under test).
void check_against_json(const Book& book, const std::string& sheet, const std::string& cell, const std::string& unit, const Node& json) {
  const Node* value = json.find("value");
  REQUIRE(value != nullptr);
  INFO(sheet << "!" << cell << " in '" << unit << "'");
  REQUIRE(book.at(sheet).count(cell) == 1);
  const CellX& x = book.at(sheet).at(cell);
  if (value->kind == Node::Kind::string) {
    CHECK(x.is_text);
    CHECK(x.text == value->str);
    return;
  }
  REQUIRE(value->is_number());
  const Node* json_unit = json.find("unit");
  REQUIRE(json_unit != nullptr);
  const Unit machine = unit_of(json_unit->str), shown = unit_of(unit);
  INFO("--json gives " << value->number << " " << json_unit->str);
  CHECK(shown.dim == machine.dim);  // "$/yr" on a sum of dollars scaled it by the seconds in a year
  CHECK_FALSE(x.is_text);
  CHECK(x.number == Approx((value->number * machine.factor - shown.offset) / shown.factor).epsilon(1e-12).margin(1e-300));
}

// A directory of this process's own for the workbooks it writes.
fs::path scratch_dir() { return fs::temp_directory_path() / ("infracalc-plan-xlsx-" + std::to_string(::getpid())); }

// Writes the plan's workbook into a temporary directory and reads it back.
Book workbook_of(const plan::Worksheet& w) {
  const fs::path dir = scratch_dir();
  fs::create_directories(dir);
  const std::string path = (dir / "plan.xlsx").string();
  plan::write_xlsx(w, nullptr, path, false, {});
  CHECK_THROWS_AS(plan::write_xlsx(w, nullptr, path, false, {}), UserError);  // no overwrite without --force
  plan::write_xlsx(w, nullptr, path, true, {});
  Book book = read_book(unzip(read_file(path)));
  fs::remove_all(dir);
  return book;
}

// Writes the plan's workbook and returns its members (the XML files), unparsed.
std::map<std::string, std::string> workbook_files(const plan::Worksheet& w) {
  const fs::path dir = scratch_dir();
  fs::create_directories(dir);
  const std::string path = (dir / "plan.xlsx").string();
  plan::write_xlsx(w, nullptr, path, true, {});
  auto files = unzip(read_file(path));
  fs::remove_all(dir);
  return files;
}

// What styles.xml says of one cell style: its number format, and whether it is italic on a grey fill.
struct CellStyle {
  std::string number_format = "General";
  bool italic = false;
  std::string fill;  // the fill's rgb, empty for none
};

std::vector<CellStyle> read_styles(const std::string& xml) {
  std::map<int, std::string> codes;
  const std::regex numfmt("<numFmt numFmtId=\"([0-9]+)\" formatCode=\"([^\"]*)\"/>");
  for (std::sregex_iterator m(xml.begin(), xml.end(), numfmt), end; m != end; ++m) codes[std::stoi((*m)[1])] = unescape((*m)[2]);
  auto section = [&](const std::string& tag) {
    const auto a = xml.find("<" + tag), b = xml.find("</" + tag + ">");
    REQUIRE(a != std::string::npos);
    REQUIRE(b != std::string::npos);
    return xml.substr(a, b - a);
  };
  std::vector<bool> italic_fonts;
  const std::string fonts = section("fonts");
  const std::regex font("<font>(.*?)</font>|<font/>");
  for (std::sregex_iterator m(fonts.begin(), fonts.end(), font), end; m != end; ++m) italic_fonts.push_back((*m)[1].str().find("<i/>") != std::string::npos);
  std::vector<std::string> fill_colors;
  const std::string fills = section("fills");
  const std::regex fill("<fill>(.*?)</fill>");
  for (std::sregex_iterator m(fills.begin(), fills.end(), fill), end; m != end; ++m) {
    std::smatch rgb;
    const std::string body = (*m)[1];
    fill_colors.push_back(std::regex_search(body, rgb, std::regex("fgColor rgb=\"([0-9A-F]+)\"")) ? rgb[1].str() : "");
  }
  std::vector<CellStyle> out;
  const std::string xfs = section("cellXfs");
  const std::regex xf("<xf ([^>]*?)/?>");
  for (std::sregex_iterator m(xfs.begin(), xfs.end(), xf), end; m != end; ++m) {
    const std::string a = (*m)[1];
    std::smatch v;
    CellStyle st;
    if (std::regex_search(a, v, std::regex("numFmtId=\"([0-9]+)\"")) && codes.count(std::stoi(v[1]))) st.number_format = codes.at(std::stoi(v[1]));
    if (std::regex_search(a, v, std::regex("fontId=\"([0-9]+)\""))) st.italic = italic_fonts.at(std::stoul(v[1]));
    if (std::regex_search(a, v, std::regex("fillId=\"([0-9]+)\""))) st.fill = fill_colors.at(std::stoul(v[1]));
    out.push_back(st);
  }
  return out;
}

// Checks every line of the JSON against its row of the workbook, in the row's unit; returns how many it compared.
int compare_lines(const Book& book, const Node& json_lines, std::map<std::string, const Node*>& by_key) {
  int compared = 0;
  for (const auto& [key, line] : json_lines.members) {
    const Node* value = line.find("value");
    REQUIRE(value != nullptr);
    by_key[key] = &line;
    if (value->kind == Node::Kind::null) continue;
    const std::string sheet = plan::sheet_title(line.find("sheet")->str);
    INFO("line " << key << " on sheet " << sheet);
    REQUIRE(book.count(sheet) == 1);
    const std::string cell = value_cell(book, sheet, key);
    check_against_json(book, sheet, cell, book.at(sheet).count(column_c(cell)) ? book.at(sheet).at(column_c(cell)).text : "", line);
    ++compared;
  }
  return compared;
}

// Evaluates every formula from the stored values of the cells it reads against its own stored value; returns how
// many formulas there are.
int check_formulas(const Book& book) {
  int formulas = 0;
  for (const auto& [sheet, cells] : book)
    for (const auto& [ref, c] : cells) {
      if (c.formula.empty() || c.is_text) continue;
      ++formulas;
      const double v = Formula(c.formula, [&](const std::string& s, const std::string& r) {
                         INFO(sheet << "!" << ref << " reads " << s << "!" << r);
                         REQUIRE(book.count(s) == 1);
                         REQUIRE(book.at(s).count(r) == 1);
                         return book.at(s).at(r).number;
                       }).run();
      INFO(sheet << "!" << ref << " = " << c.formula);
      CHECK(v == Approx(c.number).epsilon(1e-9).margin(1e-12));
    }
  return formulas;
}

#endif

// True when this build writes workbooks and the test can open them; otherwise says why not.
bool workbook_testable() {
  if (!plan::xlsx_available()) {
    WARN("built without libxlsxwriter: --xlsx reports how to get it; nothing to open");
    return false;
  }
#ifndef INFRACALC_TEST_ZLIB
  WARN("zlib not found for the test: the workbook is not opened");
  return false;
#else
  return true;
#endif
}

}  // namespace

TEST_CASE("the workbook's formulas reproduce the worksheet and move with their inputs", "[plan]") {
  if (!workbook_testable()) return;
#ifdef INFRACALC_TEST_ZLIB
  // The operating point of an 80%-MBU, 50%-MFU replica: doubling the rate there stays within one fabric tier, so
  // the workbook's live formulas (the fabric is a plugin step, fixed in the workbook) can be checked against a rerun.
  const std::vector<std::string> point = {"hardware.mbu=80%", "hardware.mfu=50%"};
  auto l = plan_test::load_example("llama3-70b-h100.toml", point);
  REQUIRE(l->problems.empty());
  const plan::Worksheet w{l->spec, *l->program, l->sheet};
  const Book book = workbook_of(w);

  // Every line of every sheet, and every line of the summary, holds the value `plan --json` prints for the
  // same plan, in the unit of its row (Summary!B21, cost_per_year, was 31,557,600x the JSON's: issue 19).
  auto json = read_json(plan::plan_json(w), "plan --json");
  REQUIRE(json.ok());
  const Node* json_lines = json->find("lines");
  REQUIRE(json_lines != nullptr);
  std::map<std::string, const Node*> by_key;
  CHECK(compare_lines(book, *json_lines, by_key) > 150);
  int summary_compared = 0;
  int checks_row = 1 << 30;  // the summary's lines come before its "checks" heading
  for (const auto& [ref, c] : book.at("Summary"))
    if (ref[0] == 'A' && c.is_text && c.text == "checks") checks_row = row_of(ref);
  const std::string key_col = column_named(book, "Summary", "key");
  for (const auto& [ref, c] : book.at("Summary")) {
    if (ref.compare(0, key_col.size(), key_col) != 0 || !c.is_text || row_of(ref) <= 2 || row_of(ref) >= checks_row || by_key.count(c.text) == 0)
      continue;
    const std::string cell = "B" + std::to_string(row_of(ref));
    const std::string unit = book.at("Summary").count(column_c(cell)) ? book.at("Summary").at(column_c(cell)).text : "";
    INFO("summary line " << c.text);
    REQUIRE(by_key.at(c.text)->find("value")->kind != Node::Kind::null);
    check_against_json(book, "Summary", cell, unit, *by_key.at(c.text));
    ++summary_compared;
  }
  CHECK(summary_compared == static_cast<int>(plan::default_columns(*l->program).size()));
  for (const char* sheet : {"Summary", "Inputs", "Memory per device", "Decode", "Serving", "Fleet", "Network", "Power and energy", "Cooling",
                            "Cost of ownership", "Cost per token", "Sources"})
    CHECK(book.count(sheet) == 1);

  // Every formula, evaluated from the stored values of the cells it reads, gives its own stored value.
  CHECK(check_formulas(book) > 60);

  // Lines computed from other lines are formulas; values are in the display unit of their row.
  const std::string racks = value_cell(book, "Fleet", "racks");
  CHECK(book.at("Fleet").at(racks).formula.find("CEILING(") != std::string::npos);
  CHECK(book.at("Fleet").at(racks).number == l->q("racks"));
  const std::string mtok = value_cell(book, "Cost per token", "cost_per_mtok");
  CHECK_FALSE(book.at("Cost per token").at(mtok).formula.empty());
  CHECK(book.at("Cost per token").at(mtok).number == Approx(l->q("cost_per_mtok") * 1e6).epsilon(1e-12));
  CHECK(book.at("Cost per token").at(column_c(mtok)).text == "$/Mtok");
  const std::string rate = value_cell(book, "Inputs", "rate");
  CHECK(book.at("Inputs").at(rate).formula.empty());
  CHECK(book.at("Inputs").at(rate).number == 20);

  // Double the request rate in the Inputs sheet and recompute the formulas that depend on it.
  std::map<std::string, double> memo;
  std::function<double(const std::string&, const std::string&)> live = [&](const std::string& s, const std::string& r) -> double {
    if (s == "Inputs" && r == rate) return 40;
    const std::string key = s + "!" + r;
    if (auto it = memo.find(key); it != memo.end()) return it->second;
    const CellX& c = book.at(s).at(r);
    const double v = c.formula.empty() ? c.number : Formula(c.formula, live).run();
    memo[key] = v;
    return v;
  };
  const std::string gpus = value_cell(book, "Fleet", "gpus");
  const std::string year = value_cell(book, "Cost of ownership", "cost_per_year");
  const std::string bill = value_cell(book, "Power and energy", "energy_bill");
  CHECK(live("Fleet", gpus) > l->q("gpus"));
  CHECK(live("Cost of ownership", year) > book.at("Cost of ownership").at(year).number);
  CHECK(live("Power and energy", bill) > book.at("Power and energy").at(bill).number);
  // Twice the load on the same fleet sizing rule: the fleet doubles up to the rounding of whole nodes.
  auto twice = plan_test::load_example("llama3-70b-h100.toml", {"workload.rate=40/s", point[0], point[1]});
  REQUIRE(twice->problems.empty());
  CHECK(live("Fleet", gpus) == twice->q("gpus"));
  CHECK(live("Power and energy", bill) == Approx(twice->q("energy_bill") / 1.0).epsilon(0.05));

  // The Sweep sheet: each row holds the values of the sweep's JSON Lines (cost_per_year was 31,557,600x off there too).
  {
    plan::Problems problems;
    const plan::SweepPlan sw = plan::make_sweep(l->spec, *l->program, {"workload.rate=10/s,40/s", "money.capex_per_gpu=$30000,$40000"}, "", "", problems);
    INFO(problems.text());
    REQUIRE(problems.empty());
    l->ev->set_cross_checks(false);
    plan::SweepStats stats;
    std::vector<plan::SweepRow> rows;
    plan::run_sweep(*l->ev, l->spec, l->in, sw, stats, [&](plan::SweepRow&& r) { rows.push_back(std::move(r)); });
    REQUIRE(rows.size() == 4);
    const fs::path dir = scratch_dir();
    fs::create_directories(dir);
    const std::string sweep_path = (dir / "sweep.xlsx").string();
    const plan::SweepTable table{&sw, &rows};
    plan::write_xlsx(w, &table, sweep_path, false, {});
    const Book sweep_book = read_book(unzip(read_file(sweep_path)));
    fs::remove_all(dir);
    REQUIRE(sweep_book.count("Sweep") == 1);
    const auto& sheet = sweep_book.at("Sweep");
    writers::OutputOptions opt;
    opt.format = writers::OutputFormat::json;
    const std::string jsonl = plan::render_sweep(*l->program, sw, rows, opt);
    std::istringstream lines(jsonl);
    std::string text;
    std::size_t r = 0;
    int compared = 0;
    while (std::getline(lines, text)) {
      auto row = read_json(text, "plan --sweep --json");
      REQUIRE(row.ok());
      ++r;  // workbook row r + 1 (row 1 is the header)
      for (std::size_t c = 0; c < sw.columns.size(); ++c) {
        const std::string col = column_name(sw.axes.size() + c);
        const std::string head = sheet.at(col + "1").text;  // "key (unit)" or "key"
        const auto open = head.find(" (");
        CHECK(head.substr(0, open) == sw.columns[c]);
        const std::string unit = open == std::string::npos ? "" : head.substr(open + 2, head.size() - open - 3);
        const Node* v = row->find(sw.columns[c]);
        REQUIRE(v != nullptr);
        if (v->kind == Node::Kind::null) continue;
        const std::string cell = col + std::to_string(r + 1);
        INFO("sweep row " << r << " column " << sw.columns[c]);
        if (v->is_table()) {
          check_against_json(sweep_book, "Sweep", cell, unit, *v);
        } else {  // text: {"value": text}
          Node wrapped;
          wrapped.kind = Node::Kind::table;
          wrapped.members.push_back({"value", *v});
          check_against_json(sweep_book, "Sweep", cell, unit, wrapped);
        }
        ++compared;
      }
    }
    CHECK(r == rows.size());
    CHECK(compared >= static_cast<int>(rows.size() * sw.columns.size()) - 4);
    // The owner's cost per year is among the sweep's columns (it was the one 31,557,600x off).
    CHECK(std::find(sw.columns.begin(), sw.columns.end(), "cost_per_year") != sw.columns.end());
  }
#endif
}

TEST_CASE("a fine-tuning plan's workbook: fit finetune's figures as numbers, its cost as live formulas", "[plan]") {
  if (!workbook_testable()) return;
#ifdef INFRACALC_TEST_ZLIB
  auto l = plan_test::load_example("llama3.1-70b-qlora-h100.toml");
  REQUIRE(l->problems.empty());
  const plan::Worksheet w{l->spec, *l->program, l->sheet};
  const Book book = workbook_of(w);
  auto json = read_json(plan::plan_json(w), "plan --json");
  REQUIRE(json.ok());
  std::map<std::string, const Node*> by_key;
  CHECK(compare_lines(book, *json->find("lines"), by_key) > 100);
  CHECK(check_formulas(book) > 40);
  CHECK(book.count("Fine-tuning") == 1);
  // The job's figures come from fit finetune (numbers); its cost is a formula over the owner's cost and GPU-hours.
  CHECK(book.at("Fine-tuning").at(value_cell(book, "Fine-tuning", "gpu_time")).formula.empty());
  const std::string cost = value_cell(book, "Cost per token", "finetune_cost");
  CHECK_FALSE(book.at("Cost per token").at(cost).formula.empty());
  CHECK(book.at("Cost per token").at(cost).number == Approx(l->q("finetune_cost")).epsilon(1e-9));
#endif
}

TEST_CASE("a sweep's workbook whose first point failed a step lists the failed steps on its summary", "[plan]") {
  if (!workbook_testable()) return;
#ifdef INFRACALC_TEST_ZLIB
  auto l = plan_test::load_example("site-100mw.toml", {"hardware.tp=5"});
  REQUIRE(l->problems.empty());
  REQUIRE_FALSE(l->sheet.errors.empty());
  const Book book = workbook_of(plan::Worksheet{l->spec, *l->program, l->sheet});
  std::vector<std::string> column_a;
  for (int row = 1; book.at("Summary").count("A" + std::to_string(row)) != 0 || row < 40; ++row)
    if (auto it = book.at("Summary").find("A" + std::to_string(row)); it != book.at("Summary").end()) column_a.push_back(it->second.text);
  const auto head = std::find(column_a.begin(), column_a.end(), "failed steps");
  REQUIRE(head != column_a.end());
  REQUIRE(head + 1 != column_a.end());
  CHECK(head[1].rfind("step fit_tp (fit inference): --tp 5 does not divide", 0) == 0);
  auto ok = plan_test::load_example("site-100mw.toml");
  const Book fine = workbook_of(plan::Worksheet{ok->spec, *ok->program, ok->sheet});
  for (const auto& [ref, cell] : fine.at("Summary")) CHECK(cell.text != "failed steps");
#endif
}

TEST_CASE("the workbook reads and prints well: number formats, human labels, short formulas, a marker on fixed values, print "
          "setup and native charts", "[plan]") {
  if (!workbook_testable()) return;
#ifdef INFRACALC_TEST_ZLIB
  auto l = plan_test::load_example("llama3-70b-h100.toml");
  REQUIRE(l->problems.empty());
  const plan::Worksheet w{l->spec, *l->program, l->sheet};
  const auto files = workbook_files(w);
  const Book book = read_book(files);
  const std::vector<CellStyle> styles = read_styles(files.at("xl/styles.xml"));
  auto json = read_json(plan::plan_json(w), "plan --json");
  REQUIRE(json.ok());
  const Node* lines = json->find("lines");
  REQUIRE(lines != nullptr);

  // Every number on a line sheet has a number format: four significant digits at least where the value is below
  // one, never the fifteen a General cell shows ("0.0280566395937741 MW"), thousands separators on whole numbers.
  int formatted = 0, fixed = 0, formulas = 0;
  for (const auto& [key, line] : lines->members) {
    if (line.find("value")->kind == Node::Kind::null) continue;
    const std::string sheet = plan::sheet_title(line.find("sheet")->str);
    const std::string cell = value_cell(book, sheet, key);
    const CellX& x = book.at(sheet).at(cell);
    const CellStyle& st = styles.at(static_cast<std::size_t>(x.style));
    INFO(sheet << "!" << cell << " (" << key << ") = " << x.number << " as " << st.number_format);
    std::string kind_col = cell;
    kind_col[0] = 'D';
    const std::string kind = book.at(sheet).count(kind_col) ? book.at(sheet).at(kind_col).text : "";
    // The marker: a line a plugin or a planner rule computed is written as a number that no input moves; it says
    // "fixed" and is italic on grey. A formula says "formula".
    const std::string how = line.find("kind")->str;
    if (how == "plugin" || how == "rule") {
      CHECK(x.formula.empty());
      CHECK(kind == "fixed");
      CHECK(st.italic);
      CHECK(st.fill == "FFE7E6E6");
      ++fixed;
    }
    if (!x.formula.empty()) {
      CHECK(kind == "formula");
      ++formulas;
    }
    if (how == "input") CHECK(kind == "input");
    // The row's first column is the line as people read it; the key stays in its own column.
    std::string label = cell;
    label[0] = 'A';
    CHECK(book.at(sheet).at(label).text != key);
    if (x.is_text) continue;
    ++formatted;
    CHECK(st.number_format != "General");
    const double a = std::fabs(x.number);
    const auto dot = st.number_format.find('.');
    std::size_t decimals = 0;
    for (std::size_t k = dot == std::string::npos ? st.number_format.size() : dot + 1; k < st.number_format.size() && st.number_format[k] == '0'; ++k)
      ++decimals;
    if (st.number_format.find("E+") == std::string::npos && a > 0 && a < 1)
      CHECK(static_cast<double>(decimals) >= -std::floor(std::log10(a)) + 2);  // three significant digits or more
    if (a >= 1) CHECK(decimals <= 3);
    if (a >= 1000 && x.number == std::round(x.number)) CHECK(st.number_format == "#,##0");
  }
  CHECK(formatted > 150);
  CHECK(fixed > 40);
  CHECK(formulas > 60);
  CHECK(book.at("Summary").at("A2").text == "item");
  CHECK(book.at("Fleet").at("A" + value_cell(book, "Fleet", "gpus").substr(1)).text == "GPUs");
  CHECK(book.at("KV cache").at("A" + value_cell(book, "KV cache", "kv_bytes_per_token").substr(1)).text == "KV bytes per token");

  // Formulas carry unit factors the short way round: no constant with more significant digits than a year in
  // seconds (31557600), where a formula once divided by 0.0002777777777777778 to show $/h.
  const std::regex literal("(^|[^A-Z$0-9.])([0-9]+\\.?[0-9]*)(E[-+]?[0-9]+)?");
  int literals = 0;
  for (const auto& [sheet, cells] : book)
    for (const auto& [ref, c] : cells) {
      if (c.formula.empty()) continue;
      for (std::sregex_iterator m(c.formula.begin(), c.formula.end(), literal), end; m != end; ++m) {
        std::string digits;
        for (char ch : (*m)[2].str())
          if (ch != '.') digits += ch;
        const auto first = digits.find_first_not_of('0'), last = digits.find_last_not_of('0');
        const std::size_t significant = first == std::string::npos ? 0 : last - first + 1;
        INFO(sheet << "!" << ref << " = " << c.formula);
        CHECK(significant <= 6);
        ++literals;
      }
    }
  CHECK(literals > 20);

  // Printing: the summary on one landscape page, every other sheet one page wide with its column headings on every
  // page, the plan's title in the header.
  const std::string& summary = files.at("xl/worksheets/sheet1.xml");
  CHECK(summary.find("<pageSetUpPr fitToPage=\"1\"/>") != std::string::npos);
  CHECK(summary.find("orientation=\"landscape\"") != std::string::npos);
  CHECK(summary.find("fitToHeight=\"0\"") == std::string::npos);
  CHECK(summary.find("Llama 3 70B chat on H100") != std::string::npos);  // the header
  const std::string& workbook = files.at("xl/workbook.xml");
  for (const char* sheet : {"Inputs", "Fleet", "Cost of ownership", "Sources"}) {
    INFO(sheet);
    const std::string titles = std::string(sheet) + "'!$2:$2</definedName>", plain = std::string(">") + sheet + "!$2:$2</definedName>";
    CHECK((workbook.find(titles) != std::string::npos || workbook.find(plain) != std::string::npos));
  }

  // Charts inside the workbook, from the same chart data as --plot: one native chart per chart the plan draws, the
  // roofline on log axes, the bars of the cost breakdown equal to the SVG chart's.
  std::size_t expected = 0;
  for (plan::ChartId id : plan::kChartIds) expected += plan::plan_chart(w, id).has_value() ? 1 : 0;
  REQUIRE(expected >= 4);
  std::size_t charts = 0;
  for (const auto& [name, body] : files)
    if (name.rfind("xl/charts/chart", 0) == 0) {
      ++charts;
      CHECK(body.find("'Chart data'!$") != std::string::npos);
    }
  CHECK(charts == expected);
  CHECK(files.at("xl/charts/chart1.xml").find("<c:logBase val=\"10\"/>") != std::string::npos);
  CHECK(book.count("Charts") == 1);
  const auto cost = plan::plan_chart(w, plan::ChartId::cost);
  REQUIRE(cost.has_value());
  const auto& data = book.at("Chart data");
  std::size_t matched = 0;
  for (const auto& bar : cost->bars)
    for (const auto& [ref, c] : data)
      if (ref[0] == 'A' && c.is_text && c.text == bar.label) {
        const std::string value = "B" + ref.substr(1);
        if (data.count(value) && !data.at(value).is_text && data.at(value).number == Approx(bar.value).epsilon(1e-12)) {
          ++matched;
          CHECK(styles.at(static_cast<std::size_t>(data.at(value).style)).italic);  // chart data is fixed too
          break;
        }
      }
  CHECK(matched == cost->bars.size());
#endif
}
