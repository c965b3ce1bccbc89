#include "explorer/cli/cli.h"

#include "libs/core/files.h"

#include <cstdio>
#include <cstdlib>

namespace lw::cli {

static std::map<std::string, Command>& registry() {
  static std::map<std::string, Command> r;
  return r;
}
Registrar::Registrar(Command c) { registry()[c.name] = std::move(c); }
const std::map<std::string, Command>& commands() { return registry(); }

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::string item;
  for (char c : s + ",") {
    if (c != ',') {
      item += c;
    } else if (!item.empty()) {
      out.push_back(item);
      item.clear();
    }
  }
  return out;
}

void ok_or_throw(const Status& s) {
  if (!s.is_ok()) throw UsageError(s.message());
}

Args::Args(std::vector<std::string> argv, std::set<std::string> flags, std::set<std::string> options) {
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (a.rfind("--", 0) != 0 || a == "--") {
      positional_.push_back(a);
      continue;
    }
    std::string key = a.substr(2), value;
    auto eq = key.find('=');
    bool inline_value = eq != std::string::npos;
    if (inline_value) {
      value = key.substr(eq + 1);
      key = key.substr(0, eq);
    }
    if (flags.count(key) && !inline_value) {
      flags_.insert(key);
    } else if (options.count(key)) {
      if (!inline_value) {
        if (i + 1 >= argv.size()) throw UsageError("option --" + key + " needs a value");
        value = argv[++i];
      }
      options_[key] = value;
    } else {
      throw UsageError("unknown option --" + key + " (see --help)");
    }
  }
}

std::string Args::get(const std::string& name, const std::string& fallback) const {
  auto it = options_.find(name);
  return it == options_.end() ? fallback : it->second;
}

int Args::get_int(const std::string& name, int fallback) const {
  if (!has(name)) return fallback;
  const std::string v = get(name);
  char* end = nullptr;
  long x = std::strtol(v.c_str(), &end, 10);
  if (v.empty() || *end) throw UsageError("--" + name + ": expected an integer, got '" + v + "'");
  return int(x);
}

double Args::get_double(const std::string& name, double fallback) const {
  if (!has(name)) return fallback;
  const std::string v = get(name);
  char* end = nullptr;
  double x = std::strtod(v.c_str(), &end);
  if (v.empty() || *end) throw UsageError("--" + name + ": expected a number, got '" + v + "'");
  return x;
}

std::string config_arg(const std::string& value) {
  if (value.empty()) return "{}";
  if (value[0] == '{') return value;
  std::string text;
  ok_or_throw(read_file(value, &text));
  return text;
}

}  // namespace lw::cli
