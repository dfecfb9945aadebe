#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Benchmarks of the native evaluator (scripts/gpu-check.sh step bench-eval).

For level-1 tasks with a native solution in resources/solutions and the same kernel in
KernelBench's format in bench/kernelbench/ it measures, in one run:

- the native evaluator end to end: `dice eval` in a fresh process (worker start, NVRTC compile,
  5 correctness trials, 103 timed calls of candidate and reference), with its NVRTC compile time;
- KernelBench's protocol (anchors §B.2) on the KernelBench-format solution of the same problem:
  load_inline compile (the problems compiled concurrently, as KernelBench's build cache does),
  inputs drawn on the CPU by the task's get_inputs(), 5 correctness trials, 3 warm-ups, 100 timed
  trials plus one discarded with CUDA events and a 256 MB L2 flush, the reference timed the same
  way; the ratio of the two end-to-end times;
- timing agreement: the evaluator's reference medians against torch.cuda.Event timing in Python of
  the same operators on inputs of the same shape, drawn on the GPU, with the same protocol;
- noise: the coefficient of variation of the candidate's median over repeated evaluations;
- throughput: evaluations per minute with the worker kept warm;
- the sandbox's cost: the native evaluation in a fresh process with the worker confined and with
  DICE_EVALD_NO_SANDBOX=1, alternated; a KernelBench evaluation by `dice kernelbench eval` (its
  answer in the sandboxed child, the trusted side timing it) with the answer's process confined
  and with DICE_KERNELBENCH_NO_SANDBOX=1, alternated, and KernelBench's own protocol run once,
  unconfined in a fresh Python process, beside them, all with the build already made.

usage: eval_bench.py --dice BUILD/bin/dice --output FILE [--tasks relu softmax] [--repeats 4]
                     [--sandbox-rounds 5] [--sandbox-cost-only] [--sandbox-kernelbench-only]
                     [--skip-kernelbench]

Progress goes to stderr as each part starts and ends, and the result file is written after each
part, so that a run cut short keeps what it measured ("complete" says whether it finished).
--sandbox-cost-only measures the sandbox's cost alone (with the KernelBench builds it needs);
--sandbox-kernelbench-only that cost for the KernelBench dialect alone, written after each task.
"""

import argparse
import concurrent.futures
import datetime
import json
import multiprocessing
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


START = time.perf_counter()


def progress(text):
    print("[%6.1f s] %s" % (time.perf_counter() - START, text), file=sys.stderr, flush=True)


def write_report(report, path):
    with open(path + ".tmp", "w") as f:
        json.dump(report, f, indent=2)
        f.write("\n")
    os.replace(path + ".tmp", path)


def load_task(name):
    with open(os.path.join(ROOT, "resources", "tasks", name + ".json")) as f:
        return json.load(f)


def run_dice(dice, args, env=None):
    start = time.perf_counter()
    proc = subprocess.run([dice] + args, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise RuntimeError("dice %s failed (%d): %s" % (" ".join(args), proc.returncode,
                                                        proc.stderr[-2000:]))
    try:
        return json.loads(proc.stdout), wall
    except json.JSONDecodeError:
        raise RuntimeError("dice %s printed no result (exit status %d): %s" % (
            " ".join(args), proc.returncode, proc.stderr[-2000:]))


def native_cold(dice, task, env=None):
    """One evaluation in a fresh process: what a user waits for."""
    solution = os.path.join(ROOT, "resources", "solutions", task + ".dice")
    result, wall = run_dice(dice, ["eval", task, solution, "--json", "--no-store"], env)
    return {
        "verdict": result["verdict"],
        "message": result["message"],
        "nvrtc_compile_ms": result["compile_ms"],
        "evaluation_ms": result["wall_ms"],
        "process_wall_s": wall,
        "candidate_median_ms": result.get("candidate_time", {}).get("median_ms"),
        "reference_median_ms": result.get("reference_time", {}).get("median_ms"),
        "speedup": result["speedup"],
    }


def native_warm(dice, tasks, repeats):
    """The tasks evaluated `repeats` times by one warm worker."""
    with tempfile.TemporaryDirectory() as tmp:
        task_dir = os.path.join(tmp, "tasks")
        cand_dir = os.path.join(tmp, "candidates")
        os.makedirs(task_dir)
        os.makedirs(cand_dir)
        for t in tasks:
            shutil.copy(os.path.join(ROOT, "resources", "tasks", t + ".json"), task_dir)
            shutil.copy(os.path.join(ROOT, "resources", "solutions", t + ".dice"), cand_dir)
        out, wall = run_dice(dice, ["eval", "--suite", task_dir, "--candidates", cand_dir,
                                    "--repeat", str(repeats), "--json", "--no-store"])
    per_task = {}
    for r in out["results"]:
        per_task.setdefault(r["task"], []).append(r)
    summary = {}
    for t, runs in per_task.items():
        cand = [r["candidate_time"]["median_ms"] for r in runs if "candidate_time" in r]
        ref = [r["reference_time"]["median_ms"] for r in runs if "reference_time" in r]
        cupti = [r["candidate_kernel_time"]["median_ms"] for r in runs
                 if "candidate_kernel_time" in r]
        summary[t] = {
            "verdicts": [r["verdict"] for r in runs],
            "candidate_medians_ms": cand,
            "reference_medians_ms": ref,
            "candidate_cupti_medians_ms": cupti,
            "candidate_cv": statistics.pstdev(cand) / statistics.mean(cand) if len(cand) > 1
            else None,
            "reference_cv": statistics.pstdev(ref) / statistics.mean(ref) if len(ref) > 1
            else None,
            "evaluation_ms": [r["wall_ms"] for r in runs],
        }
    # The first evaluation starts the worker; the rest show the warm rate.
    walls = [r["wall_ms"] for r in out["results"]][1:]
    throughput = 60000.0 * len(walls) / sum(walls) if walls else None
    return summary, throughput, wall


def kernelbench_compile(task):
    """Runs in a separate process: exec of the solution triggers load_inline."""
    start = time.perf_counter()
    scope = {}
    with open(os.path.join(HERE, "kernelbench", task + ".py")) as f:
        exec(compile(f.read(), task + ".py", "exec"), scope)
    return task, time.perf_counter() - start


def l2_flush(torch):
    # KernelBench writes a 256 MB int64 tensor before each timed trial.
    buf = torch.empty(256 * 1024 * 1024 // 8, dtype=torch.int64, device="cuda")
    buf.fill_(1)


def time_like_kernelbench(torch, model, make_inputs, warmups, trials, discard=1):
    inputs = make_inputs()
    for _ in range(warmups):
        model(*inputs)
        torch.cuda.synchronize()
    torch.cuda.empty_cache()
    times = []
    for _ in range(trials + discard):
        torch.cuda.synchronize()
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        l2_flush(torch)
        start.record()
        model(*inputs)
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    return times[discard:]


def kernelbench_eval(torch, task, compile_s):
    """KernelBench's evaluation of one problem after its compile (anchors §B.2)."""
    spec = load_task(task)
    start = time.perf_counter()
    ref_scope = {}
    exec(compile(spec["pytorch_module"], task + "_ref.py", "exec"), ref_scope)
    new_scope = {}
    with open(os.path.join(HERE, "kernelbench", task + ".py")) as f:
        exec(compile(f.read(), task + ".py", "exec"), new_scope)
    torch.manual_seed(42)
    init = [x.cuda() if hasattr(x, "cuda") else x for x in ref_scope["get_init_inputs"]()]
    torch.manual_seed(42)
    ref = ref_scope["Model"](*init).cuda()
    torch.manual_seed(42)
    new = new_scope["ModelNew"](*init).cuda()
    correct = True
    torch.manual_seed(42)
    seeds = [int(torch.randint(0, 2**31 - 1, (1,)).item()) for _ in range(5)]
    for seed in seeds:
        torch.manual_seed(seed)
        inputs = [x.cuda() for x in ref_scope["get_inputs"]()]
        with torch.no_grad():
            expected = ref(*inputs)
            torch.cuda.synchronize()
            got = new(*inputs)
            torch.cuda.synchronize()
        if got.shape != expected.shape or not torch.allclose(got, expected, atol=1e-4, rtol=1e-4):
            correct = False
            break
        del inputs, expected, got
    new_ms = ref_ms = None
    if correct:
        with torch.no_grad():
            new_ms = statistics.mean(time_like_kernelbench(
                torch, new, lambda: [x.cuda() for x in ref_scope["get_inputs"]()], 3, 100))
            ref_ms = statistics.mean(time_like_kernelbench(
                torch, ref, lambda: [x.cuda() for x in ref_scope["get_inputs"]()], 5, 100))
    eval_s = time.perf_counter() - start
    return {"correct": correct, "compile_s": compile_s, "eval_s": eval_s,
            "total_s": compile_s + eval_s, "candidate_mean_ms": new_ms, "reference_mean_ms": ref_ms}


def sandbox_cost(dice, tasks, rounds):
    """The sandbox's share of an evaluation, confined and unconfined runs alternated."""
    unconfined_env = dict(os.environ, DICE_EVALD_NO_SANDBOX="1")
    native = {}
    for t in tasks:
        runs = {"confined": [], "unconfined": []}
        for i in range(rounds):
            order = [("confined", None), ("unconfined", unconfined_env)]
            for name, env in order if i % 2 == 0 else reversed(order):
                runs[name].append(native_cold(dice, t, env))
        entry = {}
        for name, rs in runs.items():
            entry[name] = {"verdicts": [r["verdict"] for r in rs],
                           "messages": [r["message"] for r in rs],
                           "process_wall_s": [r["process_wall_s"] for r in rs],
                           "evaluation_ms": [r["evaluation_ms"] for r in rs]}
        wall = {n: statistics.median(entry[n]["process_wall_s"]) for n in runs}
        evaluation = {n: statistics.median(entry[n]["evaluation_ms"]) for n in runs}
        entry["median_process_wall_ratio"] = wall["confined"] / wall["unconfined"]
        entry["median_evaluation_ratio"] = evaluation["confined"] / evaluation["unconfined"]
        # An evaluation that did not run (no GPU free, out of memory) costs nothing to confine:
        # the ratio of such runs measures nothing.
        entry["all_correct"] = all(v == "correct" for n in runs for v in entry[n]["verdicts"])
        entry["within_10_percent"] = (entry["all_correct"] and
                                      entry["median_process_wall_ratio"] <= 1.10)
        native[t] = entry
    return native


def kernelbench_once(task, build_dir):
    """The KernelBench protocol on one problem in this fresh process, unconfined; prints JSON."""
    import torch
    os.environ["TORCH_EXTENSIONS_DIR"] = build_dir
    start = time.perf_counter()
    result = kernelbench_eval(torch, task, 0.0)
    result["process_inner_s"] = time.perf_counter() - start
    print(json.dumps(result))


def kernelbench_dice_args(task, folder, timing=True):
    """`dice kernelbench eval` of the task's KernelBench-format solution, building in folder."""
    problem = os.path.join(folder, task + "_problem.py")
    if not os.path.exists(problem):
        with open(problem, "w") as f:
            f.write(load_task(task)["pytorch_module"])
    answer = os.path.join(HERE, "kernelbench", task + ".py")
    return (["kernelbench", "eval", problem, answer, "--build-dir",
             os.path.join(folder, "builds"), "--json"] + ([] if timing else ["--no-timing"]))


def kernelbench_sandbox_cost(dice, tasks, rounds, folders):
    """`dice kernelbench eval` with its answer's process in dice-sandbox against the same with
    DICE_KERNELBENCH_NO_SANDBOX=1 (the same processes and exchange, unconfined), alternated, each
    in a fresh process; and, beside them, KernelBench's own protocol once, unconfined in a fresh
    Python process. All find their builds made (folders[t] by dice, TORCH_EXTENSIONS_DIR by the compile
    of the KernelBench comparison)."""
    unconfined_env = dict(os.environ, DICE_KERNELBENCH_NO_SANDBOX="1")
    out = {}
    for t in tasks:
        dice_args = kernelbench_dice_args(t, folders[t])
        plain_args = [sys.executable, os.path.abspath(__file__), "--kernelbench-once", t,
                      "--build-dir", os.environ["TORCH_EXTENSIONS_DIR"], "--dice", dice,
                      "--output", "-"]
        runs = {"sandboxed": [], "unconfined": []}
        verdicts = {"sandboxed": [], "unconfined": []}
        exchanges = []
        kernelbench_protocol = []
        for i in range(rounds):
            order = [("sandboxed", None), ("unconfined", unconfined_env)]
            for name, env in order if i % 2 == 0 else reversed(order):
                result, wall = run_dice(dice, dice_args, env)
                runs[name].append(wall)
                verdicts[name].append(result["verdict"])
                if name == "sandboxed":
                    exchanges.append((result.get("timing_check") or {}).get("exchange", ""))
            if i == 0:
                # Once: KernelBench's protocol draws every call's inputs on the CPU, a minute for
                # a bench-sized problem, and is only a landmark here.
                start = time.perf_counter()
                subprocess.run(plain_args, capture_output=True, check=True)
                kernelbench_protocol.append(time.perf_counter() - start)
        extra = statistics.median(runs["sandboxed"]) - statistics.median(runs["unconfined"])
        correct = all(v == "correct" for vs in verdicts.values() for v in vs)
        out[t] = {"sandboxed_process_wall_s": runs["sandboxed"],
                  "unconfined_process_wall_s": runs["unconfined"],
                  "sandboxed_verdicts": verdicts["sandboxed"],
                  "unconfined_verdicts": verdicts["unconfined"],
                  "sandboxed_exchange": exchanges,
                  "kernelbench_protocol_process_wall_s": kernelbench_protocol,
                  "all_correct": correct, "median_extra_s": extra,
                  "median_extra_against_kernelbench_protocol_s":
                      statistics.median(runs["sandboxed"]) -
                      statistics.median(kernelbench_protocol),
                  "within_2_s": correct and extra <= 2.0}
    return out


def python_reference_timing(torch, task, trials=100, warmups=3):
    """torch.cuda.Event timing of the task's reference operator, inputs drawn on the GPU."""
    spec = load_task(task)
    preset = spec["presets"]["bench"]
    shape = [preset[d] if isinstance(d, str) else d for d in spec["inputs"][0]["shape"]]
    op = {"relu": lambda x: torch.relu(x), "softmax": lambda x: torch.softmax(x, dim=1),
          "matmul": None}[task]
    flush = torch.empty(256 * 1024 * 1024 // 8, dtype=torch.int64, device="cuda")
    times = []
    with torch.no_grad():
        for i in range(warmups + trials):
            x = torch.randn(shape, device="cuda")
            torch.cuda.synchronize()
            flush.fill_(i)
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            op(x)
            end.record()
            torch.cuda.synchronize()
            if i >= warmups:
                times.append(start.elapsed_time(end))
            del x
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dice", required=True)
    parser.add_argument("--output", required=True)
    parser.add_argument("--tasks", nargs="+", default=["relu", "softmax"])
    parser.add_argument("--repeats", type=int, default=4)
    parser.add_argument("--skip-kernelbench", action="store_true")
    parser.add_argument("--sandbox-rounds", type=int, default=5)
    parser.add_argument("--sandbox-cost-only", action="store_true")
    # A KernelBench-dialect evaluation of a bench-sized problem takes about a minute and a half
    # (100 timed calls, each copying the output out): the sandbox's cost for that dialect alone
    # fits a device call where both dialects' do not.
    parser.add_argument("--sandbox-kernelbench-only", action="store_true")
    parser.add_argument("--kernelbench-once", help=argparse.SUPPRESS)
    parser.add_argument("--build-dir", help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.sandbox_cost_only = args.sandbox_cost_only or args.sandbox_kernelbench_only
    if args.kernelbench_once:
        kernelbench_once(args.kernelbench_once, args.build_dir)
        return 0

    import torch

    report = {
        "kind": "bench-eval",
        # Paths of this machine stay out of the result: the program is named relative to the
        # source tree, the output by its file name.
        "command": "bench/eval_bench.py --dice %s --output %s --tasks %s --repeats %d "
                   "--sandbox-rounds %d%s%s%s" % (
                       os.path.relpath(os.path.abspath(args.dice), ROOT),
                       os.path.basename(args.output), " ".join(args.tasks), args.repeats,
                       args.sandbox_rounds,
                       " --sandbox-cost-only" if args.sandbox_cost_only else "",
                       " --sandbox-kernelbench-only" if args.sandbox_kernelbench_only else "",
                       " --skip-kernelbench" if args.skip_kernelbench else ""),
        "complete": False,
        "time": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "machine": {"gpu": torch.cuda.get_device_name(0), "torch": torch.__version__,
                    "cuda": torch.version.cuda, "python": platform.python_version()},
    }
    info = subprocess.run([args.dice, "info", "--json"], capture_output=True, text=True)
    if info.returncode == 0:
        facts = json.loads(info.stdout)
        report["machine"]["devices"] = facts.get("devices", [])
        report["machine"]["cuda"] = facts.get("cuda", {})
        report["machine"]["libtorch"] = facts.get("libtorch", {})

    # KernelBench's compile starts first: it is by far the longest part, and it runs in other
    # processes while the native evaluator works.
    pool = None
    futures = {}
    compile_start = time.perf_counter()
    if not args.skip_kernelbench:
        os.environ.setdefault("TORCH_EXTENSIONS_DIR", tempfile.mkdtemp(prefix="dice-kb-ext-"))
        # Spawned, not forked: this process has already started CUDA.
        pool = concurrent.futures.ProcessPoolExecutor(
            max_workers=len(args.tasks), mp_context=multiprocessing.get_context("spawn"))
        futures = {t: pool.submit(kernelbench_compile, t) for t in args.tasks}
        # The sandboxed evaluator's builds for the sandbox's cost, made meanwhile (correctness
        # only, so that they barely touch the GPU the native measurements use).
        cost_folders = {t: tempfile.mkdtemp(prefix="dice-kb-cost-") for t in args.tasks}
        cost_builds = [subprocess.Popen([args.dice] + kernelbench_dice_args(t, cost_folders[t],
                                                                            timing=False),
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                       for t in args.tasks]

    native, warm, throughput, agreement, kernelbench, comparison, noise = {}, {}, None, {}, {}, {}, {}
    if not args.sandbox_cost_only:
        progress("native evaluations in fresh processes")
        native = {t: native_cold(args.dice, t) for t in args.tasks}
        report["native_cold"] = native
        write_report(report, args.output)
        progress("native evaluations by one warm worker, %d rounds" % args.repeats)
        warm, throughput, warm_wall = native_warm(args.dice, args.tasks, args.repeats)
        report.update({"native_warm": warm, "warm_throughput_evaluations_per_minute": throughput,
                       "native_warm_process_wall_s": warm_wall})
        progress("reference timing against torch.cuda.Event")
        for t in args.tasks:
            python_ms = python_reference_timing(torch, t)
            ours = statistics.median(warm[t]["reference_medians_ms"])
            agreement[t] = {"evaluator_reference_median_ms": ours,
                            "python_events_median_ms": python_ms, "ratio": ours / python_ms,
                            "within_5_percent": abs(ours / python_ms - 1) <= 0.05}
        noise = {t: {"candidate_cv": warm[t]["candidate_cv"],
                     "candidate_median_ms": statistics.median(warm[t]["candidate_medians_ms"]),
                     "below_3_percent": warm[t]["candidate_cv"] is not None
                     and warm[t]["candidate_cv"] < 0.03}
                 for t in args.tasks if warm[t]["candidate_medians_ms"]}
        report.update({"timing_agreement": agreement, "noise": noise})
        write_report(report, args.output)

    if pool:
        progress("waiting for KernelBench's load_inline builds")
        for t, fut in futures.items():
            _, compile_s = fut.result()
            kernelbench[t] = {"compile_s": compile_s}
        kernelbench_compile_wall = time.perf_counter() - compile_start
        pool.shutdown()
        report["kernelbench_parallel_compile_wall_s"] = kernelbench_compile_wall
        progress("builds made in %.1f s" % kernelbench_compile_wall)
        if not args.sandbox_cost_only:
            progress("KernelBench's protocol on the same problems")
            for t in args.tasks:
                kernelbench[t] = kernelbench_eval(torch, t, kernelbench[t]["compile_s"])
                torch.cuda.empty_cache()
        report["kernelbench"] = kernelbench
        write_report(report, args.output)

    if not args.skip_kernelbench:
        # The sandboxed evaluator's builds run their trials on the GPU once built: the native
        # measurements wait for them, or they share its memory with them and measure that.
        for build in cost_builds:
            build.wait()
    cost = {"native": {}}
    if not args.sandbox_kernelbench_only:
        progress("sandbox cost: native, %d rounds of confined and unconfined" %
                 args.sandbox_rounds)
        cost["native"] = sandbox_cost(args.dice, args.tasks, args.sandbox_rounds)
    report["sandbox_cost"] = cost
    write_report(report, args.output)
    if not args.skip_kernelbench:
        cost["kernelbench"] = {}
        for t in args.tasks:
            progress("sandbox cost: KernelBench %s, %d rounds" % (t, args.sandbox_rounds))
            cost["kernelbench"][t] = kernelbench_sandbox_cost(
                args.dice, [t], args.sandbox_rounds, cost_folders)[t]
            write_report(report, args.output)

    if native:
        for t in args.tasks:
            entry = {"native_end_to_end_s": native[t]["process_wall_s"]}
            if "total_s" in kernelbench.get(t, {}):
                entry["kernelbench_end_to_end_s"] = kernelbench[t]["total_s"]
                entry["ratio"] = kernelbench[t]["total_s"] / native[t]["process_wall_s"]
                entry["at_least_20x"] = entry["ratio"] >= 20
            comparison[t] = entry
        report["end_to_end"] = comparison
    report["complete"] = True
    write_report(report, args.output)
    progress("done")

    print("bench-eval summary (%s)" % report["machine"]["gpu"])
    for t in args.tasks if native else []:
        n = native[t]
        print("  %-8s native: NVRTC %.1f ms, evaluation %.2f s, process %.2f s (%s)"
              % (t, n["nvrtc_compile_ms"], n["evaluation_ms"] / 1000, n["process_wall_s"],
                 n["verdict"]))
        if "total_s" in kernelbench.get(t, {}):
            k = kernelbench[t]
            print("  %-8s KernelBench protocol: compile %.1f s + evaluation %.1f s = %.1f s -> %.1fx"
                  % (t, k["compile_s"], k["eval_s"], k["total_s"], comparison[t]["ratio"]))
        a = agreement[t]
        print("  %-8s reference %.4f ms (evaluator) vs %.4f ms (torch.cuda.Event): %.3f"
              % (t, a["evaluator_reference_median_ms"], a["python_events_median_ms"], a["ratio"]))
        if t in noise:
            print("  %-8s candidate median %.4f ms, CV %.4f over %d evaluations"
                  % (t, noise[t]["candidate_median_ms"], noise[t]["candidate_cv"] or 0,
                     len(warm[t]["candidate_medians_ms"])))
    if throughput:
        print("  warm worker: %.1f evaluations per minute" % throughput)
    for t, c in cost["native"].items():
        print("  %-8s sandbox: native process %.3fx, evaluation %.3fx of unconfined%s"
              % (t, c["median_process_wall_ratio"], c["median_evaluation_ratio"],
                 "" if c["all_correct"] else " (not every evaluation ran: %s)"
                 % c["confined"]["messages"][0]))
    for t, c in cost.get("kernelbench", {}).items():
        print("  %-8s sandbox: KernelBench evaluation %+.2f s against unconfined, %+.2f s "
              "against KernelBench's own protocol"
              % (t, c["median_extra_s"], c["median_extra_against_kernelbench_protocol_s"]))
    ok = all(a["within_5_percent"] for a in agreement.values())
    ok = ok and all(c["within_10_percent"] for c in cost["native"].values())
    ok = ok and all(c["within_2_s"] for c in cost.get("kernelbench", {}).values())
    ok = ok and all(e.get("at_least_20x", True) for e in comparison.values())
    ok = ok and all(v["below_3_percent"] for v in noise.values() if v["candidate_median_ms"] >= 1)
    print("bench-eval: %s" % ("all goals met" if ok else "a goal was missed (see above)"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
