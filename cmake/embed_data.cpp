// The build's generator of the embedded catalog: writes a C++ source holding every data/**/*.toml file twice, as
// its text (for `data show`, provenance and checks) and as its parsed document tree (documents/node_bytes), so a
// query loads an entry without running the TOML parser. A file that does not parse is stored without a tree, and
// reports its error when it is loaded, as before. Usage: infracalc_embed_data DATA_DIR OUT
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "documents/node_bytes.hpp"
#include "documents/toml_reader.hpp"

namespace fs = std::filesystem;

namespace {

// The kind of entry each folder of data/ holds.
constexpr std::pair<const char*, const char*> kKinds[] = {
    {"accelerators", "accelerator"}, {"systems", "system"}, {"models", "model"},         {"interconnects", "interconnect"},
    {"network", "network"},          {"prices", "price"},   {"grids", "grid"},           {"facility", "facility"},
    {"storage", "storage"},          {"memory", "memory"},  {"reliability", "reliability"}, {"measured", "measured"},
    {"calibration", "calibration"},  {"climate", "climate"}};

std::string kind_of(const fs::path& relative) {
  const std::string folder = relative.parent_path().filename().string();
  for (const auto& [dir, kind] : kKinds)
    if (folder == dir) return kind;
  return "";
}

bool digits(const std::string& s, std::size_t at, std::size_t n) {
  if (at + n > s.size()) return false;
  return std::all_of(s.begin() + static_cast<std::ptrdiff_t>(at), s.begin() + static_cast<std::ptrdiff_t>(at + n),
                     [](char c) { return c >= '0' && c <= '9'; });
}

// The newest `as_of = YYYY-MM-DD` date literal anywhere in the text.
void newest_as_of(const std::string& text, std::string& newest) {
  for (std::size_t at = text.find("as_of"); at != std::string::npos; at = text.find("as_of", at + 1)) {
    std::size_t i = at + 5;
    while (i < text.size() && text[i] == ' ') ++i;
    if (i >= text.size() || text[i] != '=') continue;
    ++i;
    while (i < text.size() && text[i] == ' ') ++i;
    if (i + 10 <= text.size() && digits(text, i, 4) && text[i + 4] == '-' && digits(text, i + 5, 2) && text[i + 7] == '-' && digits(text, i + 8, 2)) {
      const std::string date = text.substr(i, 10);
      newest = std::max(newest, date);
    }
  }
}

// Bytes as a C++ string literal: printable ASCII as itself, every other byte as a three-digit octal escape (which
// no following digit can extend), broken into lines.
std::string literal(const std::string& bytes) {
  std::string out = "\"";
  std::size_t column = 0;
  for (const unsigned char c : bytes) {
    if (column >= 100) {
      out += "\"\n    \"";
      column = 0;
    }
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\' && c != '?') {
      out.push_back(static_cast<char>(c));
      column += 1;
    } else {
      char buf[5];
      std::snprintf(buf, sizeof buf, "\\%03o", c);
      out += buf;
      column += 4;
    }
  }
  return out + "\"";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: infracalc_embed_data DATA_DIR OUT\n");
    return 2;
  }
  const fs::path data = argv[1];
  const fs::path out_path = argv[2];
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(data))
    if (e.is_regular_file() && e.path().extension() == ".toml") files.push_back(fs::relative(e.path(), data));
  std::sort(files.begin(), files.end(), [](const fs::path& a, const fs::path& b) { return a.generic_string() < b.generic_string(); });

  std::string texts, body, newest = "0000-00-00";
  for (std::size_t i = 0; i < files.size(); ++i) {
    const std::string rel = files[i].generic_string();
    std::ifstream in(data / files[i], std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    if (text.find(")infracalc_data\"") != std::string::npos) {
      std::fprintf(stderr, "%s: contains the embedding's raw-string delimiter\n", rel.c_str());
      return 1;
    }
    newest_as_of(text, newest);
    auto tree = infracalc::read_toml(text, "data/" + rel);
    const std::string bytes = tree ? infracalc::node_to_bytes(tree.value()) : std::string();
    // Each text and tree is an array of its own whose view takes the length from sizeof: a view of a bare literal
    // counts its characters at compile time, past clang's constant-evaluation step limit on the largest files.
    texts += "constexpr char kText" + std::to_string(i) + "[] = R\"infracalc_data(" + text + ")infracalc_data\";\n";
    texts += "constexpr char kTree" + std::to_string(i) + "[] =\n    " + literal(bytes) + ";\n";
    const std::string n = std::to_string(i);
    body += "  {\"" + rel + "\", \"" + files[i].stem().string() + "\", \"" + kind_of(files[i]) + "\", std::string_view(kText" + n +
            ", sizeof(kText" + n + ") - 1), std::string_view(kTree" + n + ", sizeof(kTree" + n + ") - 1)},\n";
  }
  const std::string out = "// Generated by cmake/embed_data.cpp from data/. Do not edit.\n#include \"catalog/embedded.hpp\"\n\nnamespace infracalc {\n\n"
                          "namespace {\n" + texts + "constexpr EmbeddedFile kFiles[] = {\n" + body + "};\n}  // namespace\n\n"
                          "std::span<const EmbeddedFile> embedded_files() { return kFiles; }\n"
                          "std::string_view embedded_newest_date() { return \"" + newest + "\"; }\n\n}  // namespace infracalc\n";
  // Only rewritten when the text changed, so that unchanged data does not recompile the catalog.
  std::ifstream old(out_path, std::ios::binary);
  std::ostringstream was;
  was << old.rdbuf();
  if (old && was.str() == out) return 0;
  std::ofstream file(out_path, std::ios::binary);
  file << out;
  if (!file.flush()) {
    std::fprintf(stderr, "cannot write %s\n", out_path.string().c_str());
    return 1;
  }
  return 0;
}
