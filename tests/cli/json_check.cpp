// Reads JSON (one document, or JSON Lines with --lines) from stdin and exits 0 when it parses.
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>

#include "documents/json.hpp"

int main(int argc, char** argv) {
  const bool lines = argc > 1 && std::string(argv[1]) == "--lines";
  std::stringstream ss;
  ss << std::cin.rdbuf();
  const std::string text = ss.str();
  if (text.empty()) {
    std::fprintf(stderr, "json_check: empty input\n");
    return 1;
  }
  if (!lines) {
    auto doc = infracalc::read_json(text, "stdin");
    if (!doc) std::fprintf(stderr, "json_check: %s\n", doc.error().text().c_str());
    return doc ? 0 : 1;
  }
  std::istringstream in(text);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    auto doc = infracalc::read_json(line, "line " + std::to_string(n));
    if (!doc) {
      std::fprintf(stderr, "json_check: %s\n", doc.error().text().c_str());
      return 1;
    }
  }
  return 0;
}
