"""SK-16 (FlashAttention backward, varlen MHA) test cases, inputs and golden.

Follows docs/SK16.md#tests: the case matrix, input generation with a real
FP32 forward pass for l/m/o (#inputs), the FP32 golden with BF16-rounded P and dS
(#golden), the tolerance (#tolerance) and the FLOP count (#flop-count). ``fp64_backward`` is an
independent FP64 reference used only to validate the golden itself.

The FP16 variant (``dtype="fp16"``, ``sk16_ir --dtype fp16``) is the same
kernel with FP16 q, k, v, o, dO and P, dS rounded to FP16; its golden rounds
where that kernel rounds and its tolerance scales with FP16's machine epsilon
(``tolerance``). It is the variant that also runs on the real pto-isa CPU
simulator, which has no BF16 (``formats.py``).

CLI (run from the ``python/`` directory or with it on PYTHONPATH)::

    python3 -m pto_mlir.golden.sk16 --list
    python3 -m pto_mlir.golden.sk16 --case test_01 --out DIR
    python3 -m pto_mlir.golden.sk16 --q-seqlens 3,5 --kv-seqlens 4,2 --heads 2 --head-dim 32 --out DIR
    python3 -m pto_mlir.golden.sk16 --compare DIR

``--out`` writes the 12 kernel inputs (``<name>.npy``, see ``npy.py`` for the
BF16-as-uint16 convention), ``gold_dq/dk/dv.npy`` and a ``case.json`` manifest.
A tool under test reads the inputs and overwrites ``dq/dk/dv.npy`` (host-zeroed
FP32 outputs, accumulated in place); ``--compare`` then checks them.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from dataclasses import dataclass

import numpy as np

from .bf16 import bf16_bits_to_f32, round_bf16
from .formats import BF16, HalfFormat, format_of, get_format
from .npy import load_tensor, save_tensor

SPEC_RTOL = 2.0**-7  # docs/SK16.md#tolerance ("BF16 machine epsilon")
SPEC_ATOL = 1e-4

# Kernel argument order (docs/SK16.md#signature) and logical dtypes.
INPUT_NAMES = ("q", "k", "v", "o", "do", "l_input", "m_input", "dq", "dk", "dv", "actual_q", "actual_kv")
OUTPUT_NAMES = ("dq", "dk", "dv")
DTYPES = {
    "q": "bf16", "k": "bf16", "v": "bf16", "o": "bf16", "do": "bf16",
    "l_input": "fp32", "m_input": "fp32", "dq": "fp32", "dk": "fp32", "dv": "fp32",
    "actual_q": "int32", "actual_kv": "int32",
}
BF16_NAMES = tuple(n for n in INPUT_NAMES if DTYPES[n] == "bf16")


def dtypes(dtype: str = "bf16") -> dict:
    """DTYPES with the 16-bit inputs (q, k, v, o, dO) in `dtype` ("bf16" or "fp16")."""
    fmt = get_format(dtype)
    return {n: fmt.name if t == "bf16" else t for n, t in DTYPES.items()}


def tolerance(fmt: HalfFormat = BF16) -> tuple:
    """(rtol, atol) of docs/SK16.md#tolerance for the kernel's 16-bit format:
    rtol is its machine epsilon, atol the spec's 1e-4 scaled alike (BF16: the
    spec's own values)."""
    return fmt.eps, SPEC_ATOL * fmt.eps / BF16.eps


@dataclass(frozen=True)
class Sk16Case:
    """One SK-16 problem: per-batch Q and KV lengths, heads N, head dim D."""

    name: str
    q_seqlens: tuple
    kv_seqlens: tuple
    N: int
    D: int
    benchmark_only: bool = False  # too large for routine test runs (test_02)

    def __post_init__(self):
        q = tuple(int(s) for s in self.q_seqlens)
        kv = tuple(int(s) for s in self.kv_seqlens)
        if len(q) != len(kv) or not q:
            raise ValueError(f"{self.name}: need equally many (>=1) q and kv lengths, got {q} / {kv}")
        if min(q + kv) < 0 or self.N < 1 or self.D < 1:
            raise ValueError(f"{self.name}: lengths must be >= 0 and N, D >= 1")
        object.__setattr__(self, "q_seqlens", q)
        object.__setattr__(self, "kv_seqlens", kv)

    @property
    def B(self) -> int:
        return len(self.q_seqlens)

    @property
    def total_q(self) -> int:
        return sum(self.q_seqlens)

    @property
    def total_kv(self) -> int:
        return sum(self.kv_seqlens)


