"""Structure-aware fuzzing: random valid-but-unusual kernels, each run through
`pto-run` before and after `--pto-tile-graph-pipeline` on the same inputs.

Each kernel is a varlen "matmul + vector epilogue" over a batch of sequences
given by cumulative offsets (`pto.cumulative`), drawn at random:

- tile configs: row tile T (tiny 1..16, odd 17..100, or huge 1024..4096 rows
  over short sequences), cube tiles (every L0 a multiple of 16 that fits L0A,
  L0B and L0C, L1 = 1..3 x L0), vector tiles (odd shapes, [1, 1] up to wider
  than the tile, clamped);
- control flow: a nest of extra `pto.loop`s around the compute (trip counts
  0, 1 or 2, constant or read from the offsets), empty loops, a loop-carried
  accumulator (iter_args, first iteration through `pto.is_loop_begin` and
  `scf.if`), scopes around vector ops;
- epilogue: a random chain of add / sub / mul / max / exp / row reductions
  (sum, amax with broadcasting back) / bf16 round trips / reads of another
  input, ending in `pto.atomic_add` (or `pto.assemble`) into the output;
- data: batches with empty sequences, one-row sequences, sequences longer
  than the tile, no batch at all.

The check (docs/Guarantees.md): the generated kernel verifies, the pipeline
accepts it and verifies after every pass, and the compiled kernel computes
what the program-level kernel computes. Bitwise where the pipeline only moves
ops; where expansion splits matmul K or a reduction into pieces the FP32
accumulation order changes, so outputs must agree to 2^-16 of the largest
output (2^-7 when a bf16 rounding can flip by one ulp on the way).

    python3 -m pto_mlir.fuzzgen --cases 100 --seed 1 [--keep DIR]
    python3 -m pto_mlir.fuzzgen --cases 100 --seed 1 --cpp 20   # the C++ chain

With `--cpp BATCH` each kernel instead goes through the Ascend code
generation (`--pto-ascend-pipeline`, `pto-translate --pto-to-cpp`), BATCH
kernels compiled into one program, and the program's exit code and outputs
must match `pto-run` on the program-level kernel (check_batch_cpp).

Failures are written to DIR (default: a temp dir) as the kernel, the
pipeline output and the inputs, with the command that reproduces them.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from pto_mlir.tools import run_kernel, run_tool

ROUND = "#pto.round_mode<RINT>"
INTRINSIC = "#pto.precision<INTRINSIC>"


@dataclass
class Kernel:
    text: str
    K: int
    N: int
    T: int
    uses_bf16_round: bool
    reorders: bool
    out_dtype: str = "float32"
    notes: list = field(default_factory=list)


def _tile(shape, dtype="f32"):
    return f"!pto.tile<{'x'.join(map(str, shape))}x{dtype}>"


def _cube_tile(rng: random.Random, M: int, K: int, N: int) -> str:
    """A cube tile whose L0s are multiples of 16 (bf16) within L0A/L0B/L0C."""
    def pick(extent):
        top = max(16, min(128, (extent + 15) // 16 * 16))
        return rng.choice(range(16, top + 1, 16))
    while True:
        m0, k0, n0 = pick(M), pick(K), pick(N)
        if m0 * k0 * 2 <= 65536 and k0 * n0 * 2 <= 65536 and m0 * n0 * 4 <= 131072:
            break
    mul = lambda: rng.choice([1, 1, 2, 3])
    m1, k1, n1 = m0 * mul(), k0 * mul(), n0 * mul()
    # Within the API page's L1 formula (mL1 x kL1 + kL1 x nL1 bf16 <= 512 KiB),
    # stricter than the staged [mL0, kL1] + [kL1, nL0] blocks the verifier checks.
    while (m1 * k1 + k1 * n1) * 2 > 512 * 1024:
        m1, k1, n1 = m0, k0, n0
    return f"#pto.cube_tile<m = [{m0}, {m1}], k = [{k0}, {k1}], n = [{n0}, {n1}]>"


def _vec_tile(rng: random.Random, T: int, N: int, reduce: bool = False) -> str:
    """A vector tile: rows anything from 1 to beyond the tile (clamped), the
    last dim a multiple of 16 elements (32-byte aligned for f32 and bf16)."""
    kind = rng.random()
    if kind < 0.15:
        r, c = 1, 16
    elif kind < 0.3:
        r, c = T * 2 + 1, 16 * (N // 16 + 2)  # larger than the tile: clamped
    else:
        r, c = rng.randint(1, max(1, T)), 16 * rng.randint(1, N // 16 + 1)
    # Keep the piece count bounded (expansion creates one op per piece).
    while (-(-T // min(r, T))) * (-(-N // min(c, N))) > 64:
        r, c = r * 2, c * 2
    if reduce:
        # Reduction tiles must stay within 64 KiB (f32).
        while min(r, T) * min(c, N) * 4 > 65536:
            r = max(1, r // 2)
    return f"#pto.vec_tile<[{r}, {c}]>"


def generate(rng: random.Random, name: str = "fz") -> Kernel:
    size = rng.random()
    if size < 0.2:
        T = rng.randint(1, 16)
    elif size < 0.85:
        T = rng.randint(17, 100)
    else:
        T = rng.choice([1024, 2048, 4096])
    K = rng.choice([16, 32, 48, 64, 80])
    N = rng.choice([1, 8, 16, 24, 32, 40, 64])
    bf16_round = False
    reorders = False
    L = []
    w = L.append
    ind = ["  "]

    def line(text):
        w(ind[0] + text)

    counter = [0]

    def fresh(prefix="v"):
        counter[0] += 1
        return f"%{prefix}{counter[0]}"

    ta, tb = f"!pto.tensor<?x{K}xbf16>", f"!pto.tensor<{K}x{N}xbf16>"
    tx, tout = f"!pto.tensor<?x{N}xf32>", f"!pto.tensor<?x{N}xf32>"
    w(f"pto.kernel @{name}(%a: {ta}, %b: {tb}, %x: {tx}, %out: {tout},")
    w("    %lens: !pto.tensor<?xi32> {pto.cumulative}) attributes {arch = #pto.arch<DAV_2201>} {")
    line("%c0 = arith.constant 0 : index")
    line("%c1 = arith.constant 1 : index")
    line("%c2 = arith.constant 2 : index")
    line(f"%cT = arith.constant {T} : index")
    line("%nb1 = pto.dim %lens, 0 : !pto.tensor<?xi32>")
    line("%nb = arith.subi %nb1, %c1 : index")
    if rng.random() < 0.2:
        line('pto.loop "L_empty_before" %e0 = %c0 to %c2 step %c1 {')
        line("}")
    line('pto.loop "L_batch" %bi = %c0 to %nb step %c1 {')
    ind[0] += "  "
    line("%bn = arith.addi %bi, %c1 : index")
    line("%start = pto.read %lens[%bi] : !pto.tensor<?xi32>")
    line("%end = pto.read %lens[%bn] : !pto.tensor<?xi32>")
    line("%len = arith.subi %end, %start : index")
    line("%cnt = arith.ceildivsi %len, %cT : index")
    line('pto.loop "L_rows" %ti = %c0 to %cnt step %c1 {')
    ind[0] += "  "
    line("%off = arith.muli %ti, %cT : index")
    line("%row = arith.addi %start, %off : index")
    line("%rest = arith.subi %len, %off : index")
    line("%vl = arith.minsi %rest, %cT : index")
    # Loads that stay outside the extra nest (hoisting candidates otherwise).
    line(f"%vb = pto.view %b[0, 0] : {tb} -> {_tile((K, N), 'bf16')}")
    depth = rng.choice([0, 0, 1, 2, 3])
    trip_one = True
    for d in range(depth):
        trip = rng.choices(["%c1", "%c2", "%c0", "%bn"], weights=[4, 2, 1, 2])[0]
        trip_one = trip_one and trip == "%c1"
        if rng.random() < 0.3:
            line(f'pto.loop "L_empty{d}" %ee{d} = %c0 to {trip} step %c1 {{')
            line("}")
        line(f'pto.loop "L_nest{d}" %n{d} = %c0 to {trip} step %c1 {{')
        ind[0] += "  "
    full = _tile((T, N))
    carry = rng.random() < 0.3
    if carry:
        # A loop-carried accumulator (SK-01 style): the compute runs `trip`
        # times and sums into it, the first iteration through an scf.if.
        ctrip = rng.choices(["%c0", "%c1", "%c2"], weights=[1, 2, 3])[0]
        line(f"%init = pto.full 0.0 : {full}")
        line(f"%initv = pto.view %init[0, 0] valid [%vl, {N}] : {full} -> {full}")
        line(f'%acc = pto.loop "L_carry" %k = %c0 to {ctrip} step %c1 '
             f"iter_args(%accin = %initv) -> ({full}) {{")
        ind[0] += "  "
    line(f"%va = pto.view %a[%row, 0] valid [%vl, {K}] : {ta} -> {_tile((T, K), 'bf16')}")
    mm_tile = _cube_tile(rng, T, K, N)
    reorders = reorders or int(mm_tile.split("k = [")[1].split(",")[0]) < K
    cur = fresh()
    line(f"{cur} = pto.matmul %va, %vb {{cube_tile = {mm_tile}}} : "
         f"{_tile((T, K), 'bf16')}, {_tile((K, N), 'bf16')} -> {_tile((T, N))}")
    col = _tile((T, 1))
    scope_open = False
    scope_id = 0
    steps = rng.randint(1, 6)
    for _ in range(steps):
        if not scope_open and rng.random() < 0.15:
            # A scope around the next vector op (yielding its result).
            scope_open = True
        op = rng.choices(["add_x", "mul_s", "max_x", "exp", "sub_rowmax", "add_rowsum",
                          "round_bf16", "sub_self"], weights=[4, 3, 3, 3, 3, 3, 2, 1])[0]
        vt = _vec_tile(rng, T, N, reduce=op in ("sub_rowmax", "add_rowsum"))
        nxt = fresh()
        body = []
        if op == "add_x":
            vx = fresh("x")
            body.append(f"{vx} = pto.view %x[%row, 0] valid [%vl, {N}] : {tx} -> {full}")
            body.append(f"{nxt} = pto.add {cur}, {vx} {{vec_tile = {vt}}} : {full}, {full} -> {full}")
        elif op == "mul_s":
            s = fresh("s")
            body.append(f"{s} = arith.constant {rng.choice(['5.000000e-01', '-1.250000e-01', '3.000000e+00'])} : f32")
            body.append(f"{nxt} = pto.mul {cur}, {s} {{vec_tile = {vt}}} : {full}, f32 -> {full}")
        elif op == "max_x":
            vx = fresh("x")
            body.append(f"{vx} = pto.view %x[%row, 0] valid [%vl, {N}] : {tx} -> {full}")
            body.append(f"{nxt} = pto.max {cur}, {vx} {{vec_tile = {vt}}} : {full}, {full} -> {full}")
        elif op == "exp":
            s = fresh("s")
            t = fresh("t")
            body.append(f"{s} = arith.constant 1.000000e-01 : f32")
            body.append(f"{t} = pto.mul {cur}, {s} {{vec_tile = {vt}}} : {full}, f32 -> {full}")
            body.append(f"{nxt} = pto.exp {t} {{precision = {INTRINSIC}, vec_tile = {vt}}} : {full} -> {full}")
        elif op == "sub_rowmax":
            r = fresh("r")
            body.append(f"{r} = pto.amax {cur} dim = 1 keepdim {{vec_tile = {vt}}} : {full} -> {col}")
            body.append(f"{nxt} = pto.sub {cur}, {r} {{vec_tile = {vt}}} : {full}, {col} -> {full}")
        elif op == "add_rowsum":
            r = fresh("r")
            body.append(f"{r} = pto.sum {cur} dim = 1 keepdim {{vec_tile = {vt}}} : {full} -> {col}")
            body.append(f"{nxt} = pto.add {cur}, {r} {{vec_tile = {vt}}} : {full}, {col} -> {full}")
            dims = vt.split("[")[1].split("]")[0].split(", ")
            reorders = reorders or int(dims[1]) < N
        elif op == "round_bf16":
            h = fresh("h")
            body.append(f"{h} = pto.cast {cur} {{mode = {ROUND}, vec_tile = {vt}}} : {full} -> {_tile((T, N), 'bf16')}")
            body.append(f"{nxt} = pto.cast {h} {{vec_tile = {vt}}} : {_tile((T, N), 'bf16')} -> {full}")
            bf16_round = True
        else:  # sub_self: exact zeros (NaN where the value is not finite)
            body.append(f"{nxt} = pto.sub {cur}, {cur} {{vec_tile = {vt}}} : {full}, {full} -> {full}")
        if scope_open:
            res = fresh("y")
            line(f"{res} = pto.scope #pto.scope<id = {scope_id}> -> ({full}) {{")
            for b in body:
                line("  " + b)
            line(f"  pto.yield {nxt} : {full}")
            line("}")
            scope_id += 1
            scope_open = False
            nxt = res
        else:
            for b in body:
                line(b)
        cur = nxt
    if carry:
        first = fresh("f")
        nxt = fresh()
        line(f"{first} = pto.is_loop_begin %k")
        line(f"{nxt} = scf.if {first} -> ({full}) {{")
        line(f"  scf.yield {cur} : {full}")
        line("} else {")
        s2 = fresh()
        line(f"  {s2} = pto.add %accin, {cur} : {full}, {full} -> {full}")
        line(f"  scf.yield {s2} : {full}")
        line("}")
        line(f"pto.yield {nxt} : {full}")
        ind[0] = ind[0][:-2]
        line("}")
        cur = "%acc"
    line(f"pto.atomic_add {cur}, %out[%row, 0] : {full}, {tout}")
    for d in range(depth):
        ind[0] = ind[0][:-2]
        line("}")
    ind[0] = ind[0][:-2]
    line("}")
    ind[0] = ind[0][:-2]
    line("}")
    w("}")
    return Kernel("\n".join(L) + "\n", K, N, T, bf16_round, reorders)


def make_inputs(rng: random.Random, kernel: Kernel) -> dict:
    nprng = np.random.default_rng(rng.randrange(2**32))
    batch = rng.choices([0, 1, 2, 3, 5], weights=[1, 4, 4, 3, 2])[0]
    lengths = []
    for _ in range(batch):
        kind = rng.random()
        if kind < 0.2:
            lengths.append(0)
        elif kind < 0.4:
            lengths.append(1)
        elif kind < 0.6:
            lengths.append(kernel.T + rng.randint(0, 3))
        else:
            lengths.append(rng.randint(1, min(3 * kernel.T, 300)))
    lens = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    total = int(lens[-1])
    a = (nprng.standard_normal((total, kernel.K)) * 0.5).astype(np.float32)
    b = (nprng.standard_normal((kernel.K, kernel.N)) * 0.5).astype(np.float32)
    x = nprng.standard_normal((total, kernel.N)).astype(np.float32)
    out = np.zeros((total, kernel.N), dtype=np.float32)
    return {"a": a, "b": b, "x": x, "out": out, "lens": lens}


DTYPES = {"a": "bf16", "b": "bf16", "x": "fp32", "out": "fp32", "lens": "int32"}
NAMES = ["a", "b", "x", "out", "lens"]


@dataclass
class Outcome:
    ok: bool
    message: str = ""
    skipped: bool = False  # outside what the checked chain supports (said why)


def check_case(seed: int, directory: Path) -> Outcome:
    """Generates kernel `seed`, compiles it, runs both and compares."""
    rng = random.Random(seed)
    kernel = generate(rng, name=f"fz{seed}")
    directory.mkdir(parents=True, exist_ok=True)
    source = directory / "kernel.mlir"
    source.write_text(kernel.text)
    compiled = directory / "compiled.mlir"
    r = run_tool("pto-opt", source, "--verify-each", "--pto-tile-graph-pipeline", "-o", compiled)
    if r.returncode != 0:
        return Outcome(False, f"pto-opt --pto-tile-graph-pipeline failed (exit {r.returncode}):\n"
                              f"{r.stderr[-3000:]}")
    inputs = make_inputs(rng, kernel)
    try:
        before, _ = run_kernel(source, directory / "before", inputs, DTYPES, ["out"], names=NAMES)
        after, _ = run_kernel(compiled, directory / "after", inputs, DTYPES, ["out"], names=NAMES)
    except AssertionError as e:
        return Outcome(False, f"pto-run failed: {e}")
    b, a = before["out"].astype(np.float64), after["out"].astype(np.float64)
    if not np.array_equal(np.isfinite(b), np.isfinite(a)):
        return Outcome(False, "non-finite values differ between before and after")
    fin = np.isfinite(b)
    if not np.array_equal(np.where(fin, 0, b), np.where(fin, 0, a), equal_nan=True):
        return Outcome(False, "Inf/NaN values differ between before and after")
    scale = float(np.abs(b[fin]).max()) if fin.any() else 0.0
    if kernel.reorders or kernel.uses_bf16_round:
        rel = 2.0**-7 if kernel.uses_bf16_round else 2.0**-16
        err = float(np.abs(a[fin] - b[fin]).max()) if fin.any() else 0.0
        if err > rel * scale + 1e-30:
            return Outcome(False, f"outputs differ by {err:.3g} > {rel:.3g} x {scale:.3g}")
    else:
        # Only reorders of ops that do not change any FP operation: bitwise.
        if not np.array_equal(a, b, equal_nan=True):
            err = float(np.abs(a[fin] - b[fin]).max()) if fin.any() else float("nan")
            # Matmul pieces: the K loop may still be split by L1 blocks.
            if err > 2.0**-16 * scale:
                return Outcome(False, f"outputs differ (max {err:.3g}, scale {scale:.3g})")
    return Outcome(True)


def _compare(kernel: Kernel, ref: np.ndarray, got: np.ndarray, what: str) -> Outcome:
    """`got` against `ref` with the tolerance of the kernel's FP reorders."""
    b, a = ref.astype(np.float64), got.astype(np.float64)
    if not np.array_equal(np.isfinite(b), np.isfinite(a)):
        return Outcome(False, f"{what}: non-finite values differ")
    fin = np.isfinite(b)
    if not np.array_equal(np.where(fin, 0, b), np.where(fin, 0, a), equal_nan=True):
        return Outcome(False, f"{what}: Inf/NaN values differ")
    scale = float(np.abs(b[fin]).max()) if fin.any() else 0.0
    rel = 2.0**-7 if kernel.uses_bf16_round else 2.0**-16
    err = float(np.abs(a[fin] - b[fin]).max()) if fin.any() else 0.0
    if err > rel * scale + 1e-30:
        return Outcome(False, f"{what}: outputs differ by {err:.3g} > {rel:.3g} x {scale:.3g}")
    return Outcome(True)


