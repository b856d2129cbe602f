"""Writes inputs for / checks outputs of `pto-rt-test_runtime host`.

  hostmain_io.py make DIR [good|f32|shape]
  hostmain_io.py check INDIR OUTDIR
"""
import os
import sys

import numpy as np


def bf16_bits(a):
    return (np.asarray(a, dtype=np.float32).view(np.uint32) >> 16).astype(np.uint16)


def main():
    if sys.argv[1] == "make":
        d, variant = sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else "good"
        os.makedirs(d, exist_ok=True)
        x = (np.arange(20 * 16, dtype=np.float32).reshape(20, 16) - 100) / 4
        if variant == "f32":
            np.save(os.path.join(d, "x.npy"), x)
        elif variant == "shape":
            np.save(os.path.join(d, "x.npy"), bf16_bits(x.reshape(40, 8)))
        else:
            np.save(os.path.join(d, "x.npy"), bf16_bits(x))
        np.save(os.path.join(d, "scale.npy"), np.array([2.0], dtype=np.float32))
    else:
        xb = np.load(os.path.join(sys.argv[2], "x.npy"))
        x = (xb.astype(np.uint32) << 16).view(np.float32)
        y = np.load(os.path.join(sys.argv[3], "y.npy"))
        assert y.dtype == np.float32 and y.shape == (20, 16), (y.dtype, y.shape)
        assert np.array_equal(y, x * 2), np.abs(y - x * 2).max()
        print("outputs match")


if __name__ == "__main__":
    main()