def _fixed(name, B, N, s1, s2, D, **kw):
    return Sk16Case(name, [s1] * B, [s2] * B, N, D, **kw)


# docs/SK16.md#tests. Every case is run by this project regardless of the upstream SoC markers.
CASES = {c.name: c for c in (
    _fixed("test_01", 8, 8, 320, 320, 64),
    _fixed("test_02", 1, 8, 4096, 4096, 128, benchmark_only=True),
    _fixed("test_03", 8, 16, 32, 32, 32),
    _fixed("test_04", 8, 16, 64, 64, 32),
    _fixed("test_05", 8, 8, 32, 32, 64),
    _fixed("test_06", 8, 4, 64, 64, 128),
    Sk16Case("test_07", [64, 128, 192, 256], [64, 128, 192, 256], 8, 64),
    Sk16Case("test_08", [384, 512], [384, 512], 8, 64),
    Sk16Case("test_09", [128, 64, 192], [96, 256, 128], 8, 64),  # cross-attention (8.1)
)}


def get_case(name: str) -> Sk16Case:
    try:
        return CASES[name]
    except KeyError:
        raise KeyError(f"unknown SK-16 case {name!r}; known: {', '.join(CASES)}") from None


def scale_of(D: int) -> np.float32:
    """``1/sqrt(D)`` as a Python double rounded once to FP32 (docs/SK16.md#scale-and-rounding)."""
    return np.float32(1.0 / math.sqrt(D))


def flops(case: Sk16Case) -> int:
    """5 matmuls x 2*s1*s2*D per (b, h), recomputed QK^T included (docs/SK16.md#flop-count)."""
    return sum(10 * s1 * s2 * case.D * case.N for s1, s2 in zip(case.q_seqlens, case.kv_seqlens))


def cu_offsets(seqlens) -> np.ndarray:
    """Cumulative INT32 offsets ``[0, s_0, s_0+s_1, ...]`` of length B+1."""
    return np.concatenate([[0], np.cumsum(seqlens, dtype=np.int64)]).astype(np.int32)


def _f32(a) -> np.ndarray:
    """BF16 bits or FP16 -> exact float32; float32 input is taken as already 16-bit-valued."""
    a = np.asarray(a)
    return bf16_bits_to_f32(a) if a.dtype == np.uint16 else a.astype(np.float32, copy=False)


def widen(inputs: dict) -> dict:
    """Exact float32 views of the BF16 tensors of an input dict (q, k, v, o, do)."""
    return {n: _f32(inputs[n]) for n in BF16_NAMES}


def _segments(actual_q, actual_kv):
    """Yield (q_start, s1, kv_start, s2) per batch element."""
    aq = np.asarray(actual_q, dtype=np.int64)
    akv = np.asarray(actual_kv, dtype=np.int64)
    if aq.shape != akv.shape or aq.ndim != 1 or aq.size < 2:
        raise ValueError("actual_q/actual_kv must be 1-D of equal length B+1 >= 2")
    for b in range(aq.size - 1):
        yield int(aq[b]), int(aq[b + 1] - aq[b]), int(akv[b]), int(akv[b + 1] - akv[b])


