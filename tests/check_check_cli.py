#!/usr/bin/python3
"""`pe-explorer check` on tables written here with numpy, as a user would write them.

    check_check_cli.py PE_EXPLORER

The tables come from the float64 re-implementations of the published code in tests/reference/
(sinusoidal_reference.py: tensor2tensor get_timing_signal_1d, fairseq
SinusoidalPositionalEmbedding, Marian, the PyTorch tutorial, MusicGen ...; rope_reference.py: HF
modeling_rope_utils' frequencies), laid out as HF's rotary modules do (cos(cat(freqs, freqs)) for
the half pairing, repeat_interleave for the interleaved one) and rounded once to float32. Each
case states what `check --json` must find: the exit code, the verdict, and the scheme's
parameters of the best candidate (read from its "flags"). Then the failures: a table computed
in float32 the PyTorch tutorial's way (recognised, exit 0, verdict "float32"), noise, shuffled
rows and a transposed table (exit 1), a missing file and a 1-D array (exit 2).
Exit status 1 if any case fails.
"""

import json
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "reference"))
import rope_reference  # noqa: E402
import sinusoidal_reference  # noqa: E402

FAILURES = []


def run(exe, args):
    p = subprocess.run([exe, "check"] + args, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def flags_of(candidate):
    words = candidate["flags"].split()
    return {words[k]: words[k + 1] for k in range(0, len(words) - 1, 2) if words[k].startswith("--")}


def expect(name, exe, path, code, verdict=None, flags=None, extra=()):
    rc, out, err = run(exe, [path, "--json"] + list(extra))
    if rc != code:
        FAILURES.append(f"{name}: exit {rc}, expected {code}\n{out}{err}")
        return None
    if code == 2:
        return None
    report = json.loads(out)
    if verdict is not None and report["verdict"] != verdict:
        FAILURES.append(f"{name}: verdict {report['verdict']}, expected {verdict}\n{out}")
    best = flags_of(report["candidates"][0])
    for key, value in (flags or {}).items():
        got = best.get(key)
        same = got == value
        if not same and got is not None:
            try:
                same = float(got) == float(value)
            except ValueError:
                pass
        if not same:
            FAILURES.append(f"{name}: {key} {got}, expected {value}\n{report['candidates'][0]}")
    return report


def rope_table(case, length, pairing, part):
    dim, _, attention, inv = rope_reference.scaled_frequencies(case)
    freqs = np.arange(length, dtype=np.float64)[:, None] * inv[None, :]
    emb = np.concatenate([freqs, freqs], axis=1) if pairing == "half" else np.repeat(freqs, 2, axis=1)
    return (attention * (np.cos(emb) if part == "cos" else np.sin(emb))).astype(np.float32)


def main():
    exe = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix="pe-check-")

    def save(name, table):
        path = os.path.join(tmp, name + ".npy")
        np.save(path, np.ascontiguousarray(table))
        return path

    # Presets, as their code writes them, at an even and an odd width where the code allows.
    presets = {
        "fairseq": ({"--variant": "t2t", "--offset": "2"}, [64, 33]),
        "tensor2tensor": ({"--variant": "t2t"}, [48, 31]),
        "marian": ({"--variant": "tf-text"}, [64, 45]),
        "distilbert": ({"--variant": "paper"}, [32, 27]),
        "musicgen": ({"--variant": "t2t", "--order": "cos-first"}, [40]),
        "opennmt-tf": ({"--variant": "t2t", "--offset": "1"}, [96]),
        "x-transformers": ({"--variant": "tf-text", "--output-scale": str(64 ** -0.5)}, [64]),
    }
    for name, (flags, widths) in presets.items():
        for d in widths:
            table = sinusoidal_reference.reference_table(name, d, 120).astype(np.float32)
            expect(f"{name} d={d}", exe, save(f"{name}_{d}", table), 0, "match",
                   dict(flags, **{"--base": "10000"}))

    # tensor2tensor with another base, min timescale and a first position.
    t2t = sinusoidal_reference.tensor2tensor(40, 90, min_timescale=2.0, max_timescale=5.0e3,
                                             start_index=7)
    expect("t2t min 2 max 5000 from 7", exe, save("t2t_min", t2t.astype(np.float32)), 0, "match",
           {"--variant": "t2t", "--base": "5000", "--min-timescale": "2", "--offset": "7"})

    # RoPE: every scaling of rope_reference.py at d = 64, both pairings and parts.
    cases = [
        dict(d_model=64, theta=10000.0, scaling="none"),
        dict(d_model=64, theta=500000.0, scaling="none"),
        dict(d_model=64, theta=10000.0, scaling="linear", factor=4.0),
        dict(d_model=64, theta=10000.0, scaling="ntk", factor=8.0),
        dict(d_model=64, theta=10000.0, scaling="yarn", factor=8.0, original=2048),
        dict(d_model=64, theta=500000.0, scaling="llama3", factor=8.0, low=1.0, high=4.0,
             original=8192),
    ]
    for case in cases:
        for pairing in ("half", "interleaved"):
            for part in ("cos", "sin"):
                label = f"rope {case['scaling']} theta {case['theta']:g} {pairing} {part}"
                want = {"--rope-pairing": pairing, "--part": part,
                        "--rope-theta": f"{case['theta']:g}"}
                if case["scaling"] != "none":
                    want["--rope-scaling"] = case["scaling"]
                    want["--scaling-factor"] = f"{case['factor']:g}"
                table = rope_table(case, 2048, pairing, part)
                expect(label, exe, save(label.replace(" ", "_"), table), 0, "match", want)

    # The PyTorch tutorial (pytorch/tutorials beginner_source/transformer_tutorial.py) in
    # float32: recognised as float32, not refused.
    length, d = 2048, 128
    position = np.arange(length, dtype=np.float32)[:, None]
    div = np.exp(np.arange(0, d, 2, dtype=np.float32) * np.float32(-np.log(10000.0) / d))
    pe = np.zeros((length, d), np.float32)
    pe[:, 0::2] = np.sin(position * div)
    pe[:, 1::2] = np.cos(position * div)
    report = expect("pytorch tutorial in float32", exe, save("f32", pe), 0, "float32",
                    {"--variant": "paper", "--base": "10000"})
    if report and not any("float32" in n for n in report["notes"]):
        FAILURES.append("float32 table: no note explains float32")

    exact = sinusoidal_reference.reference_table("tensor2tensor", 64, 100)
    rng = np.random.default_rng(0)
    expect("noise", exe, save("noise", (exact + rng.normal(0, 1e-3, exact.shape)).astype(np.float32)), 1,
           "no match")
    expect("shuffled rows", exe, save("shuffled", exact[rng.permutation(100)].astype(np.float32)), 1,
           "no match")
    report = expect("transposed", exe, save("transposed", exact.T.astype(np.float32)), 1, "no match")
    if report and not any("transposed" in n for n in report["notes"]):
        FAILURES.append(f"transposed: no note says so: {report['notes']}")
    # A fixed parameter that contradicts the table: no match.
    expect("fixed offset", exe, save("t2t_plain", exact.astype(np.float32)), 1, "no match",
           extra=["--offset", "3"])
    # A safetensors file (header written here as the format's spec says) with two tensors: the
    # table in float16 matches within float16 rounding; no tensor named is refused (exit 2).
    half = sinusoidal_reference.reference_table("fairseq", 32, 64).astype(np.float16)
    other = np.zeros((3, 3), np.float32)
    header = {"pe.weight": {"dtype": "F16", "shape": list(half.shape),
                            "data_offsets": [0, half.nbytes]},
              "other": {"dtype": "F32", "shape": [3, 3],
                        "data_offsets": [half.nbytes, half.nbytes + other.nbytes]}}
    blob = json.dumps(header).encode()
    blob += b" " * (-len(blob) % 8)
    st = os.path.join(tmp, "model.safetensors")
    with open(st, "wb") as f:
        f.write(len(blob).to_bytes(8, "little") + blob + half.tobytes() + other.tobytes())
    report = expect("safetensors float16", exe, st + ":pe.weight", 0, "match",
                    {"--variant": "t2t", "--offset": "2", "--base": "10000"})
    if report and "--output-scale" in report["candidates"][0]["flags"]:
        FAILURES.append(f"float16 table: a scale was read: {report['candidates'][0]['flags']}")
    expect("safetensors without a tensor name", exe, st, 2)
    expect("missing file", exe, os.path.join(tmp, "absent.npy"), 2)
    expect("1-D array", exe, save("flat", np.zeros(10, np.float32)), 2)

    for f in FAILURES:
        print("FAIL:", f)
    print(f"{'FAILED' if FAILURES else 'ok'}: check on numpy tables")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
