#!/usr/bin/python3
"""Compares the CLI's RoPE tables with float64 numpy re-implementations of the published code.

    check_rope_cli.py PE_EXPLORER

For each case (every rope_scaling, both pairings, a partial rotary fraction, a table that starts
at a later position; YaRN without truncation and with mscales, Llama 4 Scout's equal factors,
proportional RoPE) and each part it runs

    pe-explorer export --scheme rope --d-model D --max-len L [--offset O] [rope flags]
                       --part cos|sin|angle --view heatmap -o out.npy

and compares the NPY with a table built here:
  - frequencies: tests/reference/rope_reference.py, in float64 (HF transformers
    src/transformers/modeling_rope_utils.py: _compute_default_rope_parameters,
    _compute_linear_scaling_rope_parameters, _compute_dynamic_ntk_parameters,
    _compute_yarn_parameters, _compute_llama3_parameters; that file has no static NTK, whose
    base theta * factor^(d_rot / (d_rot - 2)) is the dynamic formula's with the length term
    left out);
  - angles: outer(positions, inv_freq), positions offset .. offset + L - 1, as HF
    LlamaRotaryEmbedding.forward (inv_freq_expanded @ position_ids_expanded);
  - half pairing: emb = cat(freqs, freqs), cos = cos(emb) * attention_scaling, sin likewise
    (HF src/transformers/models/llama/modeling_llama.py, LlamaRotaryEmbedding.forward, which
    rotate_half pairs with dim i + d_rot / 2);
  - interleaved pairing: each angle twice in a row, repeat_interleave(freqs, 2) as GPT-J does
    (HF models/gptj/modeling_gptj.py, create_sinusoidal_positions + apply_rotary_pos_emb's
    repeat_interleave) and as Meta's llama/model.py precompute_freqs_cis pairs dims 2i, 2i + 1;
    the attention factor multiplies it as in the half layout.

A case passes when the NPY is float32 of shape (L, d_rot) for cos and sin, (L, d_rot / 2) for
the angle, and every value is within 1e-6 * max(1, |v|) of the float64 reference (float32
rounding of the exact value is at most 6e-8 * |v|; the rest is room for the last bits of
the frequencies, p * w with p up to a few thousand). A last group checks that the comparison
tells a wrong table apart (the other pairing, no attention factor, an unscaled frequency).
Exit status 1 if any case fails.
"""

import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "reference"))
import rope_reference as ref  # noqa: E402

PARTS = ("cos", "sin", "angle")
PAIRINGS = ("half", "interleaved")