def make_inputs(case: Sk16Case, seed: int = 42, amplitude: float = 0.1,
                dtype: str = "bf16") -> dict:
    """Generate the 12 kernel inputs of docs/SK16.md#inputs (dict keyed as ``INPUT_NAMES``).

    q, k, v, dO = bf16_rne(randn_f32 * amplitude), drawn in that order from
    ``np.random.default_rng(seed)`` (the NPU stream cannot be reproduced on a
    CPU). l, m and o come from a real FP32 forward pass, because the kernel
    consumes them (rule R3): m = rowmax of the *scaled* scores and l = plain
    rowsum of exp(scores - m), not the log-sum-exp (docs/SK16.md#m-and-l). Rows of a
    batch element with no keys keep l = m = o = 0; the kernel never reads them.
    ``amplitude`` other than 0.1 is for stress tests only. ``dtype="fp16"``
    draws the same stream and rounds to FP16 instead (float16 arrays).
    """
    N, D, tq, tkv = case.N, case.D, case.total_q, case.total_kv
    fmt = get_format(dtype)
    rng = np.random.default_rng(seed)
    amp = np.float32(amplitude)

    def draw(rows):
        return fmt.encode(rng.standard_normal((rows, N, D), dtype=np.float32) * amp)

    q, k, v, do = draw(tq), draw(tkv), draw(tkv), draw(tq)
    actual_q, actual_kv = cu_offsets(case.q_seqlens), cu_offsets(case.kv_seqlens)

    q32, k32, v32 = fmt.widen(q), fmt.widen(k), fmt.widen(v)
    scale = scale_of(D)
    l = np.zeros((tq, N, 1), np.float32)
    m = np.zeros((tq, N, 1), np.float32)
    o = np.zeros((tq, N, D), fmt.storage)
    for qs, s1, ks, s2 in _segments(actual_q, actual_kv):
        if s1 == 0 or s2 == 0:
            continue
        for h in range(N):
            scores = (q32[qs:qs + s1, h] @ k32[ks:ks + s2, h].T) * scale
            mh = scores.max(axis=1, keepdims=True)
            p = np.exp(scores - mh)
            lh = p.sum(axis=1, keepdims=True)
            m[qs:qs + s1, h] = mh
            l[qs:qs + s1, h] = lh
            o[qs:qs + s1, h] = fmt.encode((p / lh) @ v32[ks:ks + s2, h])

    return {
        "q": q, "k": k, "v": v, "o": o, "do": do, "l_input": l, "m_input": m,
        "dq": np.zeros((tq, N * D), np.float32),
        "dk": np.zeros((tkv, N * D), np.float32),
        "dv": np.zeros((tkv, N * D), np.float32),
        "actual_q": actual_q, "actual_kv": actual_kv,
    }


def _check_layout(t: dict, N: int, D: int):
    tq, tkv = t["q"].shape[0], t["k"].shape[0]
    for name, rows in (("q", tq), ("o", tq), ("do", tq), ("k", tkv), ("v", tkv)):
        if t[name].shape != (rows, N, D):
            raise ValueError(f"{name}: expected shape {(rows, N, D)}, got {t[name].shape}")
    return tq, tkv


def golden_backward(inputs: dict, N: int, D: int) -> dict:
    """The SK-16 golden (docs/SK16.md#golden): FP32 per (b, h), P recomputed by softmax.

    P and dS are rounded to BF16 (RNE) before the second-stage matmuls, as the
    cube consumes them; dS is rounded *unscaled* and dQ/dK are scaled after the
    matmul in FP32, which matters for bit-level agreement (docs/SK16.md#scale-and-rounding).
    FP16 inputs (float16 arrays) round P and dS to FP16 instead.
    Returns float32 ``dq`` [total_q, N*D], ``dk``/``dv`` [total_kv, N*D].
    """
    fmt = format_of(inputs["q"])
    rounded = round_bf16 if fmt is BF16 else fmt.round
    t = widen(inputs)
    tq, tkv = _check_layout(t, N, D)
    q, k, v, o, do = t["q"], t["k"], t["v"], t["o"], t["do"]
    scale = scale_of(D)
    dq = np.zeros((tq, N * D), np.float32)
    dk = np.zeros((tkv, N * D), np.float32)
    dv = np.zeros((tkv, N * D), np.float32)
    for qs, s1, ks, s2 in _segments(inputs["actual_q"], inputs["actual_kv"]):
        if s1 == 0 or s2 == 0:
            continue
        rq, rk = slice(qs, qs + s1), slice(ks, ks + s2)
        for h in range(N):
            cols = slice(h * D, (h + 1) * D)
            qh, kh, vh, oh, doh = q[rq, h], k[rk, h], v[rk, h], o[rq, h], do[rq, h]
            scores = (qh @ kh.T) * scale
            e = np.exp(scores - scores.max(axis=1, keepdims=True))
            P = e / e.sum(axis=1, keepdims=True)
            dvec = (oh * doh).sum(axis=1, keepdims=True)
            dP = doh @ vh.T
            dS = P * (dP - dvec)
            dS_h, P_h = rounded(dS), rounded(P)
            dk[rk, cols] = (dS_h.T @ qh) * scale
            dv[rk, cols] = P_h.T @ doh
            dq[rq, cols] = (dS_h @ kh) * scale
    return {"dq": dq, "dk": dk, "dv": dv}


