"""SK-01 (online FlashAttention forward, varlen MHA) inputs and golden.

SK-01 produces SK-16's ``o``, ``l`` and ``m`` (docs/SK01.md). Inputs are SK-16's
(``sk16.make_inputs``: q, k, v drawn in BF16 with the same seeded stream, so a
forward and a backward run on the same seed see the same q, k, v, and the
cumulative offsets), under SK-01's argument names (docs/SK01.md#the-program):

    q, k, v            [total, N, D] BF16 (K and V with total_kv rows)
    output             [total_q, N*D] BF16   (written by the kernel)
    l_output, m_output [total_q, N]   FP32   (written by the kernel)
    cu_seqlens_q/k     [B+1] INT32 cumulative offsets

The golden is the FP32 forward pass of docs/SK16.md#inputs (l, m, o), per (b, h):
``scores = f32(q) f32(k)^T * scale``, ``m = rowmax(scores)``,
``p = exp(scores - m)``, ``l = rowsum(p)``, ``o = bf16_rne((p / l) f32(v))``.
It is bit-identical to the l/m/o that ``sk16.make_inputs`` feeds SK-16.

Tolerances (docs/SK01.md): ``l`` and ``m`` are FP32 results of the same
formulas evaluated in a different order and get tight tolerances. ``o`` gets
the SK-16 spec tolerance (rtol 2^-7, atol 1e-4, compared as FP32) widened by
one term the golden does not model: the kernel multiplies V by P rounded to
BF16 (the cube operand; normalised P on the single-kv-tile path, unnormalised
p on the online path, docs/SK16.md#other-traps), which moves o by at most
``2^-8 * sum_j P_ij |v_jd|`` (``p_rounding_bound``). Without that term the
single-tile path fails the plain spec tolerance where s2 is small (test_03 and
test_05, s2 = 32: P ~ 1/32 sits at a power of two, where BF16 rounding is
coarsest, and o ~ 1e-3 is a cancelling sum). ``golden_forward(round_p=True)``
rounds P to BF16 before P V, as the reference test's golden does; the
single-kv-tile path matches it within the plain spec tolerance.

The FP16 variant (``dtype="fp16"``, ``sk01_ir --dtype fp16``) stores q, k, v
and the output in FP16 and rounds P and o to FP16; its golden rounds there, and
o's tolerance and ``p_rounding_bound`` scale with FP16's epsilon
(``tolerances``).

CLI (run from ``python/``)::

    python3 -m pto_mlir.golden.sk01 --case test_01 --out DIR
    python3 -m pto_mlir.golden.sk01 --compare DIR
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys

import numpy as np

from . import sk16
from .formats import BF16, HalfFormat, format_of, get_format
from .npy import load_tensor, save_tensor
from .sk16 import CASES, Sk16Case, get_case, scale_of

# Kernel argument order (docs/SK01.md#the-program) and logical dtypes.
INPUT_NAMES = ("q", "k", "v", "output", "l_output", "m_output", "cu_seqlens_q", "cu_seqlens_k")
OUTPUT_NAMES = ("output", "l_output", "m_output")
DTYPES = {
    "q": "bf16", "k": "bf16", "v": "bf16", "output": "bf16",
    "l_output": "fp32", "m_output": "fp32", "cu_seqlens_q": "int32", "cu_seqlens_k": "int32",
}

# o: the SK-16 spec tolerance (BF16 machine epsilon; docs/SK16.md#tolerance), plus
# p_rounding_bound (see the module docstring).
O_RTOL, O_ATOL = sk16.SPEC_RTOL, sk16.SPEC_ATOL
# l and m (u = 2^-24, the FP32 unit roundoff):
#  * m: a row max and a max of maxima are exact, so m differs only through the
#    scores, i.e. the order of the D-term dot products (and one rounding of the
#    scale multiply on each side, covered by M_RTOL = 16 u):
#    |dm| <= gamma_D * scale * max_j sum_d |q_d k_jd| (``m_error_bound``,
#    gamma_D = D u / (1 - D u)), at most 8.5e-7 over the case matrix (test_06);
#    M_ATOL = 1e-6 covers it (the tests check the premise).
#  * l: l >= 1 (the max term is exp(0) = 1) and all terms are positive, so the
#    sums are well conditioned: the kernel's sequential sum over a kv tile
#    contributes <= (kv_tile - 1) u, each online rescale l_new = a li + b lij
#    about 4 u (two exps, two products, an add), exp itself ~2 u per term on
#    each side, the golden's pairwise sum <= log2(s2) u, and the scores'
#    differences exp(|ds| + |dm|) - 1 < 30 u. For s2 <= 512 the a-priori total is
#    below 700 u < 2^-14; observed: <= 22 u (a single 512-key tile).
L_RTOL, L_ATOL = 2.0**-14, 0.0
M_RTOL, M_ATOL = 2.0**-20, 1e-6

TOLERANCES = {"output": (O_RTOL, O_ATOL), "l_output": (L_RTOL, L_ATOL), "m_output": (M_RTOL, M_ATOL)}


def tolerances(fmt: HalfFormat = BF16) -> dict:
    """TOLERANCES for the kernel's 16-bit format: o's follow sk16.tolerance
    (FP16: rtol 2^-10); l and m are FP32 results either way."""
    return {**TOLERANCES, "output": sk16.tolerance(fmt)}


def dtypes(dtype: str = "bf16") -> dict:
    """DTYPES with q, k, v and the output in `dtype` ("bf16" or "fp16")."""
    fmt = get_format(dtype)
    return {n: fmt.name if t == "bf16" else t for n, t in DTYPES.items()}


__all__ = [
    "CASES", "Sk16Case", "get_case", "INPUT_NAMES", "OUTPUT_NAMES", "DTYPES", "TOLERANCES",
    "O_RTOL", "O_ATOL", "L_RTOL", "L_ATOL", "M_RTOL", "M_ATOL", "make_inputs", "golden_forward",
    "fp64_forward", "p_rounding_bound", "m_error_bound", "check_outputs", "written_rows",
    "to_sk16_inputs", "flops", "write_case", "compare_dir", "tolerances", "dtypes",
]


def flops(case: Sk16Case) -> int:
    """2 matmuls x 2*s1*s2*D per (b, h): the forward convention 4*s1*s2*D (docs/SK16.md#flop-count)."""
    return sum(4 * s1 * s2 * case.D * case.N for s1, s2 in zip(case.q_seqlens, case.kv_seqlens))


def make_inputs(case: Sk16Case, seed: int = 42, amplitude: float = 0.1, fill: float = 0.0,
                dtype: str = "bf16") -> dict:
    """The 8 SK-01 kernel arguments (dict keyed as ``INPUT_NAMES``).

    q, k, v and the offsets are exactly those of ``sk16.make_inputs(case, seed,
    amplitude)``. The outputs start filled with ``fill`` (BF16-rounded for
    ``output``); pass NaN to detect rows the kernel does not write.
    ``dtype="fp16"``: q, k, v and the output in FP16 (float16 arrays).
    """
    fmt = get_format(dtype)
    src = sk16.make_inputs(case, seed, amplitude, dtype)
    tq, N, D = case.total_q, case.N, case.D
    return {
        "q": src["q"], "k": src["k"], "v": src["v"],
        "output": fmt.encode(np.full((tq, N * D), fill, np.float32)),
        "l_output": np.full((tq, N), fill, np.float32),
        "m_output": np.full((tq, N), fill, np.float32),
        "cu_seqlens_q": src["actual_q"], "cu_seqlens_k": src["actual_kv"],
    }


def _segments(inputs: dict):
    return sk16._segments(inputs["cu_seqlens_q"], inputs["cu_seqlens_k"])


def _per_head(inputs: dict, N: int, D: int):
    """Yield (rows, kv_rows, h, q_h, k_h, v_h) float32 slices per (b, h) with s1, s2 > 0."""
    fmt = format_of(inputs["q"])
    q32, k32, v32 = (fmt.widen(inputs[n]) for n in ("q", "k", "v"))
    for name, t in (("q", q32), ("k", k32), ("v", v32)):
        if t.ndim != 3 or t.shape[1:] != (N, D):
            raise ValueError(f"{name}: expected shape (rows, {N}, {D}), got {t.shape}")
    for qs, s1, ks, s2 in _segments(inputs):
        if s1 == 0 or s2 == 0:
            continue
        rq, rk = slice(qs, qs + s1), slice(ks, ks + s2)
        for h in range(N):
            yield rq, h, q32[rq, h], k32[rk, h], v32[rk, h]


def _softmax_parts(qh, kh, scale):
    """scores * scale, m, p = exp(scores - m), l: the golden's FP32 steps."""
    scores = (qh @ kh.T) * scale
    mh = scores.max(axis=1, keepdims=True)
    p = np.exp(scores - mh)
    lh = p.sum(axis=1, keepdims=True)
    return mh, p, lh


def golden_forward(inputs: dict, N: int, D: int, round_p: bool = False) -> dict:
    """The SK-01 golden: FP32 per (b, h), one softmax over all keys.

    Returns float32 ``output`` [total_q, N*D] (BF16-valued), ``l_output`` and
    ``m_output`` [total_q, N]. Rows of a batch element with no keys stay 0 (the
    kernel does not write them; see ``written_rows``). With the default
    ``round_p=False`` the operations are those of ``sk16.make_inputs``, so the
    results are bit-identical to the l/m/o it feeds SK-16. ``round_p=True``
    rounds P = p / l to BF16 (RNE) before P V, as the cube consumes it (the
    golden of pypto-gym's forward test, and the kernel's single-kv-tile path).
    FP16 inputs (float16 arrays) round P and o to FP16 instead.
    """
    fmt = format_of(inputs["q"])
    tq = len(inputs["q"])
    scale = scale_of(D)
    o = np.zeros((tq, N, D), np.float32)
    l = np.zeros((tq, N), np.float32)
    m = np.zeros((tq, N), np.float32)
    for rq, h, qh, kh, vh in _per_head(inputs, N, D):
        mh, p, lh = _softmax_parts(qh, kh, scale)
        m[rq, h] = mh[:, 0]
        l[rq, h] = lh[:, 0]
        P = p / lh
        if round_p:
            P = fmt.round(P)
        o[rq, h] = fmt.round(P @ vh)
    return {"output": o.reshape(tq, N * D), "l_output": l, "m_output": m}


def p_rounding_bound(inputs: dict, N: int, D: int) -> np.ndarray:
    """``2^-8 * sum_j P_ij |v_jd|`` per output element, float64 [total_q, N*D].

    Bounds how far o moves when the P·V matmul consumes P (or unnormalised p
    with the same relative rounding) rounded to BF16 (|bf16(x) - x| <= 2^-8 |x|);
    for FP16 inputs the factor is FP16's unit roundoff 2^-11.
    """
    u = format_of(inputs["q"]).unit_roundoff
    tq = len(inputs["q"])
    scale = scale_of(D)
    bound = np.zeros((tq, N, D))
    for rq, h, qh, kh, vh in _per_head(inputs, N, D):
        _, p, lh = _softmax_parts(qh, kh, scale)
        bound[rq, h] = u * ((p / lh).astype(np.float64) @ np.abs(vh.astype(np.float64)))
    return bound.reshape(tq, N * D)


def m_error_bound(inputs: dict, N: int, D: int) -> float:
    """max over rows of gamma_D * scale * max_j sum_d |q_d k_jd|: the a-priori
    bound on |dm| from the dot products' summation order (see ``M_ATOL``)."""
    u = 2.0**-24
    gamma = D * u / (1 - D * u)
    worst = 0.0
    for _, _, qh, kh, _ in _per_head(inputs, N, D):
        worst = max(worst, float((np.abs(qh.astype(np.float64)) @ np.abs(kh.astype(np.float64)).T).max()))
    return gamma * float(scale_of(D)) * worst


def check_outputs(out: dict, inputs: dict, N: int, D: int, gold: dict | None = None,
                  rows=None) -> dict:
    """Check SK-01 outputs against the golden with the module's tolerances.

    ``out`` holds ``output`` (BF16 bits, FP16 or floats), ``l_output``, ``m_output``.
    Only ``rows`` (default ``written_rows(inputs)``) are compared. Returns, per
    output, ``(ok, worst_ratio, max_abs_err)`` where the ratio is
    ``|out - gold| / allowed`` (ok iff <= 1; NaN counts as inf).
    """
    gold = gold if gold is not None else golden_forward(inputs, N, D)
    rows = written_rows(inputs) if rows is None else rows
    bound = p_rounding_bound(inputs, N, D)
    limits = tolerances(format_of(inputs["q"]))
    result = {}
    for name in OUTPUT_NAMES:
        o = np.asarray(out[name])
        o = format_of(o).widen(o) if o.dtype in (np.uint16, np.float16) else o
        o = o.reshape(gold[name].shape)[rows].astype(np.float64)
        g = gold[name][rows].astype(np.float64)
        rtol, atol = limits[name]
        allowed = atol + rtol * np.abs(g) + (bound[rows] if name == "output" else 0.0)
        err = np.abs(o - g)
        ratio = np.where(np.isnan(err), np.inf, err / allowed)
        worst = float(ratio.max()) if ratio.size else 0.0
        result[name] = (worst <= 1.0, worst, float(np.nanmax(err)) if err.size else 0.0)
    return result


def fp64_forward(inputs: dict, N: int, D: int) -> dict:
    """Independent FP64 forward (no 16-bit rounding of o), to validate the golden."""
    fmt = format_of(inputs["q"])
    q, k, v = (fmt.widen(inputs[n]).astype(np.float64) for n in ("q", "k", "v"))
    tq = q.shape[0]
    scale = 1.0 / math.sqrt(D)
    o = np.zeros((tq, N, D))
    l = np.zeros((tq, N))
    m = np.zeros((tq, N))
    for qs, s1, ks, s2 in _segments(inputs):
        if s1 == 0 or s2 == 0:
            continue
        x = scale * np.einsum("ihd,jhd->hij", q[qs:qs + s1], k[ks:ks + s2], optimize=True)
        mx = x.max(axis=2)
        e = np.exp(x - mx[:, :, None])
        s = e.sum(axis=2)
        m[qs:qs + s1] = mx.T
        l[qs:qs + s1] = s.T
        o[qs:qs + s1] = np.einsum("hij,jhd->ihd", e / s[:, :, None], v[ks:ks + s2], optimize=True)
    return {"output": o.reshape(tq, N * D), "l_output": l, "m_output": m}


def written_rows(inputs: dict) -> np.ndarray:
    """Boolean [total_q] mask of the rows SK-01 writes (batch elements with s2 > 0)."""
    mask = np.zeros(len(inputs["q"]), bool)
    for qs, s1, _, s2 in _segments(inputs):
        if s2 > 0:
            mask[qs:qs + s1] = True
    return mask


def to_sk16_inputs(fwd_inputs: dict, out: dict, do_bits, N: int, D: int) -> dict:
    """SK-16's 12 arguments from SK-01's inputs and outputs and a dO.

    ``out`` holds SK-01's ``output`` (16-bit storage or 16-bit-valued floats) and
    ``l_output``/``m_output`` [total_q, N]; SK-16 reads o as [total_q, N, D] and
    l/m as [total_q, N, 1] (same bytes, docs/SK16.md#m-and-l). dq/dk/dv are zeros.
    """
    tq, tkv = len(fwd_inputs["q"]), len(fwd_inputs["k"])
    fmt = format_of(fwd_inputs["q"])
    o = np.asarray(out["output"])
    o = o if o.dtype == fmt.storage else fmt.encode(o)
    return {
        "q": fwd_inputs["q"], "k": fwd_inputs["k"], "v": fwd_inputs["v"],
        "o": o.reshape(tq, N, D), "do": do_bits,
        "l_input": np.asarray(out["l_output"], np.float32).reshape(tq, N, 1),
        "m_input": np.asarray(out["m_output"], np.float32).reshape(tq, N, 1),
        "dq": np.zeros((tq, N * D), np.float32),
        "dk": np.zeros((tkv, N * D), np.float32),
        "dv": np.zeros((tkv, N * D), np.float32),
        "actual_q": fwd_inputs["cu_seqlens_q"], "actual_kv": fwd_inputs["cu_seqlens_k"],
    }


def write_case(case: Sk16Case, out_dir: str, seed: int = 42, dtype: str = "bf16") -> dict:
    """Write the 8 kernel arguments, gold_*.npy and case.json into ``out_dir``."""
    os.makedirs(out_dir, exist_ok=True)
    inputs = make_inputs(case, seed, dtype=dtype)
    gold = golden_forward(inputs, case.N, case.D)
    types = dtypes(dtype)
    tensors = {}
    for name in INPUT_NAMES:
        save_tensor(os.path.join(out_dir, name + ".npy"), inputs[name], types[name])
        tensors[name] = {"file": name + ".npy", "dtype": types[name], "shape": list(inputs[name].shape)}
    for name in OUTPUT_NAMES:
        save_tensor(os.path.join(out_dir, f"gold_{name}.npy"), gold[name], "fp32")
        tensors["gold_" + name] = {"file": f"gold_{name}.npy", "dtype": "fp32", "shape": list(gold[name].shape)}
    manifest = {
        "kernel": "sk01", "name": case.name, "seed": seed, "B": case.B, "N": case.N, "D": case.D,
        "q_seqlens": list(case.q_seqlens), "kv_seqlens": list(case.kv_seqlens),
        "total_q": case.total_q, "total_kv": case.total_kv,
        "scale": float(scale_of(case.D)), "flops": flops(case),
        "dtype": dtype,
        "tolerances": {n: {"rtol": r, "atol": a}
                       for n, (r, a) in tolerances(get_format(dtype)).items()},
        "argument_order": list(INPUT_NAMES), "tensors": tensors,
    }
    with open(os.path.join(out_dir, "case.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    return manifest


def compare_dir(out_dir: str, gold_dir: str | None = None, stream=sys.stdout) -> bool:
    """Check ``output/l_output/m_output.npy`` in ``out_dir`` against the golden
    of the case written by ``write_case`` into ``gold_dir`` (default: same dir)."""
    gold_dir = gold_dir or out_dir
    try:
        with open(os.path.join(gold_dir, "case.json")) as f:
            manifest = json.load(f)
        types = dtypes(manifest.get("dtype", "bf16"))
        inputs = {n: load_tensor(os.path.join(gold_dir, f"{n}.npy"), types[n])
                  for n in ("q", "k", "v", "cu_seqlens_q", "cu_seqlens_k")}
        gold = {n: load_tensor(os.path.join(gold_dir, f"gold_{n}.npy"), "fp32") for n in OUTPUT_NAMES}
        out = {n: load_tensor(os.path.join(out_dir, f"{n}.npy"), types[n]) for n in OUTPUT_NAMES}
        for n in OUTPUT_NAMES:
            if out[n].size != gold[n].size:
                raise ValueError(f"{n}: size {out[n].size} != gold size {gold[n].size}")
        result = check_outputs(out, inputs, manifest["N"], manifest["D"], gold)
    except (OSError, ValueError, TypeError, KeyError) as e:
        print(f"FAIL ({e})", file=stream)
        return False
    limits = tolerances(format_of(inputs["q"]))
    for name, (ok, ratio, err) in result.items():
        rtol, atol = limits[name]
        extra = " + p_rounding_bound" if name == "output" else ""
        print(f"{name}: {'PASS' if ok else 'FAIL'} (|err| <= {atol:g} + {rtol:g}*|gold|{extra}; "
              f"worst |err|/allowed = {ratio:.3g}; max|err| = {err:.3g})", file=stream)
    return all(ok for ok, _, _ in result.values())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m pto_mlir.golden.sk01", description=__doc__.split("\n\n")[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--out", metavar="DIR", help="write arguments, gold_*.npy and case.json into DIR")
    mode.add_argument("--compare", metavar="DIR", help="check DIR/{output,l_output,m_output}.npy")
    ap.add_argument("--case", help="SK-16 case name (python3 -m pto_mlir.golden.sk16 --list)")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--dtype", choices=["bf16", "fp16"], default="bf16",
                    help="--out: the 16-bit format of q, k, v and the output")
    ap.add_argument("--gold", metavar="DIR", help="--compare: directory of gold_*.npy (default: same DIR)")
    a = ap.parse_args(argv)
    if a.compare:
        return 0 if compare_dir(a.compare, a.gold) else 1
    if not a.case:
        ap.error("--out needs --case NAME")
    try:
        case = get_case(a.case)
    except KeyError as e:
        ap.error(str(e.args[0]))
    m = write_case(case, a.out, a.seed, a.dtype)
    print(f"wrote {case.name} (B={m['B']} N={m['N']} D={m['D']} total_q={m['total_q']} "
          f"total_kv={m['total_kv']} seed={a.seed}) to {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
