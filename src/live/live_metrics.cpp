// Snapshots of a running controller and their two renderings (see live_metrics.h).
#include "live/live_metrics.h"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>

#include "core/html_report.h"

namespace dmlkit::live {

namespace {

// --- snapshot ------------------------------------------------------------------------------------

std::string type_label(const SlurmNode& n) { return n.gpu_type.empty() ? kUntypedGpu : n.gpu_type; }

void count_gpus(const SlurmSnapshot& snap, LiveSnapshot& s) {
  for (const SlurmNode& n : snap.nodes) {
    if (!n.usable() || n.gpus <= 0) continue;
    s.gpus_total_by_type[type_label(n)] += n.gpus;
    s.gpus_busy_by_type[type_label(n)] += std::clamp(n.gpus_used, 0, n.gpus);
  }
}

int sum_values(const std::map<std::string, int>& m) {
  int total = 0;
  for (const auto& [k, v] : m) total += v;
  return total;
}

// --- Prometheus ----------------------------------------------------------------------------------

std::string label_value(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string number(double v) { return fmt::format("{}", v); }

void header(std::string& out, const std::string& name, const char* type, const char* help) {
  out += "# HELP " + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
}

void sample(std::string& out, const std::string& name, const std::string& labels, double v) {
  out += name + (labels.empty() ? "" : "{" + labels + "}") + " " + number(v) + "\n";
}

void gauge(std::string& out, const std::string& name, const char* help, double v) {
  header(out, name, "gauge", help);
  sample(out, name, "", v);
}

void counter(std::string& out, const std::string& name, const char* help, double v) {
  header(out, name, "counter", help);
  sample(out, name, "", v);
}

// The sample lines of one histogram; `labels` ("" or `call="poll"`) come before `le`.
void histogram_samples(std::string& out, const std::string& name, const std::string& labels,
                       const LatencyHistogram& h) {
  const std::string prefix = labels.empty() ? "" : labels + ",";
  for (size_t i = 0; i < LatencyHistogram::kBoundsS.size(); ++i)
    sample(out, name + "_bucket", prefix + "le=\"" + number(LatencyHistogram::kBoundsS[i]) + "\"",
           static_cast<double>(h.at_most(i)));
  sample(out, name + "_bucket", prefix + "le=\"+Inf\"", static_cast<double>(h.count));
  sample(out, name + "_sum", labels, h.sum_s);
  sample(out, name + "_count", labels, static_cast<double>(h.count));
}

void gpu_gauges(std::string& out, const LiveSnapshot& s) {
  header(out, "dmlkit_live_gpus", "gauge", "GPUs of the usable nodes in scope, by GRES type");
  for (const auto& [type, n] : s.gpus_total_by_type)
    sample(out, "dmlkit_live_gpus", "type=\"" + label_value(type) + "\"", n);
  header(out, "dmlkit_live_gpus_busy", "gauge", "GPUs Slurm counts as used on those nodes (any job), by GRES type");
  for (const auto& [type, n] : s.gpus_total_by_type) {
    const auto it = s.gpus_busy_by_type.find(type);
    sample(out, "dmlkit_live_gpus_busy", "type=\"" + label_value(type) + "\"",
           it == s.gpus_busy_by_type.end() ? 0 : it->second);
  }
}

void decision_metrics(std::string& out, const LiveSnapshot& s) {
  header(out, "dmlkit_live_decisions_total", "counter", "Decisions applied (logged, in a dry run), by action");
  std::map<std::string, int64_t> by_action = {{"place", 0}, {"move", 0}, {"preempt", 0}, {"hold", 0}, {"retry", 0}};
  for (const auto& [a, n] : s.decisions_by_action) by_action[a] = n;
  for (const auto& [a, n] : by_action)
    sample(out, "dmlkit_live_decisions_total", "action=\"" + label_value(a) + "\"", static_cast<double>(n));
  header(out, "dmlkit_live_decision_latency_seconds", "histogram",
         "Time to decide a round: building the view, the policy, planning the Slurm commands");
  histogram_samples(out, "dmlkit_live_decision_latency_seconds", "", s.decision_latency);
}

void slurm_metrics(std::string& out, const LiveSnapshot& s) {
  header(out, "dmlkit_live_slurm_call_seconds", "histogram",
         "Wall time of the calls to Slurm, by kind (poll: squeue + sinfo; place: scontrol update; ...)");
  for (const auto& [call, st] : s.slurm_calls)
    histogram_samples(out, "dmlkit_live_slurm_call_seconds", "call=\"" + label_value(call) + "\"", st.latency);
  header(out, "dmlkit_live_slurm_call_errors_total", "counter", "Calls to Slurm that failed, by kind");
  for (const auto& [call, st] : s.slurm_calls)
    sample(out, "dmlkit_live_slurm_call_errors_total", "call=\"" + label_value(call) + "\"",
           static_cast<double>(st.errors));
}

// --- status page ---------------------------------------------------------------------------------

std::string utc_time(double wall_s) {
  const std::time_t t = static_cast<std::time_t>(wall_s);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return buf;
}

std::string cell(const std::string& text) { return "<td>" + html_escape(text) + "</td>"; }

std::string row(const std::vector<std::string>& cells) {
  std::string r = "<tr>";
  for (const auto& c : cells) r += cell(c);
  return r + "</tr>\n";
}

std::string head_row(const std::vector<std::string>& titles) {
  std::string r = "<tr>";
  for (const auto& t : titles) r += "<th>" + html_escape(t) + "</th>";
  return r + "</tr>\n";
}

std::string facts_table(const LiveSnapshot& s) {
  const int busy = sum_values(s.gpus_busy_by_type), total = sum_values(s.gpus_total_by_type);
  std::string t = "<table class=\"facts\">\n";
  t += row({"Policy", s.policy});
  t += row({"Manages", s.scope});
  if (s.dry_run) t += row({"Mode", "dry run: decisions are logged, nothing is applied"});
  t += row({"Running since", utc_time(s.started_wall_s)});
  t += row({"Last update", utc_time(s.wall_s)});
  t += row({"Jobs running / waiting", std::to_string(s.running_jobs) + " / " + std::to_string(s.queued_jobs)});
  t += row({"GPUs busy / usable", std::to_string(busy) + " / " + std::to_string(total)});
  for (const auto& [type, n] : s.gpus_total_by_type) {
    const auto it = s.gpus_busy_by_type.find(type);
    t += row({"  GPUs " + type,
              std::to_string(it == s.gpus_busy_by_type.end() ? 0 : it->second) + " / " + std::to_string(n)});
  }
  t += row({"Rounds, preemptions, restarts",
            std::to_string(s.rounds) + ", " + std::to_string(s.preemptions) + ", " + std::to_string(s.restarts)});
  return t + "</table>\n";
}

std::string jobs_table(const LiveSnapshot& s) {
  if (s.jobs.empty()) return "<p>No managed job is pending or running.</p>\n";
  std::string t =
      "<table>\n" + head_row({"Slurm id", "job", "status", "placement", "GPUs", "GPU-seconds", "preemptions"});
  for (const ManagedJob& j : s.jobs)
    t += row({std::to_string(j.slurm_id), j.name, j.status, j.placement.empty() ? "-" : j.placement,
              std::to_string(j.gpus), fmt::format("{:.0f}", j.attained_gpu_s), std::to_string(j.preemptions)});
  return t + "</table>\n";
}

std::string decisions_table(const LiveSnapshot& s) {
  if (s.last_decisions.empty()) return "<p>No decision yet.</p>\n";
  std::string t = "<table>\n" + head_row({"time", "Slurm id", "job", "action", "placement", "note"});
  for (auto it = s.last_decisions.rbegin(); it != s.last_decisions.rend(); ++it)
    t += row({utc_time(it->wall_s), std::to_string(it->slurm_id), it->job_name, it->action, it->placement, it->note});
  return t + "</table>\n";
}

// GPUs busy (solid) and usable (dashed) over the snapshots kept, as inline SVG.
std::string utilisation_chart(const LiveSnapshot& s) {
  if (s.history.size() < 2) return "<p>The chart starts after two polls.</p>\n";
  const double w = 720, h = 200, pad = 30;
  const double t0 = s.history.front().wall_s, t1 = std::max(s.history.back().wall_s, t0 + 1e-9);
  int top = 1;
  for (const auto& p : s.history) top = std::max({top, p.gpus_total, p.gpus_busy});
  auto x = [&](double t) { return pad + (w - 2 * pad) * (t - t0) / (t1 - t0); };
  auto y = [&](int v) { return h - pad - (h - 2 * pad) * v / top; };
  std::string busy, total;
  for (const auto& p : s.history) {
    busy += fmt::format("{:.1f},{:.1f} ", x(p.wall_s), y(p.gpus_busy));
    total += fmt::format("{:.1f},{:.1f} ", x(p.wall_s), y(p.gpus_total));
  }
  std::string svg = fmt::format(
      "<svg class=\"chart\" width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"GPUs busy over time\">\n", w, h);
  svg += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#888\"/>\n", pad, h - pad, w - pad);
  svg += "<polyline fill=\"none\" stroke=\"#999\" stroke-dasharray=\"4 3\" points=\"" + total + "\"/>\n";
  svg += "<polyline fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"2\" points=\"" + busy + "\"/>\n";
  svg += fmt::format("<text x=\"2\" y=\"{:.1f}\">{}</text><text x=\"2\" y=\"{:.1f}\">0</text>\n", y(top) + 4, top,
                     h - pad + 4);
  svg += fmt::format("<text x=\"{}\" y=\"{}\">{}</text>\n", pad, h - 8, html_escape(utc_time(t0)));
  svg +=
      fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", w - pad, h - 8, html_escape(utc_time(t1)));
  return svg + "</svg>\n<p class=\"legend\">GPUs busy (solid) and usable (dashed), last " +
         std::to_string(s.history.size()) + " polls.</p>\n";
}

}  // namespace

LiveObserver::LiveObserver(std::string policy, std::string scope, bool dry_run, double started_wall_s) {
  base_.policy = std::move(policy);
  base_.scope = std::move(scope);
  base_.dry_run = dry_run;
  base_.started_wall_s = started_wall_s;
  current_ = std::make_shared<const LiveSnapshot>(base_);
}

void LiveObserver::take_new_rounds_and_decisions(const Controller& controller) {
  const auto& rounds = controller.rounds();
  for (; rounds_seen_ < rounds.size(); ++rounds_seen_) {
    base_.decision_latency.add(rounds[rounds_seen_].decide_ms / 1000.0);
    ++base_.rounds;
  }
  const auto& decisions = controller.decisions();
  for (; decisions_seen_ < decisions.size(); ++decisions_seen_) {
    const Decision& d = decisions[decisions_seen_];
    ++base_.decisions_by_action[d.action];
    last_decisions_.push_back(d);
    if (last_decisions_.size() > kLastDecisions) last_decisions_.pop_front();
  }
}

void LiveObserver::update(const Controller& controller, const TimedBackend& slurm, double wall_s) {
  take_new_rounds_and_decisions(controller);
  auto s = std::make_shared<LiveSnapshot>(base_);
  s->wall_s = wall_s;
  s->jobs = controller.managed_jobs();
  for (const ManagedJob& j : s->jobs) (j.status == "running" ? s->running_jobs : s->queued_jobs)++;
  count_gpus(controller.last_snapshot(), *s);
  s->slurm_calls = slurm.call_stats();
  s->preemptions = controller.counters().preemptions;
  s->restarts = controller.counters().restarts;
  s->last_decisions.assign(last_decisions_.begin(), last_decisions_.end());
  history_.push_back(
      {wall_s, sum_values(s->gpus_busy_by_type), sum_values(s->gpus_total_by_type), s->running_jobs, s->queued_jobs});
  if (history_.size() > kHistoryPoints) history_.pop_front();
  s->history.assign(history_.begin(), history_.end());
  std::lock_guard<std::mutex> lock(mu_);
  current_ = std::move(s);
}

std::shared_ptr<const LiveSnapshot> LiveObserver::current() const {
  std::lock_guard<std::mutex> lock(mu_);
  return current_;
}

std::string prometheus_text(const LiveSnapshot& s) {
  std::string out;
  header(out, "dmlkit_live_info", "gauge", "The controller: its policy, what it manages, whether it is a dry run");
  sample(out, "dmlkit_live_info",
         "policy=\"" + label_value(s.policy) + "\",scope=\"" + label_value(s.scope) + "\",dry_run=\"" +
             (s.dry_run ? "true" : "false") + "\"",
         1);
  gauge(out, "dmlkit_live_queue_jobs", "Managed jobs waiting: held for the policy, or placed and not started yet",
        s.queued_jobs);
  gauge(out, "dmlkit_live_running_jobs", "Managed jobs running", s.running_jobs);
  gpu_gauges(out, s);
  counter(out, "dmlkit_live_rounds_total", "Decision rounds", static_cast<double>(s.rounds));
  decision_metrics(out, s);
  slurm_metrics(out, s);
  counter(out, "dmlkit_live_preemptions_total", "Times a managed job lost its GPUs before finishing",
          static_cast<double>(s.preemptions));
  counter(out, "dmlkit_live_restarts_total", "Times a managed job started again after having run",
          static_cast<double>(s.restarts));
  gauge(out, "dmlkit_live_last_update_timestamp_seconds", "When these values were taken (seconds since the epoch)",
        s.wall_s);
  return out;
}

std::string status_page_html(const LiveSnapshot& s) {
  std::string page =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta http-equiv=\"refresh\" content=\"5\">\n<title>dmlkit cluster serve: " +
      html_escape(s.policy) +
      "</title>\n<style>\nbody{font-family:sans-serif;margin:1.5em;color:#222}"
      "table{border-collapse:collapse;margin-bottom:1em}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}"
      "th{background:#f3f3f3}.facts td:first-child{font-weight:bold}svg text{font-size:11px;fill:#555}"
      ".legend{color:#555;font-size:90%}\n</style>\n</head>\n<body>\n";
  page += "<h1>dmlkit cluster serve</h1>\n" + facts_table(s);
  page += "<h2>Utilisation</h2>\n" + utilisation_chart(s);
  page += "<h2>Jobs</h2>\n" + jobs_table(s);
  page += "<h2>Last decisions</h2>\n" + decisions_table(s);
  page +=
      "<p class=\"legend\">Metrics for Prometheus: <a href=\"/metrics\">/metrics</a>. This page reloads every 5 "
      "s.</p>\n";
  return page + "</body>\n</html>\n";
}

}  // namespace dmlkit::live
