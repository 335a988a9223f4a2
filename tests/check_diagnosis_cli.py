#!/usr/bin/python3
"""`pe-explorer check` with and without an intent, on tables built here with numpy the way real
code builds them, with the bugs engineers make in them.

    check_diagnosis_cli.py PE_EXPLORER

Each table is written the way the named code writes it (float64, rounded once to float32):
- HF transformers' rotary cache (models/llama/modeling_llama.py LlamaRotaryEmbedding.forward:
  freqs = outer(t, inv_freq), emb = cat(freqs, freqs), cos = emb.cos(); inv_freq from
  modeling_rope_utils.py, _compute_llama3_parameters / _compute_yarn_parameters, redone in
  tests/reference/rope_reference.py);
- GPT-J's interleaved pairs (models/gptj/modeling_gptj.py create_sinusoidal_positions and
  apply_rotary_pos_emb's repeat_interleave(sin, 2, 3));
- fairseq's SinusoidalPositionalEmbedding, tensor2tensor's get_timing_signal_1d, MusicGen's
  cos-first table and the paper's interleaved table (tests/reference/sinusoidal_reference.py).
The buggy variants: sin and cos swapped, positions from 1, an exponent i/d, a missing scaling,
interleaved pairs where half pairs were meant, angles in float32, one cell changed, a transposed
table, a column extra, noise. Each case states the exit code, the diagnosis classes in the JSON
("diagnosis": [{"class": ...}]) and the number a class names (the shift k, the factor).
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
LLAMA3 = dict(d_model=128, theta=500000.0, scaling="llama3", factor=8.0, low=1.0, high=4.0,
              original=8192)


def run(exe, args):
    p = subprocess.run([exe, "check"] + args, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def flags_of(text):
    words = text.split()
    return {words[k]: words[k + 1] for k in range(0, len(words) - 1, 2) if words[k].startswith("--")}


def expect(name, exe, path, code, classes=(), values=None, extra=(), identified=None):
    """Exit `code`; the diagnosis classes `classes` (in order, exactly); `values`: class ->
    the number it must name; `identified`: flags the identification must hold."""
    rc, out, err = run(exe, [path, "--json"] + list(extra))
    if rc != code:
        FAILURES.append(f"{name}: exit {rc}, expected {code}\n{out}{err}")
        return None
    if code == 2:
        return None
    report = json.loads(out)
    got = [d["class"] for d in report["diagnosis"]]
    if got != list(classes):
        FAILURES.append(f"{name}: diagnosis {got}, expected {list(classes)}\n"
                        + json.dumps(report["diagnosis"], indent=1))
    for kind, value in (values or {}).items():
        found = [d.get("value") for d in report["diagnosis"] if d["class"] == kind]
        if not found or found[0] is None or abs(found[0] - value) > 1e-9 * max(1, abs(value)):
            FAILURES.append(f"{name}: {kind} names {found}, expected {value}")
    if identified:
        have = flags_of(report["identified"]["flags"]) if report["identified"] else {}
        for key, value in identified.items():
            same = have.get(key) == value
            if not same and have.get(key) is not None:
                try:
                    same = float(have[key]) == float(value)
                except ValueError:
                    pass
            if not same:
                FAILURES.append(f"{name}: identified {key} {have.get(key)}, expected {value}\n"
                                f"{report['identified']}")
    return report


def hf_rotary(case, length, part="cos", pairing="half"):
    """HF LlamaRotaryEmbedding (half) or GPT-J (interleaved), float64 then float32."""
    _, _, attention, inv = rope_reference.scaled_frequencies(case)
    freqs = np.outer(np.arange(length, dtype=np.float64), inv)
    emb = np.concatenate([freqs, freqs], axis=1) if pairing == "half" else np.repeat(freqs, 2, 1)
    return (attention * (np.cos(emb) if part == "cos" else np.sin(emb))).astype(np.float32)


def paper_table(d, length, swapped=False, exponent_i_over_d=False, start=0):
    """The paper's interleaved table as the Annotated Transformer writes it (div_term =
    exp(arange(0, d, 2) * -(ln 10000 / d)): sin in the even columns, cos in the odd ones);
    `swapped` puts cos in the even ones, `exponent_i_over_d` divides by 10000^(i/d) with i the
    pair index (the bug of writing arange(d/2) where arange(0, d, 2) was meant)."""
    position = np.arange(start, start + length, dtype=np.float64)[:, None]
    i = np.arange(d // 2, dtype=np.float64) if exponent_i_over_d else np.arange(0, d, 2.0)
    div = np.exp(i * -(np.log(10000.0) / d))
    pe = np.zeros((length, d))
    pe[:, 0::2] = np.cos(position * div) if swapped else np.sin(position * div)
    pe[:, 1::2] = np.sin(position * div) if swapped else np.cos(position * div)
    return pe.astype(np.float32)


def main():
    exe = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix="pe-diagnosis-")

    def save(name, table):
        path = os.path.join(tmp, name + ".npy")
        np.save(path, np.ascontiguousarray(table))
        return path

    llama_flags = ["--rope-theta", "500000", "--rope-scaling", "llama3", "--scaling-factor", "8",
                   "--original-max-len", "8192"]
    clean = hf_rotary(LLAMA3, 2048)
    llama = save("llama3_cos", clean)
    # Without an intent: what is it? With the flags: RoPE is implied, and it is what was meant.
    expect("llama3 clean", exe, llama, 0, identified={"--rope-scaling": "llama3",
                                                     "--scaling-factor": "8"})
    expect("llama3 clean with its flags", exe, llama, 0, extra=llama_flags)
    expect("llama3 clean, theta alone implies rope", exe, llama, 0,
           extra=["--rope-theta", "500000"])
    expect("llama3 meant without scaling", exe, llama, 1, ["scaling"], {"scaling": 8},
           extra=["--rope-theta", "500000", "--rope-scaling", "none"])
    expect("llama3 against --model llama-3.1-8b", exe, llama, 0, extra=["--model", "llama-3.1-8b"])
    # One cell changed by 0.01 at p 1000, j 60 (a slow pair of the scaled band).
    bad = clean.copy()
    bad[1000, 60] += np.float32(0.01)
    one = save("llama3_one_cell", bad)
    for label, extra, code in (("no intent", [], 1), ("intent", llama_flags, 1),
                               ("model", ["--model", "llama-3.1-8b"], 1)):
        report = expect(f"llama3 one cell, {label}", exe, one, code, ["cells"], {"cells": 1},
                        extra=extra, identified={"--rope-scaling": "llama3",
                                                 "--scaling-factor": "8",
                                                 "--original-max-len": "8192"})
        if report:
            cell = report["worst_cells"][0] if report["worst_cells"] else {}
            if (cell.get("position"), cell.get("column")) != (1000, 60) or \
                    abs(cell.get("table", 0) - float(bad[1000, 60])) > 0 or \
                    abs(cell.get("reference", 0) - float(clean[1000, 60])) > 0:
                FAILURES.append(f"llama3 one cell, {label}: worst cell {cell}")
    # The model's scaling missing from the table: the config key is named.
    plain = save("rope_500k", hf_rotary(dict(d_model=128, theta=500000.0, scaling="none"), 2048))
    report = expect("no scaling against llama-3.1-8b", exe, plain, 1, ["scaling"], {"scaling": 1},
                    extra=["--model", "llama-3.1-8b"])
    if report and "rope_scaling.factor is 8" not in report["diagnosis"][0]["text"]:
        FAILURES.append(f"no scaling vs model: {report['diagnosis'][0]['text']}")
    # The same through --model-config: Llama 3.1's config.json (v4 shape, rope_scaling) and the
    # v5 shape (rope_parameters), as the intent.
    config = {"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32,
              "num_hidden_layers": 2, "max_position_embeddings": 131072,
              "rope_theta": 500000.0,
              "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                               "original_max_position_embeddings": 8192, "rope_type": "llama3"}}
    v4 = os.path.join(tmp, "config.json")
    with open(v4, "w") as f:
        json.dump(config, f)
    expect("llama3 against its config.json", exe, llama, 0, extra=["--model-config", v4,
                                                                    "--layer", "1"])
    report = expect("no scaling against config.json", exe, plain, 1, ["scaling"], {"scaling": 1},
                    extra=["--model-config", v4])
    if report and "rope_scaling.factor is 8" not in report["diagnosis"][0]["text"]:
        FAILURES.append(f"no scaling vs config.json: {report['diagnosis'][0]['text']}")
    v5config = dict(config)
    del v5config["rope_scaling"], v5config["rope_theta"]
    v5config["rope_parameters"] = dict(config["rope_scaling"], rope_theta=500000.0)
    v5 = os.path.join(tmp, "v5", "config.json")
    os.makedirs(os.path.dirname(v5))
    with open(v5, "w") as f:
        json.dump(v5config, f)
    report = expect("no scaling against a v5 config.json", exe, plain, 1, ["scaling"],
                    extra=["--model-config", v5])
    if report and "rope_parameters.factor is 8" not in report["diagnosis"][0]["text"]:
        FAILURES.append(f"no scaling vs v5 config.json: {report['diagnosis'][0]['text']}")
    # Another head dim than the model's: `shape`, naming head_dim.
    narrow = save("rope_500k_64", hf_rotary(dict(d_model=64, theta=500000.0, scaling="none"), 256))
    report = expect("head dim 64 against llama-3.1-8b", exe, narrow, 1, ["shape", "scaling"],
                    {"shape": 64}, extra=["--model", "llama-3.1-8b"])
    if report and "head_dim is 128" not in report["diagnosis"][0]["text"]:
        FAILURES.append(f"head dim 64 vs model: {report['diagnosis'] if report else None}")
    # Bad input: --layer alone, an unknown model.
    expect("--layer without a model", exe, llama, 2, extra=["--layer", "1"])
    expect("unknown model", exe, llama, 2, extra=["--model", "llama-9"])
    # Another factor (YaRN 4 where 8 was meant) and another theta.
    yarn4 = dict(d_model=64, theta=10000.0, scaling="yarn", factor=4.0, original=2048)
    expect("yarn factor 4 meant 8", exe, save("yarn4", hf_rotary(yarn4, 2048)), 1, ["scaling"],
           {"scaling": 4}, extra=["--rope-theta", "10000", "--rope-scaling", "yarn",
                                  "--scaling-factor", "8", "--original-max-len", "2048"])
    expect("theta 10000 meant 500000", exe, plain, 1, ["base"], {"base": 500000},
           extra=["--rope-theta", "10000"])
    # Proportional RoPE (Gemma 4; HF _compute_proportional_rope_parameters in
    # rope_reference.py): a quarter of the pairs turn at theta^(-2i/d), the rest are still.
    # A port that takes the exponent over the turning dims only (theta^(-2i/d_rot), partial
    # rotary) reads as base theta^4: `partial`.
    gemma = dict(d_model=128, theta=1000000.0, scaling="none", proportion=0.25)
    prop = save("proportional", hf_rotary(gemma, 1024))
    expect("proportional, no intent", exe, prop, 0, identified={"--rope-proportion": "0.25",
                                                               "--rope-theta": "1000000"})
    prop_flags = ["--rope-theta", "1000000", "--rope-proportion", "0.25"]
    expect("proportional, intent", exe, prop, 0, extra=prop_flags)
    k = 16
    inv = np.concatenate([rope_reference.default_inv_freq(1000000.0, 2 * k), np.zeros(64 - k)])
    freqs = np.outer(np.arange(1024, dtype=np.float64), inv)
    partial = save("partial_port", np.cos(np.concatenate([freqs, freqs], 1)).astype(np.float32))
    expect("partial exponent where proportional was meant", exe, partial, 1, ["partial"],
           {"partial": 1e24}, extra=prop_flags)
    # GPT-J's interleaved pairs where HF's half pairs were meant, and the sin table for cos.
    gptj = save("gptj_sin", hf_rotary(dict(d_model=64, theta=10000.0, scaling="none"), 512,
                                      part="sin", pairing="interleaved"))
    expect("gpt-j interleaved, no intent", exe, gptj, 0,
           identified={"--rope-pairing": "interleaved", "--part": "sin"})
    expect("gpt-j interleaved meant half", exe, gptj, 1, ["pairing"],
           extra=["--rope-pairing", "half", "--part", "sin"])
    expect("sin table meant cos", exe, gptj, 1, ["order"],
           extra=["--rope-pairing", "interleaved", "--part", "cos"])
    # Sinusoidal: sin and cos swapped in the paper's layout.
    swapped = save("paper_swapped", paper_table(64, 256, swapped=True))
    rc, out, _ = run(exe, [swapped, "--json"])
    report = json.loads(out) if out else {}
    if rc != 0 or not any("cos first" in w for w in report.get("warnings", [])):
        FAILURES.append(f"swapped, no intent: exit {rc}, warnings {report.get('warnings')}")
    expect("paper swapped meant sin-first", exe, swapped, 1, ["order"],
           extra=["--variant", "paper", "--order", "sin-first"])
    # MusicGen's cos-first table: a warning without an intent, `order` against sin first.
    musicgen = save("musicgen", sinusoidal_reference.musicgen(64, 200).astype(np.float32))
    rc, out, _ = run(exe, [musicgen, "--json"])
    report = json.loads(out) if out else {}
    if rc != 0 or not report.get("warnings"):
        FAILURES.append(f"musicgen, no intent: exit {rc}, warnings {report.get('warnings')}")
    expect("musicgen meant sin-first", exe, musicgen, 1, ["order"],
           extra=["--variant", "t2t", "--order", "sin-first"])
    # Positions from 1 (OpenNMT-tf) and from 2 (fairseq) checked with --offset 0.
    onmt = save("opennmt", sinusoidal_reference.opennmt_tf(64, 200).astype(np.float32))
    expect("opennmt-tf meant offset 0", exe, onmt, 1, ["offset"], {"offset": 1},
           extra=["--variant", "t2t", "--offset", "0"])
    fairseq = save("fairseq", sinusoidal_reference.fairseq(64, 200).astype(np.float32))
    expect("fairseq meant offset 0", exe, fairseq, 1, ["offset"], {"offset": 2},
           extra=["--offset", "0"])
    expect("fairseq, its own offset", exe, fairseq, 0, extra=["--offset", "2"])
    # The exponent i/d: base 100 read, a warning without intent, `exponent` against 10000.
    half_exp = save("exponent_i_d", paper_table(64, 256, exponent_i_over_d=True))
    rc, out, _ = run(exe, [half_exp, "--json"])
    report = json.loads(out) if out else {}
    if rc != 0 or not any("100" in w for w in report.get("warnings", [])):
        FAILURES.append(f"exponent i/d, no intent: exit {rc}, warnings {report.get('warnings')}")
    expect("exponent i/d meant 2i/d", exe, half_exp, 1, ["exponent"], {"exponent": 100},
           extra=["--variant", "paper", "--base", "10000"])
    # tensor2tensor's halves where the paper's interleaving was meant.
    t2t = save("t2t", sinusoidal_reference.tensor2tensor(64, 200).astype(np.float32))
    expect("t2t meant tf-text", exe, t2t, 1, ["exponent"], extra=["--variant", "tf-text"])
    expect("tf-text meant paper", exe,
           save("marian", sinusoidal_reference.marian(64, 200).astype(np.float32)), 1,
           ["pairing"], extra=["--variant", "paper"])
    # Angles in float32 (the PyTorch tutorial's way): exit 0 without an intent, 1 with one.
    length, d = 2048, 128
    position = np.arange(length, dtype=np.float32)[:, None]
    div = np.exp(np.arange(0, d, 2, dtype=np.float32) * np.float32(-np.log(10000.0) / d))
    f32 = np.zeros((length, d), np.float32)
    f32[:, 0::2] = np.sin(position * div)
    f32[:, 1::2] = np.cos(position * div)
    f32_path = save("f32", f32)
    expect("float32, no intent", exe, f32_path, 0, ["float32"])
    expect("float32, intent", exe, f32_path, 1, ["float32"], extra=["--variant", "paper"])
    # Shapes: transposed, a column extra; noise.
    exact = sinusoidal_reference.tensor2tensor(64, 100)
    expect("transposed", exe, save("transposed", exact.T.astype(np.float32)), 1, ["transposed"])
    expect("transposed, intent", exe, save("transposed2", exact.T.astype(np.float32)), 1,
           ["transposed"], extra=["--variant", "t2t"])
    extra_col = np.concatenate([exact, np.full((100, 1), 0.5)], axis=1).astype(np.float32)
    expect("a column extra", exe, save("extra_col", extra_col), 1, ["shape"])
    rng = np.random.default_rng(0)
    expect("noise", exe, save("noise", (exact + rng.normal(0, 1e-3, exact.shape)).astype(np.float32)),
           1, ["noise"])
    expect("noise, intent", exe, save("noise2", (exact + rng.normal(0, 1e-3, exact.shape))
                                      .astype(np.float32)), 1, ["noise"], extra=["--variant", "t2t"])
    # The text report names the cell and the classes.
    rc, out, _ = run(exe, [one] + llama_flags)
    if rc != 1 or "diagnosis (cells)" not in out or "position 1000, column 60" not in out:
        FAILURES.append(f"text report, one cell: exit {rc}\n{out}")

    for f in FAILURES:
        print("FAIL:", f)
    print(f"{'FAILED' if FAILURES else 'ok'}: check's diagnosis on numpy tables")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
