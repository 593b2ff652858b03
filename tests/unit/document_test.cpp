// The one output model and its writers: each kind of section as JSON, text, CSV and Markdown, whatever made it.
#include <catch2/catch.hpp>

#include "plan/document.hpp"

using namespace infracalc;
using namespace infracalc::writers;

namespace {

// A small worksheet-like document: a field with members, a verdict, a keyed record with a nested result, notes.
struct Sample {
  Result result;
  std::vector<Field> fields;
  std::vector<Verdict> verdicts;
  Document nested;
  std::vector<Record> records;
  std::vector<std::string> notes = {"a note"};
  Document doc;

  Sample() {
    result.plugin = "kv";
    result.calculator = "size";
    result.values.push_back({"kv_total", Quantity{2e9, dims::information}, ""});
    nested = result_document(result);
    fields.push_back({.key = "weights", .value = Cell{Quantity{1.4e11, dims::information}}, .shown = "140 GB", .columns = {"plugin", "model weights"},
                      .members = {{"sheet", std::string("memory")}, {"kind", std::string("plugin")}}});
    fields.push_back({.key = "name", .value = Cell{std::string("=cmd")}, .shown = "=cmd", .members = {{"sheet", std::string("inputs")}}});
    verdicts.push_back({"fits", false, "short by 2 GB"});
    records.push_back({.key = "kv", .members = {{"plugin", std::string("kv")}, {"ok", true}}, .nested_key = "result", .nested = &nested});
    doc.title = "sample";
    doc.head = {{"schema_version", std::int64_t{1}},
                {"tree", std::vector<Member>{{"a", 1.5}, {"b", nullptr}, {.key = "c", .value = std::vector<Member>{{"", std::string("x")}}, .list = true}}},
                {"ids", std::vector<std::string>{"h100", "b200"}}};
    Section lines{.kind = SectionKind::fields, .key = "lines", .title = "lines", .terminal_columns = 1, .head = {"line", "value", "how", "meaning"},
                  .csv_members = {"sheet", "kind"}};
    lines.fields = fields;
    Section checks{.kind = SectionKind::verdicts, .key = "checks", .title = "checks"};
    checks.verdicts = verdicts;
    Section steps{.kind = SectionKind::records, .key = "steps", .human = false, .csv = false, .keyed = true};
    steps.records = records;
    Section said{.kind = SectionKind::notes, .key = "notes", .title = "notes"};
    said.notes = notes;
    Section empty{.kind = SectionKind::notes, .key = "errors", .title = "errors"};
    doc.sections = {lines, checks, steps, said, empty};
  }
};

}  // namespace

TEST_CASE("the JSON writer writes the head's members, then each section under its key", "[writers][document]") {
  const Sample s;
  std::string out;
  write_json(out, s.doc);
  CHECK(out.starts_with(R"({"schema_version": 1, "tree": {"a": 1.5, "b": null, "c": ["x"]}, "ids": ["h100", "b200"], )"));
  CHECK(out.find(R"("lines": {"weights": {"value": 1.4e+11, "unit": "B", "sheet": "memory", "kind": "plugin"}, )"
                 R"("name": {"value": "=cmd", "sheet": "inputs"}})") != std::string::npos);
  CHECK(out.find(R"("checks": {"fits": {"ok": false, "text": "short by 2 GB"}})") != std::string::npos);
  // A keyed records section is an object; its record ends in the nested document, written whole.
  CHECK(out.find(R"("steps": {"kv": {"plugin": "kv", "ok": true, "result": {"schema_version": 1, "plugin": "kv", "calculator": "size", )")
        != std::string::npos);
  CHECK(out.ends_with(R"("notes": ["a note"], "errors": []})"));
}

TEST_CASE("prepared keys give the same JSON as keys written on the fly", "[writers][document]") {
  Sample s;
  std::string before;
  write_json(before, s.doc);
  prepare_json(s.doc);
  std::string after;
  write_json(after, s.doc);
  CHECK(after == before);
}

TEST_CASE("the text writer shows each section people read, and skips those with nothing in them", "[writers][document]") {
  const Sample s;
  const std::string out = write_text(s.doc, {});
  CHECK(out.starts_with("sample\n\nlines\n"));
  // The terminal shows one column after the value; Markdown shows both.
  CHECK(out.find("  weights  140 GB  plugin\n") != std::string::npos);
  CHECK(out.find("model weights") == std::string::npos);
  CHECK(out.find("\nchecks\n  fits: no  short by 2 GB\n") != std::string::npos);
  CHECK(out.find("\nnotes\n  - a note\n") != std::string::npos);
  CHECK(out.find("errors") == std::string::npos);
  CHECK(out.find("result") == std::string::npos);
}

TEST_CASE("the CSV writer gives key, value and unit, the members asked for, then the verdicts", "[writers][document]") {
  const Sample s;
  const std::string out = write_csv(s.doc, {});
  // A verdict's text goes in the last further column; a text cell that reads as a formula is quoted.
  CHECK(out == "key,value,unit,sheet,kind\nweights,1.4e+11,B,memory,plugin\nname,'=cmd,,inputs,\nfits,false,,,short by 2 GB\n");
}

TEST_CASE("the CSV writer names the tables a document has when --table names none of them", "[writers][document]") {
  const Sample s;
  OutputOptions opt;
  opt.table = "layers";
  CHECK_THROWS_AS(write_csv(s.doc, opt), UserError);
  const std::vector<Table> tables = {text_table("layers", "per layer", {"layer", "bytes"}, {{"0", "1"}})};
  Document d;
  Section t{.kind = SectionKind::tables, .key = "tables"};
  t.tables = tables;
  d.sections = {t};
  CHECK(write_csv(d, opt) == "layer,bytes\n0,1\n");
}

TEST_CASE("the Markdown writer heads a fields section with its columns, and a result's values and verdicts share a table",
          "[writers][document]") {
  const Sample s;
  const std::string md = write_md(s.doc, {});
  CHECK(md.starts_with("## sample\n\n### Lines\n\n| line | value | how | meaning |\n|---|---|---|---|\n| weights | 140 GB | plugin | model weights |\n"));
  CHECK(md.find("### Checks\n\n| check | value |\n|---|---|\n| fits | no — short by 2 GB |\n") != std::string::npos);
  Result r = s.result;
  r.verdicts.push_back({"fits", true, "room left"});
  const std::string one = write_md(result_document(r), {});
  CHECK(one.starts_with("## kv size\n\n| result | value |\n|---|---|\n| kv_total | 2 GB  (1.863 GiB) |\n| fits | yes — room left |\n"));
}
