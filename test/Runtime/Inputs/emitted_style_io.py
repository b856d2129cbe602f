"""Inputs and golden for Inputs/emitted_style.cpp: make DIR SEQ | check IN OUT."""
import os
import sys

import numpy as np


def bf16(a):
    return (np.asarray(a, dtype=np.float32).view(np.uint32) >> 16).astype(np.uint16)


def f32(b):
    return (b.astype(np.uint32) << 16).view(np.float32)


if sys.argv[1] == "make":
    d, seq = sys.argv[2], int(sys.argv[3])
    os.makedirs(d, exist_ok=True)
    rng = np.random.default_rng(5)
    np.save(os.path.join(d, "q.npy"), bf16(rng.standard_normal((seq, 64)) * 0.3))
    np.save(os.path.join(d, "k.npy"), bf16(rng.standard_normal((seq, 64)) * 0.3))
else:
    q = f32(np.load(os.path.join(sys.argv[2], "q.npy"))).astype(np.float64)
    k = f32(np.load(os.path.join(sys.argv[2], "k.npy"))).astype(np.float64)
    s = q @ k.T
    want = np.exp(s - s.max(axis=1, keepdims=True)).sum(axis=1)
    got = np.load(os.path.join(sys.argv[3], "out.npy"))
    err = np.abs(got - want).max() / np.abs(want).max()
    print("max rel err %.1e: %s" % (err, "ok" if err < 1e-5 else "FAIL"))
