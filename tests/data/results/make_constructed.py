#!/usr/bin/env python3
"""make_constructed.py - writes the CONSTRUCTED results files of this folder.

These files are test data, not measurements: every header says
"command": "constructed-test-data", the host is "constructed-test-host" and
the devices are named "... (constructed test data)". Sample times come from
a simple model plus deterministic pseudo-random noise, so tests of export,
plot, compare and report can exercise record types (SpMV variants, sweeps,
block shapes, peers, failures) that the measuring commands do not write yet.

Run from anywhere: python3 tests/data/results/make_constructed.py
The tests use the files it writes; they do not run it.
"""
import json
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
CPU = "Constructed CPU (constructed test data)"
GPU = "Constructed GPU (constructed test data)"


def device(backend, dev_id, name, cu, cache):
    return {"backend": backend, "id": dev_id, "name": name, "vendor": "constructed",
            "device_version": "constructed", "driver_version": "constructed 1.0",
            "runtime_version": "constructed 1.0", "compute_units": cu, "max_work_group_size": 1024,
            "max_work_item_sizes": [1024, 1024, 64], "local_mem_bytes": 65536,
            "global_mem_bytes": 16 << 30, "cache_bytes": cache, "clock_mhz": 1000,
            "double_support": True, "subgroup_size": 32 if backend != "openmp" else 0,
            "compute_capability": ""}


def header(run_id, cpu=CPU, gpu=GPU, threads=2):
    return {"type": "header", "schema": 1, "run_id": run_id, "date": run_id[:20],
            "command": "constructed-test-data",
            "host": {"hostname": "constructed-test-host", "cpu": cpu, "cpu_vendor": "constructed",
                     "logical_cpus": 2, "omp_threads": threads, "cpu_mhz": 1000.0,
                     "llc_bytes": 32 << 20, "memory_bytes": 16 << 30, "os": "constructed"},
            "build": {"flowbench_version": "0.1.0", "git_revision": "constructed",
                      "compiler": "constructed", "flags": "-O3", "build_type": "Release",
                      "opencl": True, "cuda": False, "papi": False},
            "devices": [device("openmp", "openmp:0", cpu, 2, 32 << 20),
                        device("opencl", "opencl:0.0", gpu, 80, 50 << 20)]}


def samples(rng, median, n, noise):
    return [median * (1 + noise * rng.gauss(0, 1)) for _ in range(n)]


