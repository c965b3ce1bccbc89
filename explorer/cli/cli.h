/// \file
/// The `layerwise` command line: subcommands register themselves by name; argument
/// parsing and user-facing errors (exceptions → one line on stderr, exit code 2) live here.
#pragma once
#include <functional>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "libs/core/status.h"

namespace lw::cli {

/// A user error: printed as one line, exit code 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// "a,b,,c" -> {"a", "b", "c"}: comma-separated option values.
std::vector<std::string> split_list(const std::string& s);

/// Throws UsageError carrying the status message when `s` is not ok.
void ok_or_throw(const Status& s);

/// An agent's --config: inline JSON text ("{...}") or a file path; "" is "{}".
std::string config_arg(const std::string& value);

/// "--key value" options, "--flag" switches and positional arguments.
class Args {
 public:
  Args(std::vector<std::string> argv, std::set<std::string> flags, std::set<std::string> options);
  bool flag(const std::string& name) const { return flags_.count(name) > 0; }
  bool has(const std::string& name) const { return options_.count(name) > 0; }
  std::string get(const std::string& name, const std::string& fallback = "") const;
  int get_int(const std::string& name, int fallback) const;
  double get_double(const std::string& name, double fallback) const;
  const std::vector<std::string>& positional() const { return positional_; }

 private:
  std::set<std::string> flags_;
  std::map<std::string, std::string> options_;
  std::vector<std::string> positional_;
};

struct Command {
  std::string name;
  std::string summary;
  std::string help;  // full usage text
  std::function<int(const std::vector<std::string>&)> run;
};

/// Registers at static-initialisation time: `static Registrar r{{"models", ...}};`
struct Registrar {
  explicit Registrar(Command c);
};
const std::map<std::string, Command>& commands();

}  // namespace lw::cli