# Each case: the shape, the rope flags, and the same numbers in rope_reference's case form.
# `seq` for dynamic NTK is the length its base is computed for; `auto_seq` leaves
# --sequence-len out, so the CLI uses the table's last position + 1.
CASES = [
    dict(name="none", d=128, length=3000, theta=10000.0, scaling="none"),
    dict(name="none theta 500000 d=64", d=64, length=200, theta=500000.0, scaling="none"),
    dict(name="linear x4", d=128, length=3000, theta=10000.0, scaling="linear", factor=4.0),
    dict(name="ntk x8", d=128, length=2048, theta=10000.0, scaling="ntk", factor=8.0),
    dict(name="dynamic-ntk seq above original", d=128, length=1000, theta=10000.0,
         scaling="dynamic-ntk", factor=4.0, original=2048, seq=8192),
    dict(name="dynamic-ntk seq below original", d=128, length=1000, theta=10000.0,
         scaling="dynamic-ntk", factor=4.0, original=2048, seq=1000),
    dict(name="dynamic-ntk seq from the table", d=64, length=3000, offset=200, theta=10000.0,
         scaling="dynamic-ntk", factor=2.5, original=1024, auto_seq=True),
    dict(name="yarn default attention factor", d=128, length=3000, theta=10000.0,
         scaling="yarn", factor=8.0, original=2048),
    dict(name="yarn given attention factor and betas", d=128, length=2500, theta=500000.0,
         scaling="yarn", factor=16.0, original=4096, beta_fast=16.0, beta_slow=2.0,
         attention=1.25),
    dict(name="llama3", d=128, length=3000, theta=500000.0, scaling="llama3", factor=8.0,
         low=1.0, high=4.0, original=8192),
    dict(name="llama3 other bands", d=64, length=2000, theta=10000.0, scaling="llama3",
         factor=16.0, low=2.0, high=8.0, original=4096),
    dict(name="partial rotary 0.4 yarn", d=80, fraction=0.4, length=1500, theta=500000.0,
         scaling="yarn", factor=4.0, original=8192, beta_fast=16.0, beta_slow=2.0),
    dict(name="partial rotary 0.25 none", d=128, fraction=0.25, length=500, theta=10000.0,
         scaling="none"),
    dict(name="offset 1000 linear", d=128, length=2000, offset=1000, theta=10000.0,
         scaling="linear", factor=2.0),
    dict(name="offset 777 llama3", d=64, length=600, offset=777, theta=500000.0,
         scaling="llama3", factor=8.0, low=1.0, high=4.0, original=8192),
    # HF v5: YaRN truncate false (GPT-OSS), mscale / mscale_all_dim (DeepSeek), Llama 4 Scout's
    # equal low / high factors, and Gemma 4's proportional rope type (the table stays d wide,
    # the still pairs are cos 1, sin 0).
    dict(name="yarn gpt-oss truncate false", d=64, length=1000, theta=150000.0, scaling="yarn",
         factor=32.0, original=4096, truncate=False),
    dict(name="yarn deepseek mscale", d=64, length=1000, theta=10000.0, scaling="yarn",
         factor=40.0, original=4096, mscale=1.0, mscale_all_dim=0.707),
    dict(name="llama4 scout", d=128, length=1000, theta=500000.0, scaling="llama3",
         factor=16.0, low=1.0, high=1.0, original=8192),
    dict(name="proportional gemma4", d=256, length=400, theta=1000000.0, scaling="none",
         proportion=0.25),
    dict(name="proportional linear", d=64, length=500, offset=30, theta=10000.0,
         scaling="linear", factor=8.0, proportion=0.3),
]


def reference_case(case):
    """The case in rope_reference.scaled_frequencies' form."""
    r = dict(d_model=case["d"], fraction=case.get("fraction", 1.0), theta=case["theta"],
             scaling=case["scaling"])
    for key in ("factor", "original", "beta_fast", "beta_slow", "attention", "low", "high",
                "truncate", "mscale", "mscale_all_dim", "proportion"):
        if key in case:
            r[key] = case[key]
    if case["scaling"] == "dynamic-ntk":
        r["seq"] = (case.get("offset", 0) + case["length"]) if case.get("auto_seq") else case["seq"]
    return r


def cli_flags(case):
    flags = ["--d-model", str(case["d"]), "--max-len", str(case["length"]),
             "--rope-theta", repr(case["theta"]), "--rope-scaling", case["scaling"]]
    if case.get("offset"):
        flags += ["--offset", str(case["offset"])]
    named = (("fraction", "--rotary-fraction"), ("factor", "--scaling-factor"),
             ("original", "--original-max-len"), ("beta_fast", "--beta-fast"),
             ("beta_slow", "--beta-slow"), ("attention", "--attention-factor"),
             ("low", "--low-freq-factor"), ("high", "--high-freq-factor"),
             ("mscale", "--mscale"), ("mscale_all_dim", "--mscale-all-dim"),
             ("proportion", "--rope-proportion"))
    for key, flag in named:
        if key in case:
            flags += [flag, repr(case[key])]
    if "truncate" in case:
        flags += ["--yarn-truncate", "true" if case["truncate"] else "false"]
    if case["scaling"] == "dynamic-ntk" and not case.get("auto_seq"):
        flags += ["--sequence-len", str(case["seq"])]
    return flags