def fp64_backward(inputs: dict, N: int, D: int) -> dict:
    """Independent FP64 attention backward, for validating the golden.

    Same BF16-valued q, k, v, o, dO (float arrays are taken as given), but no
    BF16 rounding of P or dS, an FP64 scale, log-sum-exp softmax and all heads
    of a batch element at once. Returns float64 dq, dk, dv in the output layout.
    """
    t = {n: _f32(inputs[n]).astype(np.float64) for n in BF16_NAMES}
    tq, tkv = _check_layout(t, N, D)
    scale = 1.0 / math.sqrt(D)
    dq = np.zeros((tq, N, D))
    dk = np.zeros((tkv, N, D))
    dv = np.zeros((tkv, N, D))
    for qs, s1, ks, s2 in _segments(inputs["actual_q"], inputs["actual_kv"]):
        if s1 == 0 or s2 == 0:
            continue
        q, o, do = (t[n][qs:qs + s1] for n in ("q", "o", "do"))
        k, v = (t[n][ks:ks + s2] for n in ("k", "v"))
        x = scale * np.einsum("ihd,jhd->hij", q, k, optimize=True)
        mx = x.max(axis=2, keepdims=True)
        lse = mx + np.log(np.exp(x - mx).sum(axis=2, keepdims=True))
        P = np.exp(x - lse)
        dP = np.einsum("ihd,jhd->hij", do, v, optimize=True)
        dS = P * (dP - np.einsum("ihd,ihd->hi", o, do)[:, :, None])
        dq[qs:qs + s1] = scale * np.einsum("hij,jhd->ihd", dS, k, optimize=True)
        dk[ks:ks + s2] = scale * np.einsum("hij,ihd->jhd", dS, q, optimize=True)
        dv[ks:ks + s2] = np.einsum("hij,ihd->jhd", P, do, optimize=True)
    return {"dq": dq.reshape(tq, N * D), "dk": dk.reshape(tkv, N * D), "dv": dv.reshape(tkv, N * D)}


def check_close(out, gold, rtol: float = SPEC_RTOL, atol: float = SPEC_ATOL):
    """Elementwise ``|out - gold| <= atol + rtol*|gold|`` (docs/SK16.md#tolerance).

    Returns ``(ok, worst_index, max_violation)`` where violation is
    ``|out - gold| - (atol + rtol*|gold|)`` (ok iff <= 0; NaN counts as +inf).
    For empty tensors: ``(True, None, -inf)``.
    """
    out = np.asarray(out, dtype=np.float64)
    gold = np.asarray(gold, dtype=np.float64)
    if out.shape != gold.shape:
        raise ValueError(f"shape mismatch: out {out.shape} vs gold {gold.shape}")
    if out.size == 0:
        return True, None, -math.inf
    viol = np.abs(out - gold) - (atol + rtol * np.abs(gold))
    viol = np.where(np.isnan(viol), np.inf, viol)
    idx = np.unravel_index(int(np.argmax(viol)), viol.shape)
    worst = float(viol[idx])
    return worst <= 0.0, tuple(int(i) for i in idx), worst


def assert_close(out, gold, name: str = "tensor", rtol: float = SPEC_RTOL, atol: float = SPEC_ATOL):
    """``check_close`` that raises AssertionError describing the worst element."""
    ok, idx, worst = check_close(out, gold, rtol, atol)
    if not ok:
        out, gold = np.asarray(out, np.float64), np.asarray(gold, np.float64)
        bad = int(np.count_nonzero(~(np.abs(out - gold) <= atol + rtol * np.abs(gold))))
        raise AssertionError(
            f"{name}: {bad}/{gold.size} elements outside |out-gold| <= {atol:g} + {rtol:g}*|gold|; "
            f"worst at {idx}: out={out[idx]!r} gold={gold[idx]!r} exceeds the bound by {worst:.3g}")