def check_batch_cpp(seeds, directory: Path, flags=()) -> dict:
    """The differential check of the C++ chain: each kernel of the batch
    through `--pto-ascend-pipeline` and `pto-translate --pto-to-cpp`, all of
    them compiled into one program (each emitted file in its own namespace,
    one `main` dispatching on the kernel name: one compiler run per batch),
    run on the kernel's inputs; exit code and outputs must match `pto-run`
    on the program-level kernel (outputs to the FP reorder tolerance of
    check_case; the emulation accumulates matmuls in K order). Returns
    {seed: Outcome}."""
    import os
    import subprocess

    from pto_mlir import codegen
    from pto_mlir.golden import load_tensor, save_tensor

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    outcomes, cases = {}, []
    for seed in seeds:
        rng = random.Random(seed)
        kernel = generate(rng, name=f"fz{seed}")
        source = directory / f"fz{seed}.mlir"
        source.write_text(kernel.text)
        try:
            cpp = codegen.emit_cpp(source, directory / f"fz{seed}")
        except RuntimeError as e:
            # pto-lower-to-isa's documented limit (docs/SK01.md): a tile the
            # control program carries (loop-carried accumulator) has no GM
            # home. Refused with that diagnostic, it is not a failure.
            if "has no GM home" in str(e):
                outcomes[seed] = Outcome(True, "loop-carried tile: not lowered to C++",
                                         skipped=True)
            else:
                outcomes[seed] = Outcome(False, f"emission failed: {e}")
            continue
        cases.append((seed, kernel, source, cpp, make_inputs(rng, kernel)))
    if not cases:
        return outcomes
    # Every header the emitted files include comes first, so that their own
    # #includes inside the namespaces are no-ops.
    lines = ["#include <cmath>", "#include <cstdint>", "#include <cstring>",
             "#include <memory>", "#include <vector>", "#include <pto/pto-inst.hpp>",
             "#include <pto/runtime/pto_runtime.hpp>"]
    for seed, _, _, cpp, _ in cases:
        lines += [f"namespace fz{seed}_ns {{", f'#include "{cpp}"', "}"]
    lines += ["int main(int argc, char **argv) {",
              "  if (argc < 2) return 2;"]
    lines += [f'  if (!std::strcmp(argv[1], "fz{seed}")) return fz{seed}_ns::main(argc - 1, argv + 1);'
              for seed, *_ in cases]
    lines += ["  return 2;", "}"]
    batch = directory / "batch.cpp"
    batch.write_text("\n".join(lines) + "\n")
    try:
        exe = codegen.compile_cpp(batch, directory / "batch", flags=flags)
    except RuntimeError as e:
        for seed, *_ in cases:
            outcomes[seed] = Outcome(False, f"the batch does not compile: {e}")
        return outcomes
    # The program links its own runtime; a preloaded sanitizer runtime
    # (make test-asan-ci) is not for it.
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    for seed, kernel, source, _, inputs in cases:
        case_dir = directory / f"fz{seed}"
        indir, outdir = case_dir / "in", case_dir / "out"
        indir.mkdir(parents=True, exist_ok=True)
        outdir.mkdir(parents=True, exist_ok=True)
        for name in NAMES:
            save_tensor(indir / f"{name}.npy", inputs[name], DTYPES[name])
        ref = run_tool("pto-run", source, *[f"--input={n}={indir / f'{n}.npy'}" for n in NAMES],
                       "--output", f"out={case_dir / 'ref.npy'}")
        proc = subprocess.run([str(exe), f"fz{seed}", "--inputs", str(indir),
                               "--outputs", str(outdir)], capture_output=True, text=True,
                              env=env, timeout=600)
        if proc.returncode != ref.returncode:
            outcomes[seed] = Outcome(False, f"exit codes differ: pto-run {ref.returncode}, "
                                            f"emitted {proc.returncode}\n--- pto-run ---\n"
                                            f"{ref.stderr[-2000:]}\n--- emitted ---\n"
                                            f"{proc.stderr[-2000:]}")
            continue
        if ref.returncode != 0:
            outcomes[seed] = Outcome(True)
            continue
        outcomes[seed] = _compare(kernel, load_tensor(case_dir / "ref.npy", "fp32"),
                                  load_tensor(outdir / "out.npy", "fp32"), "emitted C++")
    return outcomes


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0, help="first case seed")
    parser.add_argument("--keep", type=Path, default=None,
                        help="directory for failing cases (default: a temp dir)")
    parser.add_argument("--print", action="store_true", help="print kernel SEED and exit")
    parser.add_argument("--cpp", type=int, default=0, metavar="BATCH",
                        help="instead: the emitted C++ of each kernel against pto-run, "
                             "BATCH kernels per compiled program")
    args = parser.parse_args(argv)
    if args.print:
        print(generate(random.Random(args.seed), name=f"fz{args.seed}").text, end="")
        return 0
    keep = args.keep or Path(tempfile.mkdtemp(prefix="pto-fuzzgen-"))
    failures = 0
    if args.cpp:
        skipped = 0
        seeds = list(range(args.seed, args.seed + args.cases))
        for start in range(0, len(seeds), args.cpp):
            batch_dir = keep / f"cpp{seeds[start]}"
            outcomes = check_batch_cpp(seeds[start:start + args.cpp], batch_dir)
            for seed, outcome in outcomes.items():
                skipped += outcome.skipped
                if not outcome.ok:
                    failures += 1
                    print(f"fuzzgen: C++ case {seed} FAILED (in {batch_dir}; `python3 -m "
                          f"pto_mlir.fuzzgen --cpp 1 --seed {seed} --cases 1`):\n"
                          f"{outcome.message}", file=sys.stderr)
            if not any(not o.ok for o in outcomes.values()):
                shutil.rmtree(batch_dir, ignore_errors=True)
        print(f"fuzzgen: emitted C++ {args.cases - failures - skipped} passed, {failures} failed, "
              f"{skipped} outside the C++ chain (loop-carried tiles)")
        return 1 if failures else 0
    for seed in range(args.seed, args.seed + args.cases):
        case_dir = keep / f"case{seed}"
        outcome = check_case(seed, case_dir)
        if outcome.ok:
            shutil.rmtree(case_dir, ignore_errors=True)
        else:
            failures += 1
            print(f"fuzzgen: case {seed} FAILED (kept in {case_dir}; "
                  f"`python3 -m pto_mlir.fuzzgen --seed {seed} --cases 1`):\n{outcome.message}",
                  file=sys.stderr)
    print(f"fuzzgen: {args.cases - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
