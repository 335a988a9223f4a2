#!/usr/bin/env python3
"""--init torch:SEED against a live PyTorch: for each case, torch.manual_seed(seed);
nn.Embedding(V, d).weight next to the embedding part PE Explorer exports for the ids 0..V-1
(pe-explorer export --view sum --init torch:SEED --vocab-size V --no-scale), and the largest
difference in float32 ulps. Without torch it prints the app's values of the printed goldens
(tests/torch_goldens.inc) so they can be compared by eye, and exits 0.

    /usr/bin/python3 tests/reference/torch_init.py [--build build]

PyTorch's CPU normal_ has a scalar kernel and an AVX2 one (avx_mathfun's log/sincos); the app
follows the AVX2 one with --init torch:SEED and the scalar one with torch-scalar:SEED. Both are
compared: 0 ulps is expected for the kernel torch took (torch.__config__.show() "CPU capability
usage": AVX2 or AVX512 for torch:SEED; NO AVX, as with ATEN_CPU_CAPABILITY=default, for
torch-scalar:SEED) and a few ulps (at most a few 1e-6 absolute) for the other.
"""
import argparse
import os
import struct
import subprocess
import sys
import tempfile

CASES = [(1, 2, 5), (123, 6, 3), (42, 10, 4), (0, 4, 4), (7, 50, 16), (3, 1000, 64), (9, 97, 33)]


def read_npy(path):
    with open(path, "rb") as f:
        data = f.read()
    header_len = struct.unpack("<H", data[8:10])[0]
    header = data[10:10 + header_len].decode("latin1")
    shape = tuple(int(x) for x in header.split("'shape': (")[1].split(")")[0].split(",") if x.strip())
    count = 1
    for s in shape:
        count *= s
    values = struct.unpack("<%df" % count, data[10 + header_len:10 + header_len + 4 * count])
    return shape, values


def app_table(binary, seed, vocab, d, spec="torch"):
    """The (V, d) table as the app makes it: the embedding part of the sum view's NPY."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "sum.npy")
        ids = ",".join(str(i) for i in range(vocab))
        subprocess.run([binary, "export", "--view", "sum", "--scheme", "learned", "--ids", ids,
                        "--vocab-size", str(vocab), "--d-model", str(d), "--max-len", str(vocab),
                        "--init", "%s:%d" % (spec, seed), "--no-scale", "-o", out], check=True)
        shape, values = read_npy(out)  # (T, 4, d): part 0 is the embedding
        assert shape == (vocab, 4, d), shape
        return [[values[(t * 4) * d + j] for j in range(d)] for t in range(vocab)]


def ulps(a, b):
    def key(x):
        i = struct.unpack("<i", struct.pack("<f", x))[0]
        return i if i >= 0 else -(i & 0x7FFFFFFF)
    return abs(key(a) - key(b))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    args = ap.parse_args()
    binary = os.path.join(args.build, "pe-explorer")
    try:
        import torch
    except ImportError:
        torch = None
        print("torch is not installed: the app's values for the printed cases follow")
    if torch is not None:
        print("torch %s, CPU capability usage: %s" % (
            torch.__version__, torch.__config__.show().split("CPU capability usage: ")[-1].split("\n")[0]))
    worst_all = {"torch": 0, "torch-scalar": 0}
    for seed, vocab, d in CASES:
        if torch is None:
            ours = app_table(binary, seed, vocab, d)
            if vocab * d <= 40:
                print("seed %d nn.Embedding(%d, %d):" % (seed, vocab, d))
                for row in ours:
                    print("  " + " ".join("%8.4f" % v for v in row))
            continue
        torch.manual_seed(seed)
        w = torch.nn.Embedding(vocab, d).weight.detach().numpy()
        for spec in worst_all:
            ours = app_table(binary, seed, vocab, d, spec)
            worst = max(ulps(float(w[r][c]), ours[r][c]) for r in range(vocab) for c in range(d))
            worst_all[spec] = max(worst_all[spec], worst)
            print("seed %d nn.Embedding(%d, %d), --init %s: max %d ulps" % (seed, vocab, d, spec, worst))
    if torch is not None:
        for spec, worst in worst_all.items():
            print("--init %s:SEED, max over all cases: %d ulps" % (spec, worst))


if __name__ == "__main__":
    sys.exit(main())