def assert_matches_golden(out: dict, gold: dict, names=OUTPUT_NAMES, fmt: HalfFormat = BF16):
    """The tests' check of SK-16 outputs: the spec tolerance (``assert_close``)
    and max|err| <= eps max|gold| per output (eps = 2^-7 for BF16), which also
    binds the small gradients the spec's atol alone would let through
    (docs/Interpreter.md). `fmt` is the kernel's 16-bit format (``tolerance``)."""
    rtol, atol = tolerance(fmt)
    for name in names:
        result = np.asarray(out[name]).reshape(np.shape(gold[name]))
        assert_close(result, gold[name], name, rtol, atol)
        if result.size == 0:
            continue
        err = float(np.abs(result.astype(np.float64) - gold[name]).max())
        bound = fmt.eps * float(np.abs(gold[name]).max())
        assert err <= bound, f"{name}: max|err| {err:.3g} > {fmt.eps:g} max|gold| = {bound:.3g}"


def write_case(case: Sk16Case, out_dir: str, seed: int = 42, dtype: str = "bf16") -> dict:
    """Write inputs, gold_dq/dk/dv and case.json into ``out_dir``; return the manifest."""
    os.makedirs(out_dir, exist_ok=True)
    inputs = make_inputs(case, seed, dtype=dtype)
    gold = golden_backward(inputs, case.N, case.D)
    types = dtypes(dtype)
    rtol, atol = tolerance(get_format(dtype))
    tensors = {}
    for name in INPUT_NAMES:
        save_tensor(os.path.join(out_dir, name + ".npy"), inputs[name], types[name])
        tensors[name] = {"file": name + ".npy", "dtype": types[name], "shape": list(inputs[name].shape)}
    for name in OUTPUT_NAMES:
        save_tensor(os.path.join(out_dir, f"gold_{name}.npy"), gold[name], "fp32")
        tensors["gold_" + name] = {"file": f"gold_{name}.npy", "dtype": "fp32", "shape": list(gold[name].shape)}
    manifest = {
        "kernel": "sk16", "name": case.name, "seed": seed,
        "B": case.B, "N": case.N, "D": case.D,
        "q_seqlens": list(case.q_seqlens), "kv_seqlens": list(case.kv_seqlens),
        "total_q": case.total_q, "total_kv": case.total_kv,
        "scale": float(scale_of(case.D)), "flops": flops(case),
        "dtype": dtype, "rtol": rtol, "atol": atol,
        "argument_order": list(INPUT_NAMES), "tensors": tensors,
    }
    with open(os.path.join(out_dir, "case.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    return manifest


def compare_dir(out_dir: str, gold_dir: str | None = None, rtol: float = SPEC_RTOL,
                atol: float = SPEC_ATOL, stream=sys.stdout) -> bool:
    """Check ``dq/dk/dv.npy`` against ``gold_*.npy``; print one verdict line each."""
    gold_dir = gold_dir or out_dir
    all_ok = True
    for name in OUTPUT_NAMES:
        try:
            gold = load_tensor(os.path.join(gold_dir, f"gold_{name}.npy"), "fp32")
            out = load_tensor(os.path.join(out_dir, f"{name}.npy"), "fp32")
            if out.size != gold.size:
                raise ValueError(f"size {out.size} != gold size {gold.size}")
            out = out.reshape(gold.shape)
        except (OSError, ValueError, TypeError) as e:
            print(f"{name}: FAIL ({e})", file=stream)
            all_ok = False
            continue
        ok, idx, worst = check_close(out, gold, rtol, atol)
        err = np.abs(out.astype(np.float64) - gold)
        gmax = float(np.abs(gold).max()) if gold.size else 0.0
        rel = float(err.max()) / gmax if gold.size and gmax > 0 else 0.0
        where = "" if idx is None else f" worst {idx}: out={out[idx]:.6g} gold={gold[idx]:.6g} viol={worst:.3g};"
        print(f"{name}: {'PASS' if ok else 'FAIL'} (rtol={rtol:g} atol={atol:g};{where} "
              f"max|err|={float(err.max()) if err.size else 0.0:.3g} max|gold|={gmax:.3g} "
              f"norm-rel={rel:.3g})", file=stream)
        all_ok &= ok
    return all_ok


def _manifest_tolerance(gold_dir: str) -> tuple:
    """(rtol, atol) recorded in gold_dir/case.json (an FP16 case's are tighter),
    else the spec's."""
    try:
        with open(os.path.join(gold_dir, "case.json")) as f:
            m = json.load(f)
        return float(m["rtol"]), float(m["atol"])
    except (OSError, ValueError, KeyError, TypeError):
        return SPEC_RTOL, SPEC_ATOL


def _int_list(text: str) -> list:
    return [int(s) for s in text.split(",") if s.strip()]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m pto_mlir.golden.sk16", description=__doc__.split("\n\n")[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--list", action="store_true", help="list the built-in cases")
    mode.add_argument("--out", metavar="DIR", help="write inputs, gold_*.npy and case.json into DIR")
    mode.add_argument("--compare", metavar="DIR", help="check DIR/{dq,dk,dv}.npy against the gold")
    ap.add_argument("--case", help="built-in case name (see --list)")
    ap.add_argument("--q-seqlens", type=_int_list, help="custom case: comma-separated Q lengths")
    ap.add_argument("--kv-seqlens", type=_int_list, help="custom case: KV lengths (default: the Q lengths)")
    ap.add_argument("--heads", type=int, help="custom case: N")
    ap.add_argument("--head-dim", type=int, help="custom case: D")
    ap.add_argument("--name", default="custom", help="custom case name")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--dtype", choices=["bf16", "fp16"], default="bf16",
                    help="--out: the 16-bit format of q, k, v, o, dO (and of P, dS in the golden)")
    ap.add_argument("--gold", metavar="DIR", help="--compare: directory of gold_*.npy (default: same DIR)")
    ap.add_argument("--rtol", type=float, help="default: case.json's, else the spec's")
    ap.add_argument("--atol", type=float, help="default: case.json's, else the spec's")
    a = ap.parse_args(argv)

    if a.list:
        for c in CASES.values():
            s1 = c.q_seqlens if len(set(c.q_seqlens)) > 1 else c.q_seqlens[0]
            s2 = c.kv_seqlens if len(set(c.kv_seqlens)) > 1 else c.kv_seqlens[0]
            print(f"{c.name}  B={c.B} N={c.N} s1={s1} s2={s2} D={c.D} total_q={c.total_q} "
                  f"total_kv={c.total_kv} GFLOP={flops(c) / 1e9:.4g}{'  [benchmark only]' if c.benchmark_only else ''}")
        return 0
    if a.compare:
        rtol, atol = _manifest_tolerance(a.gold or a.compare)
        rtol = a.rtol if a.rtol is not None else rtol
        atol = a.atol if a.atol is not None else atol
        return 0 if compare_dir(a.compare, a.gold, rtol, atol) else 1

    custom = (a.q_seqlens, a.heads, a.head_dim)
    if a.case and any(x is not None for x in custom + (a.kv_seqlens,)):
        ap.error("--case and the custom-case options are exclusive")
    if a.case:
        try:
            case = get_case(a.case)
        except KeyError as e:
            ap.error(str(e.args[0]))
    elif all(x is not None for x in custom):
        try:
            case = Sk16Case(a.name, a.q_seqlens, a.kv_seqlens or a.q_seqlens, a.heads, a.head_dim)
        except ValueError as e:
            ap.error(str(e))
    else:
        ap.error("--out needs --case NAME or all of --q-seqlens, --heads, --head-dim")
    m = write_case(case, a.out, a.seed, a.dtype)
    print(f"wrote {case.name} (B={m['B']} N={m['N']} D={m['D']} total_q={m['total_q']} "
          f"total_kv={m['total_kv']} seed={a.seed}) to {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
