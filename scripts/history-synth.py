#!/usr/bin/env python3
"""history-synth.py - synthetic results files for the history benchmarks
(scripts/history-bench.sh), and the scoring of `flowbench history detect`.

  history-synth.py gen OUT_DIR --commits N --step-configs S --flat-configs F
      [--step-at C] [--steps 0.05,0.10] [--noise FILE | --sigma R] [--seed X] [--rounds N]
    writes OUT_DIR/commit-NNNN.jsonl, one results file per commit, each with
    S + F configurations: the first S get a step (their time times 1 + step,
    the steps taken in turn) from commit C (0-based) on, the other F none.
    Each configuration's median per commit is its base time times a noise
    factor: drawn from FILE when given (one line per real configuration,
    its relative A/A deviations separated by spaces, as
    scripts/history-replay.sh records them: synthetic series k draws from
    line k modulo their number, so a quiet kernel's noise stays a quiet
    kernel's), else normal with relative sigma R. With --rounds N each
    commit holds N records of each configuration, each its own draw (as
    `sweep --repeat N` writes them, with "round" and "rounds"): the
    history's point of a commit is then their median.
  history-synth.py score DETECT_OUTPUT --step-configs S --flat-configs F --step-at C
    reads `history detect` output and prints the detection rate of the
    step configurations (a change point within one commit of C) and the
    false change points (any other change point of any configuration).
Test data, not measurements: nothing here is timed.
"""
import argparse
import json
import os
import random
import re
import sys


def header(run_id):
    return {"type": "header", "schema": 1, "run_id": run_id, "date": "2026-01-01T00:00:00Z",
            "command": "history-synth", "host": {"hostname": "synthetic", "cpu": "Synthetic CPU",
                                                "logical_cpus": 2},
            "devices": [{"backend": "openmp", "id": "openmp:0", "name": "Synthetic CPU"}]}


def record(run_id, k, median, rng, rnd=None):
    # five samples about the median, 0.5% apart: the run's own spread
    samples = sorted(median * (1 + 0.005 * rng.uniform(-1, 1)) for _ in range(4)) + [median]
    return {"type": "measurement", "schema": 1, "run_id": run_id, "benchmark": "synthetic",
            "kernel": "k%03d" % k, "backend": "openmp", "device": "openmp:0", "device_name": "Synthetic CPU",
            "precision": "double", "params": {"n": 1000}, "status": "ok", "bytes": 8e6,
            "stats": {"samples_s": samples, "n": len(samples), "median_s": median}} | (
                {"round": rnd[0], "rounds": rnd[1]} if rnd and rnd[1] > 1 else {})


def gen(a):
    rng = random.Random(a.seed)
    noise = None
    if a.noise:
        with open(a.noise) as f:
            noise = [[float(x) for x in line.split()] for line in f if line.strip()]
        if not noise:
            sys.exit("history-synth.py: %s holds no deviation" % a.noise)
    steps = [float(s) for s in a.steps.split(",")]
    nconf = a.step_configs + a.flat_configs
    base = [1e-3 * (1 + k % 17) for k in range(nconf)]
    os.makedirs(a.out, exist_ok=True)
    for c in range(a.commits):
        run_id = "synthetic-%04d" % c
        with open(os.path.join(a.out, "commit-%04d.jsonl" % c), "w") as f:
            f.write(json.dumps(header(run_id)) + "\n")
            for r in range(1, a.rounds + 1):
                for k in range(nconf):
                    dev = rng.choice(noise[k % len(noise)]) if noise else rng.gauss(0, a.sigma)
                    step = steps[k % len(steps)] if k < a.step_configs and c >= a.step_at else 0
                    rec = record(run_id, k, base[k] * (1 + step) * (1 + dev), rng, (r, a.rounds))
                    f.write(json.dumps(rec) + "\n")


def score(a):
    found, false_points, current = set(), 0, None
    with open(a.output) as f:
        for line in f:
            m = re.match(r"synthetic k(\d+) ", line)
            if m:
                current = int(m.group(1))
                continue
            m = re.match(r"  at \S+ \(commit (\d+) of \d+", line)
            if m and current is not None:
                at = int(m.group(1)) - 1  # 0-based
                if current < a.step_configs and abs(at - a.step_at) <= 1 and current not in found:
                    found.add(current)
                else:
                    false_points += 1
    flat_false = 0
    with open(a.output) as f:
        current = None
        for line in f:
            m = re.match(r"synthetic k(\d+) ", line)
            if m:
                current = int(m.group(1))
            elif line.startswith("  at ") and current is not None and current >= a.step_configs:
                flat_false += 1
    print("detected %d of %d steps within one commit (%.0f%%); %d false change point(s) in all, %d in the %d "
          "series without a step" % (len(found), a.step_configs, 100.0 * len(found) / max(a.step_configs, 1),
                                     false_points, flat_false, a.flat_configs))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen")
    g.add_argument("out")
    g.add_argument("--commits", type=int, default=30)
    g.add_argument("--step-configs", type=int, default=100)
    g.add_argument("--flat-configs", type=int, default=100)
    g.add_argument("--step-at", type=int, default=20)
    g.add_argument("--steps", default="0.05,0.10")
    g.add_argument("--noise")
    g.add_argument("--sigma", type=float, default=0.01)
    g.add_argument("--seed", type=int, default=1)
    g.add_argument("--rounds", type=int, default=1)
    s = sub.add_parser("score")
    s.add_argument("output")
    s.add_argument("--step-configs", type=int, default=100)
    s.add_argument("--flat-configs", type=int, default=100)
    s.add_argument("--step-at", type=int, default=20)
    a = p.parse_args()
    gen(a) if a.cmd == "gen" else score(a)


if __name__ == "__main__":
    main()