def reference_table(case, pairing, part, attention_override=None, unscaled=False):
    """float64 (L, d_rot) cos / sin in the pairing's layout, or (L, d_rot / 2) angles."""
    r = reference_case(case)
    if unscaled:
        r = dict(r, scaling="none")
    dim, _, attention, inv_freq = ref.scaled_frequencies(r)
    if attention_override is not None:
        attention = attention_override
    offset = case.get("offset", 0)
    positions = np.arange(offset, offset + case["length"], dtype=np.float64)
    freqs = np.outer(positions, inv_freq)  # (L, dim / 2)
    assert freqs.shape == (case["length"], dim // 2)
    if part == "angle":
        return freqs
    if pairing == "half":
        emb = np.concatenate((freqs, freqs), axis=-1)
    else:
        emb = np.repeat(freqs, 2, axis=-1)  # torch.repeat_interleave(freqs, 2, dim=-1)
    return (np.cos(emb) if part == "cos" else np.sin(emb)) * attention


def run_export(exe, flags, pairing, part, out_dir):
    out = os.path.join(out_dir, "rope.npy")
    if os.path.exists(out):
        os.remove(out)
    cmd = [exe, "export", "--scheme", "rope", *flags, "--rope-pairing", pairing, "--part", part,
           "--view", "heatmap", "-o", out]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        return None, "exit %d: %s (%s)" % (proc.returncode, (proc.stderr or proc.stdout).strip(),
                                           " ".join(cmd[1:]))
    if not os.path.exists(out):
        return None, "no file written"
    return np.load(out), None


def compare(got, want):
    """None when `got` matches `want` to float32 rounding, else what differs."""
    if got.dtype != np.float32:
        return "dtype %s, not float32" % got.dtype
    if got.shape != want.shape:
        return "shape %s, not %s" % (got.shape, want.shape)
    err = np.abs(got.astype(np.float64) - want)
    bound = 1e-6 * np.maximum(1.0, np.abs(want))
    excess = err / bound
    worst = float(excess.max()) if excess.size else 0.0
    if not worst <= 1.0:
        row, col = np.unravel_index(int(np.argmax(excess)), excess.shape)
        return "error %.3g > %.3g at row %d, column %d (got %.9g, want %.12g)" % (
            err[row, col], bound[row, col], row, col, got[row, col], want[row, col])
    return None


class Tally:
    def __init__(self):
        self.passed = 0
        self.failures = []

    def case(self, label, problem):
        if problem is None:
            self.passed += 1
            print("ok    %s" % label)
        else:
            self.failures.append(label)
            print("FAIL  %s: %s" % (label, problem))

    def finish(self):
        print("\n%d passed, %d failed" % (self.passed, len(self.failures)))
        return 1 if self.failures else 0


def check(exe, out_dir):
    tally = Tally()
    for case in CASES:
        flags = cli_flags(case)
        for pairing in PAIRINGS:
            # the angle table has one column per pair whatever the pairing: both must give it
            for part in PARTS:
                label = "%s, %s, %s" % (case["name"], pairing, part)
                got, problem = run_export(exe, flags, pairing, part, out_dir)
                if got is not None:
                    problem = compare(got, reference_table(case, pairing, part))
                tally.case(label, problem)

    # The comparison must tell wrong tables apart.
    yarn = CASES[7]
    llama3 = CASES[9]
    wrong = [
        ("half cos is not the interleaved layout", CASES[0], "half", "cos",
         lambda c: reference_table(c, "interleaved", "cos")),
        ("interleaved sin is not the half layout", CASES[0], "interleaved", "sin",
         lambda c: reference_table(c, "half", "sin")),
        ("yarn cos has the attention factor", yarn, "half", "cos",
         lambda c: reference_table(c, "half", "cos", attention_override=1.0)),
        ("llama3 angle is not the unscaled angle", llama3, "half", "angle",
         lambda c: reference_table(c, "half", "angle", unscaled=True)),
        ("gpt-oss truncate false is not the truncated table", CASES[15], "half", "angle",
         lambda c: reference_table(dict(c, truncate=True), "half", "angle")),
        ("proportional is not the whole head turning", CASES[18], "half", "cos",
         lambda c: reference_table(dict(c, proportion=1.0), "half", "cos")),
    ]
    for label, case, pairing, part, make_wrong in wrong:
        got, problem = run_export(exe, cli_flags(case), pairing, part, out_dir)
        if got is not None:
            problem = None if compare(got, make_wrong(case)) else "a wrong reference was accepted"
        tally.case("told apart: " + label, problem)
    return tally.finish()


def main():
    args = sys.argv[1:]
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    exe = args[0]
    if not os.access(exe, os.X_OK):
        print("not an executable: %s" % exe, file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="pe_rope_cli_") as out_dir:
        return check(exe, out_dir)


if __name__ == "__main__":
    sys.exit(main())
