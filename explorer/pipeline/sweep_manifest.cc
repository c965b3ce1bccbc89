// The sweep directory on disk: manifest.json, cells/<id>/{config.json,status.json,starts.log}
// and the LUT failure markers (explorer/pipeline/sweep.h).
#include <filesystem>
#include <fstream>

#include "libs/core/files.h"
#include "explorer/pipeline/sweep.h"
#include "libs/ir/network_json.h"

namespace lw {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

json manifest_json(const SweepPlan& p) {
  const SweepConfig& c = p.cfg;
  json devices = json::array(), cells = json::array(), luts = json::array();
  for (const auto& d : c.devices)
    devices.push_back({{"name", d.name}, {"partition", d.partition}, {"sbatch_args", d.sbatch_args}});
  for (const auto& x : p.cells)
    cells.push_back({{"index", x.index}, {"id", x.id}, {"keys", x.keys}, {"device", x.device}, {"lut", x.lut}});
  for (const auto& l : p.luts)
    luts.push_back({{"path", l.path}, {"device", l.device}, {"first_cell", l.first_cell}, {"cells", l.cells}});
  return {{"format", "layerwise-sweep/1"}, {"sweep", c.path}, {"name", c.name}, {"output_dir", c.output_dir},
          {"lut_dir", c.lut_dir}, {"keys", p.key_names}, {"jobs", c.jobs},
          {"slurm", {{"cpus_per_task", c.cpus_per_task}, {"time", c.time_limit}, {"mem", c.mem},
                     {"sbatch_args", c.sbatch_args}}},
          {"devices", devices}, {"cells", cells}, {"luts", luts}};
}

}  // namespace

const char* to_string(CellState s) {
  switch (s) {
#define X(e, str) \
  case CellState::e: return str;
    LW_CELL_STATES(X)
#undef X
  }
  return "?";
}

std::string cell_dir(const std::string& sweep_dir, const SweepCell& c) { return sweep_dir + "/cells/" + c.id; }

Status write_sweep(const SweepPlan& plan, std::vector<std::string>* notes) {
  const std::string& out = plan.cfg.output_dir;
  std::error_code ec;
  fs::create_directories(plan.cfg.lut_dir, ec);
  if (ec) return io_error("cannot create " + plan.cfg.lut_dir + ": " + ec.message());
  for (const SweepCell& c : plan.cells) {
    std::string dir = cell_dir(out, c), text = c.config.dump(1) + "\n", old;
    if (read_file(dir + "/config.json", &old).is_ok() && old != text) {
      std::string aside;
      for (int n = 1; aside.empty() || fs::exists(aside); ++n) aside = dir + ".stale-" + std::to_string(n);
      fs::rename(dir, aside, ec);
      if (ec) return io_error("cannot move " + dir + " aside: " + ec.message());
      notes->push_back("cell " + c.id + " changed: its old results moved to " + aside);
    }
    fs::create_directories(dir, ec);
    if (ec) return io_error("cannot create " + dir + ": " + ec.message());
    if (old != text) LW_RETURN_IF_ERROR(write_file_atomic(dir + "/config.json", text));
  }
  return write_file_atomic(out + "/manifest.json", manifest_json(plan).dump(1) + "\n");
}

Status load_manifest(const std::string& sweep_dir, SweepPlan* out) {
  const std::string path = sweep_dir + "/manifest.json";
  json m = read_json_file(path);
  if (!m.is_object() || m.value("format", "") != "layerwise-sweep/1")
    return io_error(path + ": missing or not a layerwise sweep manifest");
  SweepPlan p;
  try {
    p.cfg.path = m.at("sweep");
    p.cfg.name = m.at("name");
    p.cfg.output_dir = sweep_dir;
    p.cfg.lut_dir = m.at("lut_dir");
    p.cfg.jobs = m.at("jobs");
    p.key_names = m.at("keys").get<std::vector<std::string>>();
    const json& s = m.at("slurm");
    p.cfg.cpus_per_task = s.at("cpus_per_task");
    p.cfg.time_limit = s.at("time");
    p.cfg.mem = s.at("mem");
    p.cfg.sbatch_args = s.at("sbatch_args").get<std::vector<std::string>>();
    for (const json& d : m.at("devices"))
      p.cfg.devices.push_back({d.at("name"), d.at("partition"), d.at("sbatch_args").get<std::vector<std::string>>()});
    for (const json& l : m.at("luts"))
      p.luts.push_back({l.at("path"), l.at("device"), l.at("first_cell"), l.at("cells").get<std::vector<int>>()});
    for (const json& x : m.at("cells")) {
      SweepCell c{x.at("index"), x.at("id"), x.at("keys").get<std::vector<std::string>>(), x.at("device"),
                  json(), x.at("lut")};
      c.config = read_json_file(cell_dir(sweep_dir, c) + "/config.json");
      if (!c.config.is_object()) return io_error(cell_dir(sweep_dir, c) + "/config.json: missing or unreadable");
      p.cells.push_back(std::move(c));
    }
  } catch (const json::exception& e) {
    return io_error(path + ": " + e.what());
  }
  *out = std::move(p);
  return Status::ok();
}

CellStatus cell_status(const std::string& sweep_dir, const SweepCell& c) {
  CellStatus s;
  std::string dir = cell_dir(sweep_dir, c);
  std::ifstream starts(dir + "/starts.log");
  for (std::string line; std::getline(starts, line);) s.starts += !line.empty();
  json j = read_json_file(dir + "/status.json");
  if (!j.is_object()) return s;
  std::string st = j.value("state", "");
#define X(e, str) \
  if (st == str) s.state = CellState::e;
  LW_CELL_STATES(X)
#undef X
  s.reason = j.value("reason", "");
  s.job = j.value("job", "");
  s.run_dir = j.value("run_dir", "");
  s.wall_s = j.value("wall_s", 0.0);
  return s;
}

std::string lut_failure(const SweepLut& l) {
  json j = read_json_file(l.path + ".failed");
  return j.is_object() ? j.value("reason", "failed") : "";
}

}  // namespace lw
