// A strict check of the XML the charts use (plan --plot, a calculator's --plot): one root, balanced and properly
// nested tags, quoted attributes without duplicates, only the five predefined entities, nothing after the root.
#pragma once

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

/// What is wrong with `s` as the XML of a chart, or "" when nothing is.
inline std::string xml_problem(const std::string& s) {
  std::size_t i = 0;
  if (s.rfind("<?xml", 0) == 0) i = s.find("?>") + 2;
  std::vector<std::string> stack;
  bool root_done = false;
  while (i < s.size()) {
    if (s[i] == '<') {
      if (root_done) return "content after the root element";
      if (s.compare(i, 4, "<!--") == 0) {
        i = s.find("-->", i);
        if (i == std::string::npos) return "unterminated comment";
        i += 3;
        continue;
      }
      const bool closing = s[i + 1] == '/';
      std::size_t j = i + (closing ? 2 : 1);
      std::string name;
      while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) != 0 || s[j] == ':' || s[j] == '-')) name += s[j++];
      if (name.empty()) return "a tag without a name at " + std::to_string(i);
      if (closing) {
        if (stack.empty() || stack.back() != name) return "</" + name + "> does not close <" + (stack.empty() ? "" : stack.back()) + ">";
        stack.pop_back();
        i = s.find('>', j) + 1;
        if (stack.empty()) root_done = true;
        continue;
      }
      std::vector<std::string> attrs;
      while (true) {
        while (j < s.size() && std::isspace(static_cast<unsigned char>(s[j])) != 0) ++j;
        if (s.compare(j, 2, "/>") == 0) {
          j += 2;
          if (stack.empty()) root_done = true;
          break;
        }
        if (s[j] == '>') {
          ++j;
          stack.push_back(name);
          break;
        }
        std::string a;
        while (j < s.size() && s[j] != '=' && std::isspace(static_cast<unsigned char>(s[j])) == 0) a += s[j++];
        if (s[j] != '=' || s[j + 1] != '"') return "attribute " + a + " of <" + name + "> is not quoted";
        const std::size_t end = s.find('"', j + 2);
        if (end == std::string::npos) return "unterminated attribute";
        const std::string value = s.substr(j + 2, end - j - 2);
        if (value.find('<') != std::string::npos) return "'<' in an attribute";
        if (std::find(attrs.begin(), attrs.end(), a) != attrs.end()) return "duplicate attribute " + a;
        attrs.push_back(a);
        j = end + 1;
      }
      i = j;
      continue;
    }
    if (s[i] == '&') {
      const std::size_t semi = s.find(';', i);
      const std::string ent = s.substr(i, semi - i + 1);
      if (ent != "&amp;" && ent != "&lt;" && ent != "&gt;" && ent != "&quot;" && ent != "&apos;") return "unknown entity " + ent;
    }
    if (stack.empty() && std::isspace(static_cast<unsigned char>(s[i])) == 0) return "text outside the root";
    ++i;
  }
  if (!stack.empty()) return "<" + stack.back() + "> is never closed";
  if (!root_done) return "no root element";
  return {};
}
