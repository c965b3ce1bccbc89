// The `local` executor (explorer/pipeline/sweep_exec.h): a bounded pool of `layerwise sweep --task`
// processes on this machine — first the missing LUTs, then the cells. Each task records its
// own state, so an interrupted sweep resumes where it stopped.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <map>

#include "explorer/cli/progress.h"
#include "explorer/pipeline/sweep_exec.h"

namespace lw {

namespace fs = std::filesystem;

namespace {

struct Task {
  const char* kind;  // "profile" or "cell"
  int index;
  std::string label;
};

pid_t spawn(const Task& t, const std::string& dir) {
  std::string self = fs::read_symlink("/proc/self/exe").string(), index = std::to_string(t.index);
  pid_t pid = ::fork();
  if (pid != 0) return pid;
  // The task writes its own log; its stdout ("done already") is of no interest here.
  int null = ::open("/dev/null", O_WRONLY);
  if (null >= 0) ::dup2(null, 1);
  ::execl(self.c_str(), self.c_str(), "sweep", "--task", t.kind, dir.c_str(), index.c_str(), (char*)nullptr);
  std::perror("layerwise sweep: exec");
  ::_exit(127);
}

struct PoolResult {
  int failed = 0;
  double wall_s = 0;
  double task_s = 0;  // sum over tasks of each process's own wall time (start-up included)
};

// Runs the tasks, `jobs` at a time, with one progress line; a failed task does not stop the rest.
Status run_pool(const std::vector<Task>& tasks, int jobs, const std::string& dir, const std::string& what, bool quiet,
                PoolResult* out) {
  cli::ProgressLine line(quiet);
  std::deque<Task> queue(tasks.begin(), tasks.end());
  std::map<pid_t, std::pair<Task, std::chrono::steady_clock::time_point>> running;
  PoolResult r;
  size_t finished = 0;
  auto t0 = std::chrono::steady_clock::now();
  auto draw = [&](bool force) {
    double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    double eta = finished ? el / finished * (tasks.size() - finished) : 0;
    std::string now;
    for (const auto& [pid, t] : running) now += (now.empty() ? " " : ",") + t.first.label;
    line.update(what + " [" + std::to_string(finished) + "/" + std::to_string(tasks.size()) + "]" + now +
                    (r.failed ? " (" + std::to_string(r.failed) + " failed)" : ""),
                double(finished) / std::max<size_t>(1, tasks.size()), eta, force);
  };
  while (!queue.empty() || !running.empty()) {
    while (!queue.empty() && int(running.size()) < jobs) {
      pid_t pid = spawn(queue.front(), dir);
      if (pid < 0) return failed("cannot start a task: fork failed");
      running.emplace(pid, std::make_pair(queue.front(), std::chrono::steady_clock::now()));
      queue.pop_front();
    }
    draw(true);
    int st = 0;
    pid_t pid = ::waitpid(-1, &st, 0);
    if (pid < 0) break;
    auto it = running.find(pid);
    if (it == running.end()) continue;
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) ++r.failed;
    r.task_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - it->second.second).count();
    running.erase(it);
    ++finished;
  }
  draw(true);
  line.finish();
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  *out = r;
  return Status::ok();
}

}  // namespace

Status run_sweep_local(const SweepPlan& p, const SweepRunOptions& o) {
  const std::string& dir = p.cfg.output_dir;
  int jobs = o.jobs > 0 ? o.jobs : p.cfg.jobs;
  std::vector<int> cells = cells_to_run(p, o.resubmit_failed, {});
  if (cells.empty()) {
    std::printf("sweep %s: nothing to run (%zu cells done or failed; see --collect)\n", p.cfg.name.c_str(),
                p.cells.size());
    return Status::ok();
  }
  if (p.cfg.devices.size() > 1)
    std::fprintf(stderr, "sweep: the local executor runs every device kind on this machine\n");
  std::vector<Task> profiles, runs;
  for (int l : luts_to_profile(p, cells, o.resubmit_failed))
    profiles.push_back({"profile", l, fs::path(p.luts[l].path).filename().string()});
  for (int c : cells) runs.push_back({"cell", c, p.cells[c].id});
  std::printf("sweep %s: %zu of %zu cells to run, %zu LUTs to profile, %d at a time\n", p.cfg.name.c_str(),
              cells.size(), p.cells.size(), profiles.size(), jobs);
  std::fflush(stdout);
  PoolResult pr, cr;
  LW_RETURN_IF_ERROR(run_pool(profiles, jobs, dir, "profile", o.quiet, &pr));
  LW_RETURN_IF_ERROR(run_pool(runs, jobs, dir, "sweep " + p.cfg.name, o.quiet, &cr));
  double sum = 0;
  for (int c : cells) sum += cell_status(dir, p.cells[c]).wall_s;
  // What a sweep gains over running its cells one by one: its wall time against the sum of its cells' times
  // (each cell process start to end, and the experiment run inside it).
  std::printf("sweep %s: %zu cells in %.1f s wall, %d at a time (%d failed); sum of the cell processes' times "
              "%.1f s (runs alone %.1f s); %zu LUT profiles in %.1f s wall, sum %.1f s (%d failed)\n",
              p.cfg.name.c_str(), cells.size(), cr.wall_s, jobs, cr.failed, cr.task_s, sum, profiles.size(),
              pr.wall_s, pr.task_s, pr.failed);
  if (cr.failed || pr.failed) return failed(std::to_string(cr.failed) + " cells failed; see --collect for why");
  return Status::ok();
}

}  // namespace lw