def measurement(run_id, rng, benchmark, kernel, dev, params, median, n=10, noise=0.01,
                bytes_=None, flops=None, **extra):
    backend, dev_id, name = dev
    s = samples(rng, median, n, noise)
    srt = sorted(s)
    med = srt[n // 2] if n % 2 else 0.5 * (srt[n // 2 - 1] + srt[n // 2])
    mean = sum(s) / n
    sd = (sum((x - mean) ** 2 for x in s) / (n - 1)) ** 0.5 if n > 1 else 0.0
    rec = {"benchmark": benchmark, "kernel": kernel, "backend": backend, "device": dev_id,
           "device_name": name, "precision": "double", "params": params,
           "stats": {"samples_s": s, "n": n, "median_s": med, "min_s": srt[0], "max_s": srt[-1],
                     "mean_s": mean, "stddev_s": sd, "median_spread": 0.01, "stop": "converged",
                     "wall_s": sum(s)},
           "check": {"max_rel_error": 1e-15, "ok": True}, "status": "ok",
           "schema": 1, "run_id": run_id, "type": "measurement"}
    if bytes_ is not None:
        rec["bytes"] = bytes_
        rec["gbs"] = bytes_ / med / 1e9
    if flops is not None:
        rec["flops"] = flops
        rec["gflops"] = flops / med / 1e9
    rec.update(extra)
    return rec


OMP = ("openmp", "openmp:0", CPU)
OCL = ("opencl", "opencl:0.0", GPU)
STREAM_GBS = {OMP: 40.0, OCL: 800.0}
MATRICES = [("cavity-L1", "matrices/cavity-L1.mtx", "c0n57r0c7ed01", 3300, 45000),
            ("cavity-L2", "matrices/cavity-L2.mtx", "c0n57r0c7ed02", 24000, 340000),
            ("ahmed", "matrices/ahmed.mtx", "c0n57r0c7ed03", 80000, 1200000)]


def stream_records(run_id, rng):
    out = []
    n = 10_000_000
    for dev in (OMP, OCL):
        for kernel, words in (("copy", 2), ("mul", 2), ("add", 3), ("triad", 3)):
            b = words * 8 * n
            out.append(measurement(run_id, rng, "stream", kernel, dev, {"n": n, "wg": 256},
                                   b / (STREAM_GBS[dev] * 1e9), bytes_=b, flops=float(n)))
    return out


def spmv(run_id, rng, kernel, dev, matrix, params, efficiency, block=None, suite="constructed-suite", case=None,
         **extra):
    name, source, digest, rows, nnz = matrix
    b = nnz * 12 + rows * 20
    t = b / (STREAM_GBS[dev] * 1e9 * efficiency)
    m = {"name": name, "source": source, "hash": digest, "rows": rows, "cols": rows, "nnz": nnz}
    if block:
        m["block"] = block
    return measurement(run_id, rng, "spmv", kernel, dev, params, t, bytes_=b, flops=2.0 * nnz,
                       matrix=m, suite=suite, case=case or name, **extra)


def sweep_records(run_id, rng):
    out = []
    for m in MATRICES:
        for w in range(5, 9):          # WORKGROUP_SIZE_BITS: work-groups of 32..256
            for r in range(0, 4):      # ROWS_PER_WORKGROUP_BITS
                if w == 8 and r == 3:
                    continue           # a cell the constraints exclude: stays blank
                eff = 0.35 + 0.1 * (w - 5) - 0.05 * abs(r - 1)
                out.append(spmv(run_id, rng, "csr-multirow", OCL, m,
                                {"WORKGROUP_SIZE_BITS": w, "ROWS_PER_WORKGROUP_BITS": r}, eff))
        for wg in (64, 128, 256):
            out.append(spmv(run_id, rng, "csr-scalar", OCL, m, {"WG_SIZE": wg}, 0.2 + wg / 2560))
        for k in (2, 3, 4):            # BCSR block size: the matrix's (SRC:block=K), recorded in params too
            out.append(spmv(run_id, rng, "bcsr", OCL, m, {"WG_SIZE": 128, "BLOCK_SIZE": k}, 0.4 + 0.1 * k,
                            block=k))
        out.append(spmv(run_id, rng, "csr-scalar", OMP, m, {}, 0.7))
        out.append(spmv(run_id, rng, "peer:graphblas", OMP, m, {}, 0.8))
    return out


def stencil_records(run_id, rng):
    out = []
    for (bx, by), eff in (((128, 1), 0.8), ((32, 4), 0.78), ((1, 128), 0.2)):
        b = 2 * 8 * 4096 * 4096
        out.append(measurement(run_id, rng, "heat2d", "heat-jacobi", OCL, {"BLOCK_X": bx, "BLOCK_Y": by, "ORDER": 0},
                               b / (STREAM_GBS[OCL] * 1e9 * eff), bytes_=b, flops=5.0 * 4096 * 4096))
    return out


def failures(run_id):
    wrong = {"benchmark": "spmv", "kernel": "csr-vector", "backend": "opencl", "device": "opencl:0.0",
             "device_name": GPU, "precision": "double", "params": {"WG_SIZE": 64, "VECTOR_SIZE": 32},
             "matrix": {"name": "ahmed", "hash": "c0n57r0c7ed03"}, "suite": "constructed-suite",
             "case": "ahmed", "status": "wrong-result", "reason": "max rel error 3e-2 > tolerance 1e-12",
             "check": {"max_rel_error": 0.03, "ok": False}, "schema": 1, "run_id": run_id,
             "type": "measurement"}
    skipped = dict(wrong, params={"WG_SIZE": 2048, "VECTOR_SIZE": 32}, status="skipped",
                   reason="WG_SIZE 2048 exceeds the device limit 1024")
    del skipped["check"]
    return [wrong, skipped]


STANDARD_MATRICES = [("gen:cube:level=0", "gen:cube:level=0", "c0n57r0c7ed10", 3375, 45403),
                     ("gen:cube:level=1", "gen:cube:level=1", "c0n57r0c7ed11", 24389, 344000),
                     ("general", "../matrices/general.mtx", "c0n57r0c7ed12", 5000, 60000)]
BLOCK_MATRICES = [("gen:cube:level=0:block=4", "gen:cube:level=0:block=4", "c0n57r0c7ed13", 13500, 726448)]


def standard_records(run_id, rng):
    """A run shaped like cases/standard.suite: both precisions, the csr and
    block cases, plus a second sweep of csr-multirow on the same matrices
    (case occupancy) as grid-cpu's fv-layouts and fv-occupancy do; and a
    heat2d block-shape sweep in both precisions."""
    out = []
    for prec in ("double", "single"):
        word = 8 if prec == "double" else 4
        n = 1 << 24
        for dev in (OMP, OCL):
            for kernel, words in (("copy", 2), ("triad", 3)):
                b = words * word * n
                out.append(measurement(run_id, rng, "stream", kernel, dev, {"n": n}, b / (STREAM_GBS[dev] * 1e9),
                                       bytes_=b, precision=prec, suite="standard", case="stream"))
        for m in STANDARD_MATRICES:
            for dev, kernels in ((OMP, ("csr-scalar", "peer:graphblas")), (OCL, ("csr-scalar", "csr-vector"))):
                for i, kernel in enumerate(kernels):
                    out.append(spmv(run_id, rng, kernel, dev, m, {}, 0.6 + 0.1 * i, precision=prec,
                                    suite="standard", case="csr"))
            for case, bits in (("csr", (5, 6, 7)), ("occupancy", (7, 8))):
                for w in bits:
                    for r in range(0, 3):
                        out.append(spmv(run_id, rng, "csr-multirow", OCL, m,
                                        {"WORKGROUP_SIZE_BITS": w, "ROWS_PER_WORKGROUP_BITS": r},
                                        0.35 + 0.1 * (w - 5) - 0.05 * abs(r - 1), precision=prec,
                                        suite="standard", case=case))
        for m in BLOCK_MATRICES:
            for kernel, eff in (("bcsr", 0.7), ("bcsr-vector", 0.8)):
                out.append(spmv(run_id, rng, kernel, OCL, m, {"WG_SIZE": 128}, eff, block=4, precision=prec,
                                suite="standard", case="block"))
        for (bx, by), eff in (((128, 1), 0.8), ((32, 4), 0.78), ((1, 128), 0.2)):
            b = 2 * word * 4096 * 4096
            out.append(measurement(run_id, rng, "heat2d", "heat-jacobi", OCL,
                                   {"BLOCK_X": bx, "BLOCK_Y": by, "ORDER": 0}, b / (STREAM_GBS[OCL] * 1e9 * eff),
                                   bytes_=b, flops=5.0 * 4096 * 4096, precision=prec, suite="standard",
                                   case="stencil"))
    return out


def judged(rec, quality, why, contended=None):
    """Gives rec the verdict fb_measure writes (stats.quality, quality_why)
    and, where contended is given, the environment's verdict."""
    rec["stats"]["quality"] = quality
    rec["stats"]["quality_why"] = why
    if contended is not None:
        rec["environment"] = {"cpus": 2, "cpu_threads": 2, "contended": contended,
                              "contended_why": why if contended else None}
    return rec


def solve(run_id, dev, level, step_s, steps, upload_s=0.0, download_s=0.0):
    """A solve record: steps of step_s each (the samples), the step split
    and the transfers, as flowbench solve writes them."""
    rec = measurement(run_id, random.Random(level), "solve", "fractional-step", dev, {"level": level},
                      step_s, n=steps, noise=0.0, case="cavity", level=level, steps=steps,
                      matrix={"name": "cavity-l%d" % level, "source": "gen:cube", "hash": "c0n57r0c7ed2%d" % level,
                              "rows": 100, "nnz": 1000})
    total = step_s * steps
    rec["total_s"] = total
    rec["timings"] = {"step1": {"median_s": 0.2 * step_s, "total_s": 0.2 * total},
                      "step2": {"median_s": 0.7 * step_s, "total_s": 0.7 * total},
                      "step3": {"median_s": 0.1 * step_s, "total_s": 0.1 * total},
                      "cpu_to_gpu_s": upload_s, "gpu_to_cpu_s": download_s}
    return rec


def quality_records(run_id, rng):
    """Records whose samples cannot be trusted beside ones that can: the
    report, export and plot must flag every figure that rests on them.
    cavity-L1: both sides stable (a trusted speedup); cavity-L2: the
    OpenCL samples fall in two modes 14x apart while their median's
    interval is +-0.6%; ahmed: the OpenMP run was contended. The solver:
    cavity-l0 trusted, its speedup 10x per step and 1.11x in total (the
    transfers); cavity-l1 with a contended OpenCL run."""
    out = stream_records(run_id, rng)
    for m in MATRICES:
        out.append(spmv(run_id, rng, "csr-scalar", OMP, m, {}, 0.7, suite="quality"))
        out.append(spmv(run_id, rng, "csr-scalar", OCL, m, {"WG_SIZE": 128}, 0.5, suite="quality"))
    two_modes = out[-3]
    t = two_modes["stats"]["median_s"]
    two_modes["stats"].update(samples_s=[t] * 5 + [14 * t] * 5, n=10, min_s=t, max_s=14 * t, median_spread=0.006)
    judged(two_modes, "unstable", "CV 98%, min 1.23 ms, median 7.99 ms, two modes, 5 samples near 1.23 ms and 5 near "
                                  "17.2 ms", contended=False)
    judged(out[-2], "contended", "CV 3%, min 2.1 ms, median 2.2 ms: this run's threads waited for a CPU 45% of the "
                                 "time, with up to 3 other runnable tasks on 2 CPUs, 2 used by this run", contended=True)
    for rec in out[-6:]:
        if "quality" not in rec["stats"]:
            judged(rec, "stable", None, contended=False)
    out.append(judged(solve(run_id, OMP, 0, 10e-3, 10), "stable", None, contended=False))
    out.append(judged(solve(run_id, OCL, 0, 1e-3, 10, upload_s=0.05, download_s=0.03), "stable", None,
                      contended=False))
    out.append(judged(solve(run_id, OMP, 1, 80e-3, 10), "stable", None, contended=False))
    out.append(judged(solve(run_id, OCL, 1, 5e-3, 10, upload_s=0.2, download_s=0.1), "contended",
                      "CV 40%, min 3 ms, median 5 ms: this run's threads waited for a CPU 60% of the time, with up to 4 "
                      "other runnable tasks on 2 CPUs, 1 used by this run", contended=True))
    return out


def write(name, records):
    with open(os.path.join(HERE, name), "w") as f:
        for r in records:
            f.write(json.dumps(r, separators=(",", ":")) + "\n")


def compare_set(run_id, rng, shift=None, noise=0.01, cpu=CPU, gpu=GPU):
    """Three configurations; `shift` multiplies the triad median."""
    recs = [header(run_id, cpu=cpu, gpu=gpu)]
    for kernel, t in (("copy", 1.0e-3), ("add", 1.5e-3), ("triad", 1.5e-3)):
        f = shift if (shift and kernel == "triad") else 1.0
        recs.append(measurement(run_id, rng, "stream", kernel, OMP, {"n": 1_000_000, "wg": 256}, t * f,
                                n=20, noise=noise, bytes_=3 * 8e6))
    return recs


def main():
    rng = random.Random(20261122)
    run = "2026-11-22T00:00:00Z-1"
    write("constructed-sweep.jsonl", [header(run)] + stream_records(run, rng) + sweep_records(run, rng)
          + stencil_records(run, rng) + failures(run))
    # compare: the same machine measured again (equal), a 20 % slower triad
    # (shifted), a 3 % shift inside 4 % noise (noisy), and another machine.
    write("constructed-base.jsonl", compare_set(run, rng))
    write("constructed-equal.jsonl", compare_set("2026-11-22T01:00:00Z-2", rng))
    write("constructed-slower.jsonl", compare_set("2026-11-22T02:00:00Z-3", rng, shift=1.2))
    write("constructed-faster.jsonl", compare_set("2026-11-22T02:30:00Z-6", rng, shift=0.8))
    write("constructed-noisy.jsonl", compare_set("2026-11-22T03:00:00Z-4", rng, shift=1.03, noise=0.04))
    write("constructed-other-machine.jsonl",
          compare_set("2026-11-22T04:00:00Z-5", rng, cpu="Another CPU (constructed test data)"))
    # unusable input: line 3 cut short; a measurement without "kernel"
    base = compare_set(run, random.Random(1))
    with open(os.path.join(HERE, "constructed-bad-json.jsonl"), "w") as f:
        for r in base[:2]:
            f.write(json.dumps(r, separators=(",", ":")) + "\n")
        f.write(json.dumps(base[2], separators=(",", ":"))[:80] + "\n")
    del base[1]["kernel"]
    write("constructed-missing-field.jsonl", base[:2])
    # a run shaped like the standard suite: figure names must tell its
    # figures apart by precision and case (its own generator: the files
    # above stay as they were)
    standard = "2026-11-22T05:00:00Z-7"
    write("constructed-standard.jsonl", [header(standard)] + standard_records(standard, random.Random(7)))
    # unstable and contended records beside stable ones (report, export and
    # plot flag every figure resting on them)
    quality = "2026-11-22T06:00:00Z-8"
    write("constructed-quality.jsonl", [header(quality)] + quality_records(quality, random.Random(8)))


if __name__ == "__main__":
    main()
