#!/usr/bin/env python3
"""Check an HTML report's marks against the plan's own figures.

  report_check.py calc  PAGE.html PLAN.json      # tplan calc --report / --json
  report_check.py sweep PAGE.html ROWS.json      # tplan report / tplan query --json
  report_check.py bestby PAGE.html RESULTS.db    # tplan report's best-by-AXIS charts

PAGE is the report file or the DOM Chromium rendered from it
(chromium --dump-dom). Every chart kind must be there, and every value the
checks look at must equal the JSON's exactly (both are the shortest text
that reads back to the same double). Prints one line per failure; exits 1
on any.
"""
import json
import sqlite3
import sys
from html.parser import HTMLParser

CALC_CHARTS = ["memory-breakdown", "memory-vs-micro-batch",
               "max-micro-batch-vs-seq", "step-time-breakdown",
               "throughput-vs-gpus", "efficiency-vs-gpus", "cost-vs-time",
               "lr-schedule"]
SWEEP_CHARTS = ["kept-cost-vs-time", "kept-throughput-vs-gpus",
                "kept-efficiency-vs-gpus"] + CALC_CHARTS


class Marks(HTMLParser):
    """Every element with data- attributes, with the chart it sits in."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.charts, self.marks, self.stack = [], [], []
        self.table = None
        self.tags = set()
        self.text = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.add(tag)
        for k, v in attrs:
            if k in ("src", "href") and v and not v.startswith("#"):
                self.marks.append({"_external": v})
        if tag == "table":
            self.table = a.get("data-table")
        if tag == "figure" and "data-chart" in a:
            self.charts.append(a["data-chart"])
            self.stack.append(a["data-chart"])
        elif tag == "figure":
            self.stack.append(None)
        if any(k.startswith("data-") for k in a):
            a["_chart"] = next((c for c in reversed(self.stack) if c), None)
            a["_tag"] = tag
            a["_table"] = self.table if tag == "td" else None
            self.marks.append(a)

    def handle_endtag(self, tag):
        if tag == "table":
            self.table = None
        if tag == "figure" and self.stack:
            self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)


failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)


def same(a, b):
    """Exact equality of two numbers given as text or numbers."""
    try:
        return float(a) == float(b)
    except (TypeError, ValueError):
        return False


def chart_marks(m, chart, **want):
    return [x for x in m.marks if x.get("_chart") == chart and
            all(x.get(k) == v for k, v in want.items())]


def one(m, chart, what, **want):
    found = chart_marks(m, chart, **want)
    check(len(found) == 1, f"{chart}: {what}: {len(found)} marks, want 1")
    return found[0] if found else {}


MEMORY_PARTS = ["weights_bytes", "grads_bytes", "optimizer_bytes",
                "activations_bytes", "overhead_bytes"]


def check_parts(m, chart, fields, values, what):
    """Each non-zero value is one bar part of the chart with that value."""
    for f in fields:
        parts = [x for x in chart_marks(m, chart, **{"data-field": f})
                 if "data-value" in x]
        if values[f] > 0:
            check(len(parts) == 1 and same(parts[0]["data-value"], values[f]),
                  f"{what} {f}: {[p.get('data-value') for p in parts]}"
                  f" != {values[f]}")


def check_plan_table(m, want, what):
    """The one-plan table's cells equal want's values."""
    cells = {x["data-field"]: x for x in m.marks
             if x.get("_table") == "plan" and "data-value" in x}
    for f, v in want.items():
        check(f in cells and same(cells[f]["data-value"], v),
              f"{what} {f}: {cells.get(f, {}).get('data-value')} != {v}")


def self_contained(m):
    check("script" not in m.tags, "the page has a <script>")
    check("link" not in m.tags, "the page has a <link>")
    check("img" not in m.tags, "the page has an <img>")
    ext = [x["_external"] for x in m.marks if "_external" in x]
    check(not ext, f"external references: {ext[:3]}")


def check_calc(m, plan):
    mem, perf = plan["memory"], plan["perf"]
    for c in CALC_CHARTS:
        check(c in m.charts, f"chart {c} missing (have {m.charts})")
    # the breakdown: one bar part per memory part, against the capacity
    check_parts(m, "memory-breakdown", MEMORY_PARTS, mem, "memory-breakdown")
    for f in ["usable_bytes", "capacity_bytes"]:
        x = one(m, "memory-breakdown", f, **{"data-field": f})
        check(same(x.get("data-value"), mem[f]),
              f"memory-breakdown {f} {x.get('data-value')} != {mem[f]}")
    # memory against micro-batch: the plan's own micro-batch is a point
    # of the total line, the largest that fits is marked
    mb = plan["fields"]["micro_batch"]
    pts = [x for x in chart_marks(m, "memory-vs-micro-batch",
                                  **{"data-series": "total_bytes"})
           if same(x.get("data-x"), mb)]
    check(len(pts) == 1 and same(pts[0].get("data-y"), mem["total_bytes"]),
          f"memory-vs-micro-batch at {mb}: "
          f"{[p.get('data-y') for p in pts]} != {mem['total_bytes']}")
    x = one(m, "memory-vs-micro-batch", "max_micro_batch",
            **{"data-field": "max_micro_batch"})
    check(same(x.get("data-value"), plan["fields"]["max_micro_batch"]),
          f"max_micro_batch {x.get('data-value')} != "
          f"{plan['fields']['max_micro_batch']}")
    # the largest micro-batch at the plan's sequence, its precision
    prec = plan["fields"]["precision"]
    pts = [x for x in chart_marks(m, "max-micro-batch-vs-seq",
                                  **{"data-series": prec})
           if same(x.get("data-x"), plan["fields"]["seq"])]
    check(len(pts) == 1 and same(pts[0].get("data-y"),
                                 plan["fields"]["max_micro_batch"]),
          f"max-micro-batch-vs-seq {prec} at seq {plan['fields']['seq']}: "
          f"{[p.get('data-y') for p in pts]}")
    # the step's parts
    check_parts(m, "step-time-breakdown",
                ["compute_s", "bubble_s", "tp_exposed_s", "pp_comm_s",
                 "dp_exposed_s", "optimizer_s"], perf, "step-time-breakdown")
    x = one(m, "step-time-breakdown", "step", **{"data-field": "step_time_s"})
    check(same(x.get("data-value"), perf["step_time_s"]),
          f"step_time_s {x.get('data-value')} != {perf['step_time_s']}")
    # scaling: the plan's own GPU count has its throughput and 100%...
    gpus = plan["fields"]["gpus"]
    pts = [x for x in chart_marks(m, "throughput-vs-gpus",
                                  **{"data-series": "tokens_per_s"})
           if same(x.get("data-x"), gpus)]
    check(len(pts) == 1 and same(pts[0].get("data-y"), perf["tokens_per_s"]),
          f"throughput at {gpus} GPUs: {[p.get('data-y') for p in pts]} != "
          f"{perf['tokens_per_s']}")
    # ...and its (time, cost) point
    run = plan["run"]
    pts = [x for x in chart_marks(m, "cost-vs-time")
           if x.get("data-series") in ("pareto", "dominated") and
           same(x.get("data-x"), run["time_h"])]
    check(len(pts) == 1 and same(pts[0].get("data-y"), run["cost_usd"]),
          f"cost-vs-time at {run['time_h']} h: "
          f"{[p.get('data-y') for p in pts]} != {run['cost_usd']}")
    # the learning rate: peak, warmup and the end of warmup
    lr = plan["lr"]
    x = one(m, "lr-schedule", "peak", **{"data-field": "lr_peak"})
    check(same(x.get("data-value"), lr["peak"]), "lr peak")
    x = one(m, "lr-schedule", "warmup", **{"data-field": "warmup_steps"})
    check(same(x.get("data-value"), lr["warmup_steps"]), "lr warmup")
    at = {a["step"]: a["lr"] for a in lr["at"]}
    pts = [x for x in chart_marks(m, "lr-schedule")
           if "data-x" in x and float(x["data-x"]) in at]
    check(len(pts) >= 2, f"lr-schedule: {len(pts)} points at the JSON's steps")
    # the line reaches the run's last step
    xs = [float(x["data-x"]) for x in chart_marks(m, "lr-schedule") if "data-x" in x]
    check(xs and max(xs) == run["steps"] - 1,
          f"lr-schedule ends at step {max(xs) if xs else None}, the run has {run['steps']}")
    for p in pts:
        check(same(p["data-y"], at[float(p["data-x"])]),
              f"lr at step {p['data-x']}: {p['data-y']}")
    # the table
    check_plan_table(m, {"total_bytes": mem["total_bytes"],
                         "step_time_s": perf["step_time_s"],
                         "cost_usd": run["cost_usd"]}, "table")


def check_sweep(m, every):
    """every: the sweep's plans, ranked ones first (rank null: a Pareto
    plan outside the kept ones)."""
    rows = [r for r in every if r["rank"] is not None]
    for c in SWEEP_CHARTS:
        check(c in m.charts, f"chart {c} missing (have {m.charts})")
    # every ranked row of the table equals the database's
    table = {}
    row = -1
    for x in m.marks:
        if x.get("_table") != "ranked":
            continue
        if x.get("data-field") == "rank":
            row = int(float(x["data-value"]))
        if "data-value" in x and row > 0:
            table.setdefault(row, {})[x["data-field"]] = x["data-value"]
    check(len(table) == min(50, len(rows)),
          f"table rows {len(table)} != {min(50, len(rows))}")
    for r in rows[:50]:
        t = table.get(r["rank"], {})
        for f in ["gpus", "total_bytes", "step_time_s", "cost_usd", "time_h"]:
            check(same(t.get(f), r[f]),
                  f"table rank {r['rank']} {f}: {t.get(f)} != {r[f]}")
    # every kept plan is a point of cost against time at its figures
    pts = {(float(x["data-x"]), float(x["data-y"]))
           for x in chart_marks(m, "kept-cost-vs-time") if "data-x" in x}
    for r in every:
        check((float(r["time_h"]), float(r["cost_usd"])) in pts,
              f"cost-vs-time: rank {r['rank']} missing")
    front = [x for x in chart_marks(m, "kept-cost-vs-time",
                                    **{"data-series": "pareto"})]
    check(len(front) >= 1, "cost-vs-time: no Pareto point")
    # the best throughput at each GPU count
    best = {}
    for r in every:
        if r["fits"]:  # a plan that does not fit is never the best
            best[r["gpus"]] = max(best.get(r["gpus"], 0.0), r["tokens_per_s"])
    for g, v in best.items():
        pts = [x for x in chart_marks(m, "kept-throughput-vs-gpus")
               if "data-x" in x and same(x["data-x"], g)]
        check(len(pts) == 1 and same(pts[0]["data-y"], v),
              f"throughput at {g} GPUs != {v}")
    # the best plan, evaluated again from its row, is the row: its table
    # and its memory breakdown
    r1 = rows[0]
    check_plan_table(m, {f: r1[f] for f in ["total_bytes", "step_time_s",
                                             "tokens_per_s", "cost_usd",
                                             "time_h"]}, "best plan")
    check_parts(m, "memory-breakdown", MEMORY_PARTS, r1, "best plan")

def same_value(page_value, db_value):
    """An axis value as the page writes it against the database's."""
    if isinstance(db_value, str):
        return page_value == db_value
    return same(page_value, db_value)


