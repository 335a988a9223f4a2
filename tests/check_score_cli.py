#!/usr/bin/python3
"""Compares the CLI's attention-score tables with float64 numpy computations of the definition.

    check_score_cli.py PE_EXPLORER

With content all ones (x = 1, so no generator is needed here) it runs

    pe-explorer export --view score --content ones [--causal] [scheme flags] -o out.npy

and compares the (L, L) NPY with score(m, n) = q_m . k_n / sqrt(d) built here:
  - sinusoidal (paper layout): q_m = 1 + PE_m, PE_m[2i] = sin(m / 10000^(2i/d)), PE_m[2i+1] = cos;
  - rope, half pairing: q_m = x cos(m theta) + rotate_half(x) sin(m theta), emb = cat(freqs, freqs)
    as HF's LlamaRotaryEmbedding and apply_rotary_pos_emb;
  - rope, interleaved pairing: dims 2i, 2i + 1 turned by m theta_i (GPT-J, Meta's Llama).
A causal mask leaves NaN above the diagonal (keys after the query). A case passes when the
array is float32 of shape (L, L), NaN exactly where masked, and within 1e-5 * max(1, |v|).
"""
import os
import subprocess
import sys
import tempfile

import numpy as np


def rope_q(positions, d, theta, interleaved):
    inv = theta ** (-np.arange(0, d, 2, dtype=np.float64) / d)
    ang = positions[:, None] * inv[None, :]
    x = np.ones((len(positions), d))
    if interleaved:
        a, b = x[:, 0::2], x[:, 1::2]
        q = np.empty_like(x)
        q[:, 0::2] = a * np.cos(ang) - b * np.sin(ang)
        q[:, 1::2] = a * np.sin(ang) + b * np.cos(ang)
        return q
    emb = np.concatenate([ang, ang], 1)
    rot = np.concatenate([-x[:, d // 2:], x[:, : d // 2]], 1)
    return x * np.cos(emb) + rot * np.sin(emb)


def sin_q(positions, d):
    i = np.arange(d // 2)
    pe = np.zeros((len(positions), d))
    pe[:, 0::2] = np.sin(positions[:, None] / 10000.0 ** (2 * i / d))
    pe[:, 1::2] = np.cos(positions[:, None] / 10000.0 ** (2 * i / d))
    return 1.0 + pe


def main():
    exe = sys.argv[1]
    cases = [
        ("sinusoidal", 16, 40, 0, False, []),
        ("sinusoidal", 32, 33, 7, True, []),
        ("rope", 16, 40, 0, False, ["--rope-pairing", "half"]),
        ("rope", 24, 30, 1000, True, ["--rope-pairing", "interleaved", "--rope-theta", "500"]),
    ]
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for scheme, d, L, offset, causal, flags in cases:
            out = os.path.join(tmp, "s.npy")
            cmd = [exe, "export", "--view", "score", "--scheme", scheme, "--content", "ones",
                   "--d-model", str(d), "--max-len", str(L), "--offset", str(offset)] + flags
            if causal:
                cmd.append("--causal")
            subprocess.run(cmd + ["-o", out], check=True)
            got = np.load(out)
            pos = np.arange(offset, offset + L, dtype=np.float64)
            if scheme == "rope":
                theta = float(flags[flags.index("--rope-theta") + 1]) if "--rope-theta" in flags else 1e4
                q = rope_q(pos, d, theta, "interleaved" in flags)
            else:
                q = sin_q(pos, d)
            want = q @ q.T / np.sqrt(d)
            if causal:
                want[np.triu_indices(L, 1)] = np.nan
            ok = got.dtype == np.float32 and got.shape == (L, L)
            ok = ok and np.array_equal(np.isnan(got), np.isnan(want))
            err = np.nanmax(np.abs(got - want) / np.maximum(1.0, np.abs(want))) if ok else np.inf
            ok = ok and err <= 1e-5
            print(("ok  " if ok else "FAIL"), " ".join(cmd[2:]), "max rel err", err)
            failed += 0 if ok else 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
