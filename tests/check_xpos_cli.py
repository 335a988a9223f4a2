#!/usr/bin/python3
"""Compares the CLI's xPos tables with a float64 numpy re-implementation of torchscale's XPOS.

    check_xpos_cli.py PE_EXPLORER

For each case it runs

    pe-explorer export --scheme xpos --d-model D --max-len L --offset O --part cos|sin|angle
                       --xpos-side query|key --xpos-positions centred|absolute
                       [--xpos-scale-base S] --view heatmap -o out.npy

and compares the NPY with the table torchscale multiplies x by in
torchscale/component/xpos_relative_position.py, XPOS(head_dim=D, scale_base=S).forward(x,
offset=O, downscale=(side == key)) for x of L rows, rebuilt here in float64:
  - scale buffer: (arange(0, D, 2) + 0.4 D) / (1.4 D);
  - decay positions: arange(min_pos, max_pos) with min_pos = -(L + O) // 2 (centred), or the
    absolute positions arange(0, L + O) (this program's --xpos-positions absolute);
  - scale ** (positions / S), inverted for keys (downscale);
  - fixed_pos_embedding on the (L + O, D/2) scale tensor: inv_freq = 1 / 10000 ** (arange(0,
    D/2) / (D/2)), angles arange(0, L + O) x inv_freq;
  - the last L rows; cos * scale and sin * scale with each column twice in a row
    (duplicate_interleave); the angle table is the angles themselves, (L, D/2).

A case passes when the NPY is float32 of the right shape and every value is within
1e-6 * max(1, |v|) of the reference. A last group checks that the comparison tells a wrong
table apart (the other side, the other positions, RoPE without the decay).
Exit status 1 if any case fails.
"""

import os
import subprocess
import sys
import tempfile

import numpy as np

CASES = [
    dict(d=128, length=2048, offset=0, sb=512.0),
    dict(d=64, length=1000, offset=37, sb=512.0),
    dict(d=16, length=333, offset=5000, sb=2048.0),
    dict(d=2, length=9, offset=0, sb=512.0),
]


def reference(d, length, offset, sb, part, side, positions):
    h = d // 2
    zeta = (np.arange(0, d, 2, dtype=np.float64) + 0.4 * d) / (1.4 * d)
    total = length + offset
    min_pos = (-total) // 2 if positions == "centred" else 0
    pos = np.arange(min_pos, min_pos + total, dtype=np.float64)
    scale = zeta[None, :] ** (pos[:, None] / sb)
    inv_freq = 1.0 / (10000.0 ** (np.arange(0, h, dtype=np.float64) / h))
    angle = np.outer(np.arange(0, total, dtype=np.float64), inv_freq)
    scale, angle = scale[-length:], angle[-length:]
    if side == "key":
        scale = 1.0 / scale
    if part == "angle":
        return angle
    wave = np.cos(angle) if part == "cos" else np.sin(angle)
    return np.repeat(wave * scale, 2, axis=1)


def run_export(exe, case, part, side, positions, out_dir):
    out = os.path.join(out_dir, "xpos.npy")
    if os.path.exists(out):
        os.remove(out)
    cmd = [exe, "export", "--scheme", "xpos", "--d-model", str(case["d"]), "--max-len",
           str(case["length"]), "--offset", str(case["offset"]), "--xpos-scale-base",
           repr(case["sb"]), "--part", part, "--xpos-side", side, "--xpos-positions", positions,
           "--view", "heatmap", "-o", out]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        return None, "exit %d: %s (%s)" % (proc.returncode, (proc.stderr or proc.stdout).strip(),
                                           " ".join(cmd[1:]))
    if not os.path.exists(out):
        return None, "no file written"
    return np.load(out), None


def compare(got, want):
    if got.dtype != np.float32:
        return "dtype %s, not float32" % got.dtype
    if got.shape != want.shape:
        return "shape %s, not %s" % (got.shape, want.shape)
    excess = np.abs(got.astype(np.float64) - want) / (1e-6 * np.maximum(1.0, np.abs(want)))
    worst = float(excess.max()) if excess.size else 0.0
    if not worst <= 1.0:
        at = np.unravel_index(int(np.argmax(excess)), excess.shape)
        return "cell %s: got %r, want %r" % (at, float(got[at]), float(want[at]))
    return None


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    exe = sys.argv[1]
    failures = 0
    count = 0
    with tempfile.TemporaryDirectory() as out_dir:
        for case in CASES:
            for positions in ("centred", "absolute"):
                for side in ("query", "key"):
                    for part in ("cos", "sin", "angle"):
                        label = "d=%d L=%d offset=%d sb=%g %s %s %s" % (
                            case["d"], case["length"], case["offset"], case["sb"], positions,
                            side, part)
                        got, problem = run_export(exe, case, part, side, positions, out_dir)
                        if problem is None:
                            problem = compare(got, reference(case["d"], case["length"],
                                                             case["offset"], case["sb"], part,
                                                             side, positions))
                        count += 1
                        if problem:
                            failures += 1
                            print("FAIL %s: %s" % (label, problem))
        # The comparison must tell wrong tables apart.
        case = CASES[1]
        got, problem = run_export(exe, case, "cos", "query", "centred", out_dir)
        if problem:
            failures += 1
            print("FAIL negative controls: %s" % problem)
        else:
            wrong = {
                "the key side": reference(case["d"], case["length"], case["offset"], case["sb"],
                                          "cos", "key", "centred"),
                "absolute positions": reference(case["d"], case["length"], case["offset"],
                                                case["sb"], "cos", "query", "absolute"),
                "no decay": np.repeat(np.cos(reference(case["d"], case["length"],
                                                       case["offset"], case["sb"], "angle",
                                                       "query", "centred")), 2, axis=1),
            }
            for name, table in wrong.items():
                count += 1
                if compare(got, table) is None:
                    failures += 1
                    print("FAIL negative control: the table also matches %s" % name)
    print("%d of %d xpos cases passed" % (count - failures, count))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
