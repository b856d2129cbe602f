"""Independent reference for f32 -> bf16 / f16 conversions in every RoundMode.

The candidates are found by truncation and compared with exact float64
arithmetic (no bit tricks), so the emulator's bit-level formulas are checked
against the definition. Prints lines `KIND MODE U32 EXPECTED` (hex), where
MODE is the RoundMode value (0 NONE = RINT, 1 RINT, 2 ROUND, 3 FLOOR,
4 CEIL, 5 TRUNC, 6 ODD).
"""
import sys

import numpy as np

MODES = range(7)


def bf16_mag(b):
    """Magnitude of bf16 bits b (sign ignored); exponent 255 reads as finite."""
    e, m = (b >> 7) & 0xFF, b & 0x7F
    if e == 0:
        return m * 2.0 ** -133
    return (1 + m / 128.0) * 2.0 ** (e - 127)


def pick(mode, x_neg, t0, t1, d0, d1):
    """t0: smaller magnitude, t1: larger; d0/d1: distances to them."""
    if mode in (0, 1):
        return t0 if d0 < d1 else t1 if d1 < d0 else (t0 if t0 % 2 == 0 else t1)
    if mode == 2:
        return t0 if d0 < d1 else t1
    if mode == 3:
        return t1 if x_neg else t0
    if mode == 4:
        return t0 if x_neg else t1
    if mode == 5:
        return t0
    return t0 if t0 % 2 == 1 else t1


def ref_bf16(u, mode):
    if (u & 0x7FFFFFFF) > 0x7F800000:
        return (u >> 16) | 0x40
    x = float(np.array([u], dtype=np.uint32).view(np.float32)[0])
    t = u >> 16
    mag = t & 0x7FFF
    lo = bf16_mag(mag)
    ax = abs(x)
    if ax == lo or ax == float("inf"):
        return t
    hi = bf16_mag(mag + 1)
    return pick(mode, x < 0, t, t + 1, ax - lo, hi - ax)


def f16_bits(h):
    return int(np.array([h], dtype=np.float16).view(np.uint16)[0])


def f16_mag(bits):
    if bits & 0x7FFF == 0x7C00:
        return 65536.0
    return abs(float(np.array([bits], dtype=np.uint16).view(np.float16)[0]))


def ref_f16(u, mode):
    f = np.array([u], dtype=np.uint32).view(np.float32)[0]
    if np.isnan(f):
        return ((u >> 16) & 0x8000) | 0x7E00 | ((u >> 13) & 0x1FF)
    x = float(f)
    if np.isinf(f):
        return 0xFC00 if x < 0 else 0x7C00
    sign = 0x8000 if (u >> 31) else 0
    ax = abs(x)
    if ax > 65504.0:  # beyond the largest half: 65504 or inf (read as 2^16)
        return sign | pick(mode, x < 0, 0x7BFF, 0x7C00, ax - 65504.0, 65536.0 - ax)
    # largest half magnitude <= ax, by search over the ordered bit patterns
    lo_bits = int(np.searchsorted(HALF_MAGS, ax, side="right")) - 1
    lo = HALF_MAGS[lo_bits]
    if lo == ax:
        return sign | lo_bits
    hi = HALF_MAGS[lo_bits + 1]
    return sign | pick(mode, x < 0, lo_bits, lo_bits + 1, ax - lo, hi - ax)


HALF_MAGS = np.array([f16_mag(b) for b in range(0x7C01)], dtype=np.float64)


def values(rng):
    edge = [0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7F800001, 0xFF800001,
            0x7F80FFFF, 0x7FC00000, 0x7FFFFFFF, 0xFFC12345, 0x7F7FFFFF, 0xFF7FFFFF,
            0x7F7F8000, 0x7F7F7FFF, 0x00800000, 0x00000001, 0x80000001, 0x00008000,
            0x00018000, 0x0000FFFF, 0x80008000, 0x3F808000, 0x3F818000, 0xBF808000,
            0xBF818000, 0x3F80C000, 0x3F804000, 0x007FFFFF, 0x807FFFFF]
    rnd = [int(v) for v in rng.integers(0, 2**32, size=3000, dtype=np.uint64)]
    ties = [(int(v) & 0xFFFF0000) | int(w) for v, w in
            zip(rng.integers(0, 2**32, size=1500, dtype=np.uint64),
                rng.choice([0x8000, 0x7FFF, 0x8001, 0x0001, 0xFFFF], size=1500))]
    return edge + rnd + ties


def f16_values(rng):
    out = [0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00001, 0x477FE000,
           0x477FF000, 0x477FEFFF, 0x47800000, 0x33800000, 0x33000000, 0x33000001,
           0xB3000000, 0x387FC000, 0x00000001, 0x80000001]
    # random magnitudes around the half range, including subnormals and overflow
    e = rng.integers(127 - 27, 127 + 17, size=2500)
    m = rng.integers(0, 2**23, size=2500)
    s = rng.integers(0, 2, size=2500)
    out += [int((si << 31) | (ei << 23) | mi) for si, ei, mi in zip(s, e, m)]
    # exact midpoints between adjacent halves
    hb = rng.integers(0, 0x7BFF, size=800)
    for b, si in zip(hb, rng.integers(0, 2, size=800)):
        mid = np.float32((HALF_MAGS[b] + HALF_MAGS[b + 1]) / 2) * (-1 if si else 1)
        out.append(int(np.array([mid], dtype=np.float32).view(np.uint32)[0]))
    return out


def main():
    rng = np.random.default_rng(20261130)
    lines = []
    for u in values(rng):
        for mode in MODES:
            lines.append("bf16 %d %08x %04x" % (mode, u, ref_bf16(u, mode)))
    for u in f16_values(rng):
        for mode in MODES:
            lines.append("f16 %d %08x %04x" % (mode, u, ref_f16(u, mode)))
    sys.stdout.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
