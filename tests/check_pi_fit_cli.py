#!/usr/bin/python3
"""`pe-explorer export --view pi-fit` (Position Interpolation, Chen et al. 2023, Figure 2)
against numpy: the targets are splitmix64 draws of the seed, each (x >> 11) 2^-53 mapped to
[-1, 1]; the fit is the ridge least squares min |A x - y|^2 + 1e-6 |x|^2 with
A = [cos(s theta_j), sin(s theta_j)] over s = 0..L, solved here by numpy's lstsq on the
augmented system; the CSV's fitted a(s) over 0..2L and interpolated a(s/2) must equal numpy's.
L is max_len within [d, 8192].

    check_pi_fit_cli.py PE_EXPLORER
"""

import csv
import os
import subprocess
import sys
import tempfile

import numpy as np

MASK = (1 << 64) - 1


def splitmix64(state):
    state = (state + 0x9E3779B97F4A7C15) & MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return state, z ^ (z >> 31)


def main():
    exe = sys.argv[1]
    failures = []
    tmp = tempfile.mkdtemp(prefix="pe-pifit-")
    for d, theta, L, seed in [(128, 10000.0, 2048, 0), (64, 500000.0, 512, 7)]:
        out = os.path.join(tmp, f"pi_{d}_{L}.csv")
        p = subprocess.run([exe, "export", "--scheme", "rope", "--d-model", str(d), "--rope-theta",
                            str(theta), "--max-len", str(L), "--seed", str(seed), "--view",
                            "pi-fit", "-o", out], capture_output=True, text=True)
        if p.returncode != 0:
            failures.append(f"d {d}: export failed: {p.stderr}")
            continue
        with open(out) as f:
            rows = list(csv.reader(f))
        if rows[0] != ["s", "target", "fitted", "interpolated"] or len(rows) != 2 * L + 2:
            failures.append(f"d {d}: header {rows[0]}, {len(rows)} rows")
            continue
        target = np.array([float(r[1]) for r in rows[1:L + 2]])
        fitted = np.array([float(r[2]) for r in rows[1:]])
        inter = np.array([float(r[3]) for r in rows[1:]])
        state, want = seed, []
        for _ in range(L + 1):
            state, z = splitmix64(state)
            want.append(2 * ((z >> 11) * 2.0 ** -53) - 1)
        if not np.array_equal(target, np.array(want)):
            failures.append(f"d {d}: targets differ from splitmix64 of seed {seed}")
        th = theta ** (-np.arange(0, d, 2) / d)
        s = np.arange(L + 1)[:, None]
        A = np.concatenate([np.cos(s * th), np.sin(s * th)], 1)
        Aa = np.vstack([A, np.sqrt(1e-6) * np.eye(d)])
        x = np.linalg.lstsq(Aa, np.concatenate([target, np.zeros(d)]), rcond=None)[0]

        def a(ss):
            ss = np.asarray(ss, dtype=np.float64)[:, None]
            return np.concatenate([np.cos(ss * th), np.sin(ss * th)], 1) @ x

        ref_fit = a(np.arange(2 * L + 1))
        ref_int = a(np.arange(2 * L + 1) / 2)
        scale = np.abs(ref_fit).max()
        err = max(np.abs(fitted - ref_fit).max(), np.abs(inter - ref_int).max()) / scale
        if err > 1e-8:
            failures.append(f"d {d}: the app's fit differs from numpy's by {err:.3g} of max |a|")
        inside, outside = np.abs(fitted[:L + 1]).max(), np.abs(fitted[L + 1:]).max()
        if not (inside < 1 and outside > 50 * inside and np.abs(inter).max() < 1):
            failures.append(f"d {d}: inside {inside}, outside {outside}, "
                            f"interpolated {np.abs(inter).max()}")
    # max_len outside [d, 8192] is drawn at the nearest end: 100 at d 128 fits L = 128.
    out = os.path.join(tmp, "clamped.csv")
    p = subprocess.run([exe, "export", "--scheme", "rope", "--view", "pi-fit", "--d-model", "128",
                        "--max-len", "100", "-o", out], capture_output=True, text=True)
    if p.returncode != 0 or sum(1 for _ in open(out)) != 2 * 128 + 2:
        failures.append(f"max_len 100: exit {p.returncode} {p.stderr}")
    p = subprocess.run([exe, "export", "--scheme", "rope", "--view", "pi-fit", "--d-model", "1024",
                        "-o", out], capture_output=True, text=True)
    if p.returncode != 2 or "512" not in p.stderr:
        failures.append(f"d 1024: exit {p.returncode} {p.stderr}")
    for f in failures:
        print("FAIL:", f)
    print(f"{'FAILED' if failures else 'ok'}: pi-fit against numpy")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