def check_bestby(m, db):
    """For each axis of the latest sweep with two values or more, a
    best-by-AXIS chart whose marks are, at each value, the best plan's
    figures as the database holds them: the first by rank among the plans
    that fit, or where none fits, the one that needs least memory."""
    con = sqlite3.connect(db)
    sweep, axes = con.execute(
        "SELECT id, axes FROM sweeps ORDER BY id DESC LIMIT 1").fetchone()
    for axis in axes.split(","):
        chart = f"best-by-{axis}"
        rows = con.execute(
            f'SELECT rowid, "{axis}", rank, fits, total_bytes, time_h, '
            "step_time_s FROM plans WHERE sweep_id = ?", (sweep,)).fetchall()
        values = {r[1] for r in rows}
        if len(values) < 2:
            check(chart not in m.charts, f"{chart} for one value")
            continue
        check(chart in m.charts, f"chart {chart} missing (have {m.charts})")
        best = {}
        for v in values:
            cand = [r for r in rows if r[1] == v]
            fit = [r for r in cand if r[3]]
            if fit:
                best[v] = min(fit, key=lambda r: (r[2] is None, r[2] or 0, r[0]))
            else:
                best[v] = min(cand, key=lambda r: (r[4], r[0]))
        hours = all(b[5] is not None for b in best.values() if b[3])
        for v, b in best.items():
            at = [x for x in chart_marks(m, chart, **{"data-series": "best"})
                  if same_value(x.get("data-x"), v)]
            mem = [x for x in at if x.get("data-field") == "total_bytes"]
            check(len(mem) == 1 and same(mem[0].get("data-y"), b[4]) and
                  mem[0].get("data-fits") == str(b[3]),
                  f"{chart} at {v}: memory {[x.get('data-y') for x in mem]} "
                  f"!= {b[4]} (fits {b[3]})")
            if b[2] is not None and mem:
                check(same(mem[0].get("data-rank"), b[2]),
                      f"{chart} at {v}: rank {mem[0].get('data-rank')} != {b[2]}")
            field, want = ("time_h", b[5]) if hours else ("step_time_s", b[6])
            t = [x for x in at if x.get("data-field") == field]
            if b[3]:
                check(len(t) == 1 and same(t[0].get("data-y"), want),
                      f"{chart} at {v}: {field} {[x.get('data-y') for x in t]}"
                      f" != {want}")
            else:
                check(not t, f"{chart} at {v}: a time for a plan that does not fit")
    con.close()


def main():
    mode, page, data = sys.argv[1], sys.argv[2], sys.argv[3]
    m = Marks()
    with open(page, encoding="utf-8") as f:
        m.feed(f.read())
    self_contained(m)
    check("".join(m.text).strip() != "", "the page has no text")
    if mode == "bestby":
        check_bestby(m, data)
        for msg in failures:
            print(f"FAIL: {page}: {msg}")
        return 1 if failures else 0
    with open(data, encoding="utf-8") as f:
        d = json.load(f)
    if mode == "calc":
        check_calc(m, d)
    else:
        check_sweep(m, d)
    for msg in failures:
        print(f"FAIL: {page}: {msg}")
    if not failures:
        print(f"ok: {page}: {len(m.charts)} charts, "
              f"{sum(1 for x in m.marks if 'data-value' in x or 'data-y' in x)}"
              " values checked against the JSON")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
