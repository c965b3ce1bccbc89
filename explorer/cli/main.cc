// layerwise: finds the best per-layer deployment of a CNN on this CPU.
#include <cstdio>
#include <exception>

#include "explorer/cli/cli.h"

namespace {
void usage() {
  std::printf("usage: layerwise <command> [options]   (layerwise <command> --help for details)\n\ncommands:\n");
  for (const auto& [name, c] : lw::cli::commands()) std::printf("  %-10s %s\n", name.c_str(), c.summary.c_str());
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
    usage();
    return argc < 2 ? 2 : 0;
  }
  auto it = lw::cli::commands().find(argv[1]);
  if (it == lw::cli::commands().end()) {
    std::fprintf(stderr, "layerwise: unknown command '%s'\n", argv[1]);
    usage();
    return 2;
  }
  std::vector<std::string> args(argv + 2, argv + argc);
  for (const auto& a : args)
    if (a == "--help" || a == "-h") {
      std::printf("%s", it->second.help.c_str());
      return 0;
    }
  try {
    return it->second.run(args);
  } catch (const lw::cli::UsageError& e) {
    std::fprintf(stderr, "layerwise %s: %s\n", argv[1], e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "layerwise %s: internal error: %s\n", argv[1], e.what());
    return 1;
  }
}
