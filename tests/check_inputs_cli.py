#!/usr/bin/python3
"""`pe-explorer check` on the inputs other than one (L, d) table: a RoPE frequency vector
(--inv-freq), a cos and a sin tensor of one safetensors file (FILE:COS,SIN), and the cache
layouts engines keep (vLLM's [cos | sin] cos_sin_cache, one column per pair).

    check_inputs_cli.py PE_EXPLORER

The vectors are built here as the named code builds them:
- HF transformers modeling_rope_utils.py: _compute_default_rope_parameters
  (1 / base ** (arange(0, dim, 2) / dim)), _compute_llama3_parameters, _compute_yarn_parameters
  and the proportional type, redone in float64 in tests/reference/rope_reference.py, rounded
  once to float32; and the same default and Llama 3 vectors computed step by step in float32 as
  torch does (the check must accept both);
- the bugs: the scaling left out, the exponent i/d, Gemma 4's proportional vector with the
  exponent over the rotated dims only (partial), one element changed;
- caches: HF's cos and sin (LlamaRotaryEmbedding.forward: cat(freqs, freqs)) in one
  safetensors file, swapped names, and vLLM's cos_sin_cache (rotary_embedding.py
  _compute_cos_sin_cache: cat(cos, sin) of freqs = outer(t, inv_freq)).
Each case states the exit code, the diagnosis classes ("diagnosis": [{"class": ...}]) and the
flags the identification must hold. Exit status 1 if any case fails.
"""

import json
import math
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "reference"))
import rope_reference  # noqa: E402

FAILURES = []
LLAMA31 = dict(d_model=128, theta=500000.0, scaling="llama3", factor=8.0, low=1.0, high=4.0,
               original=8192)
# DeepSeek-V3's rope part: qk_rope_head_dim 64, YaRN factor 40 over 4096, mscale 1 / 1.
DEEPSEEK = dict(d_model=64, theta=10000.0, scaling="yarn", factor=40.0, original=4096,
                beta_fast=32.0, beta_slow=1.0, mscale=1.0, mscale_all_dim=1.0)
# Gemma 4's global layers: head 512, proportional with partial_rotary_factor 0.25, theta 1e6.
GEMMA4 = dict(d_model=512, theta=1e6, scaling="none", proportion=0.25)


def flags_of(text):
    words = text.split()
    return {words[k]: words[k + 1] for k in range(0, len(words) - 1, 2)
            if words[k].startswith("--")}


def expect(name, exe, args, code, classes=(), identified=None, values=None):
    p = subprocess.run([exe, "check", "--json"] + args, capture_output=True, text=True)
    if p.returncode != code:
        FAILURES.append(f"{name}: exit {p.returncode}, expected {code}\n{p.stdout}{p.stderr}")
        return None
    if code == 2:
        if not p.stderr.startswith("pe-explorer"):
            FAILURES.append(f"{name}: no message on stderr: {p.stderr!r}")
        return None
    report = json.loads(p.stdout)
    got = [d["class"] for d in report["diagnosis"]]
    if got != list(classes):
        FAILURES.append(f"{name}: diagnosis {got}, expected {list(classes)}\n"
                        + json.dumps(report["diagnosis"], indent=1))
    for kind, value in (values or {}).items():
        found = [d.get("value") for d in report["diagnosis"] if d["class"] == kind]
        if not found or found[0] is None or abs(found[0] - value) > 1e-9 * max(1, abs(value)):
            FAILURES.append(f"{name}: {kind} names {found}, expected {value}")
    if identified:
        have = flags_of(report["identified"]["flags"]) if report.get("identified") else {}
        for key, value in identified.items():
            same = have.get(key) == value
            if not same and have.get(key) is not None:
                try:
                    same = float(have[key]) == float(value)
                except ValueError:
                    pass
            if not same:
                FAILURES.append(f"{name}: identified {key} {have.get(key)}, expected {value}\n"
                                f"{report.get('identified')}")
    return report


def inv_freq(case):
    return rope_reference.scaled_frequencies(case)[3]


def torch_float32_default(base, dim):
    """HF's default inv_freq as torch computes it: every step in float32."""
    exponent = np.arange(0, dim, 2, dtype=np.int64).astype(np.float32) / np.float32(dim)
    return (np.float32(1.0) / (np.float32(base) ** exponent)).astype(np.float32)


def torch_float32_llama3(case):
    """_compute_llama3_parameters in float32 (torch.where over float32 tensors)."""
    inv = torch_float32_default(case["theta"], case["d_model"])
    f32 = np.float32
    factor, low, high, original = (f32(case["factor"]), f32(case["low"]), f32(case["high"]),
                                   f32(case["original"]))
    wavelen = f32(2 * math.pi) / inv
    scaled = np.where(wavelen > original / low, inv / factor, inv).astype(np.float32)
    smooth = ((original / wavelen - low) / (high - low)).astype(np.float32)
    smoothed = ((f32(1) - smooth) * scaled / factor + smooth * scaled).astype(np.float32)
    medium = ~(wavelen < original / high) & ~(wavelen > original / low)
    return np.where(medium, smoothed, scaled).astype(np.float32)


def to_bf16_bits(array):
    """float32 -> bfloat16 (round to nearest even), as uint16 words."""
    bits = np.ascontiguousarray(array.astype(np.float32)).view(np.uint32).astype(np.uint64)
    return (((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF).astype(np.uint16)


def write_safetensors(path, tensors, dtype="F32"):
    header, blobs, offset = {}, [], 0
    for name, array in tensors.items():
        if dtype == "BF16":
            a = to_bf16_bits(array)
        else:
            a = np.ascontiguousarray(array.astype(np.float16 if dtype == "F16" else np.float32))
        header[name] = {"dtype": dtype, "shape": list(a.shape),
                        "data_offsets": [offset, offset + a.nbytes]}
        blobs.append(a.tobytes())
        offset += a.nbytes
    blob = json.dumps(header).encode()
    blob += b" " * (-len(blob) % 8)
    with open(path, "wb") as f:
        f.write(len(blob).to_bytes(8, "little") + blob + b"".join(blobs))


def main():
    exe = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix="pe-inputs-")

    def save(name, array):
        path = os.path.join(tmp, name + ".npy")
        np.save(path, np.ascontiguousarray(array))
        return path

    # --inv-freq: identification without an intent.
    llama = save("llama31_inv", inv_freq(LLAMA31).astype(np.float32))
    expect("llama 3.1 inv_freq", exe, ["--inv-freq", llama], 0,
           identified={"--rope-theta": "500000", "--rope-scaling": "llama3",
                       "--scaling-factor": "8", "--original-max-len": "8192", "--d-model": "128"})
    expect("llama 3.1 inv_freq in float32 steps", exe,
           ["--inv-freq", save("llama31_f32", torch_float32_llama3(LLAMA31))], 0,
           identified={"--rope-theta": "500000", "--rope-scaling": "llama3"})
    expect("llama 3.1 inv_freq against its model", exe,
           ["--inv-freq", llama, "--model", "llama-3.1-8b", "--layer", "0"], 0)
    deepseek = save("deepseek_inv", inv_freq(DEEPSEEK).astype(np.float32))
    expect("deepseek-v3 inv_freq", exe, ["--inv-freq", deepseek], 0,
           identified={"--rope-theta": "10000", "--rope-scaling": "yarn",
                       "--scaling-factor": "40", "--original-max-len": "4096", "--d-model": "64"})
    expect("deepseek-v3 inv_freq against its model", exe,
           ["--inv-freq", deepseek, "--model", "deepseek-v3", "--layer", "0"], 0)
    gemma = save("gemma4_inv", inv_freq(GEMMA4).astype(np.float32))
    expect("gemma 4 proportional inv_freq", exe, ["--inv-freq", gemma], 0,
           identified={"--rope-theta": "1000000", "--rope-proportion": "0.25",
                       "--d-model": "512"})
    plain = save("plain_f32", torch_float32_default(10000.0, 128))
    expect("default inv_freq in float32 steps", exe, ["--inv-freq", plain, "--rope-theta", "10000"],
           0)

    # --inv-freq: the bugs, against what was meant.
    unscaled = save("llama31_unscaled", rope_reference.default_inv_freq(500000.0, 128)
                    .astype(np.float32))
    expect("llama 3.1 without its scaling", exe,
           ["--inv-freq", unscaled, "--model", "llama-3.1-8b", "--layer", "0"], 1, ["scaling"],
           values={"scaling": 1.0}, identified={"--rope-theta": "500000"})
    expect("llama 3.1 without its scaling, flags", exe,
           ["--inv-freq", unscaled, "--rope-theta", "500000", "--rope-scaling", "llama3",
            "--scaling-factor", "8", "--original-max-len", "8192"], 1, ["scaling"])
    i_over_d = save("i_over_d", (1.0 / 10000.0 ** (np.arange(64) / 128.0)).astype(np.float32))
    report = expect("exponent i/d", exe, ["--inv-freq", i_over_d, "--rope-theta", "10000"], 1,
                    ["exponent"], identified={"--rope-theta": "100"})
    rotated_only = inv_freq(GEMMA4).copy()
    k = int(0.25 * 512 // 2)
    rotated_only[:k] = rope_reference.default_inv_freq(1e6, 2 * k)
    expect("gemma 4 with the exponent over the rotated dims", exe,
           ["--inv-freq", save("gemma4_partial", rotated_only.astype(np.float32)),
            "--rope-theta", "1000000", "--rope-proportion", "0.25"], 1, ["partial"])
    one_off = inv_freq(LLAMA31).astype(np.float32)
    one_off[40] *= np.float32(1.001)
    report = expect("llama 3.1 with one element off", exe,
                    ["--inv-freq", save("llama31_one_off", one_off)], 1, ["cells"],
                    values={"cells": 1.0}, identified={"--rope-scaling": "llama3"})
    plain_off = rope_reference.default_inv_freq(10000.0, 128).astype(np.float32)
    plain_off[5] *= np.float32(1.01)
    rep = expect("theta 10000 with one fast element off", exe,
                 ["--inv-freq", save("plain_one_off", plain_off)], 1, ["cells"],
                 values={"cells": 1.0}, identified={"--rope-theta": "10000"})
    if rep and (not rep["worst_cells"] or rep["worst_cells"][0]["pair"] != 5
                or len(rep["worst_cells"]) != 1):
        FAILURES.append(f"one fast element off: worst cells {rep and rep['worst_cells']}")
    if report and (not report["worst_cells"] or report["worst_cells"][0]["pair"] != 40):
        FAILURES.append(f"one element off: worst cells {report and report['worst_cells']}")
    expect("llama 3.1 with one element off, against its model", exe,
           ["--inv-freq", save("llama31_one_off", one_off), "--model", "llama-3.1-8b",
            "--layer", "0"], 1, ["cells"], values={"cells": 1.0})

    # FILE:COS,SIN: HF's cos and sin (LlamaRotaryEmbedding.forward) in one safetensors file.
    freqs = np.outer(np.arange(2048, dtype=np.float64), inv_freq(LLAMA31))
    emb = np.concatenate([freqs, freqs], axis=1)
    st = os.path.join(tmp, "rotary.safetensors")
    write_safetensors(st, {"cos": np.cos(emb), "sin": np.sin(emb)})
    report = expect("hf cos and sin", exe, [st + ":cos,sin"], 0,
                    identified={"--rope-theta": "500000", "--rope-scaling": "llama3"})
    if report and (report["input"] != "cos,sin" or not report["cos"]["matches"]
                   or not report["sin"]["matches"]):
        FAILURES.append(f"hf cos and sin: {report['input']}, cos {report['cos']['matches']}, "
                        f"sin {report['sin']['matches']}")
    expect("hf cos and sin against the model", exe,
           [st + ":cos,sin", "--model", "llama-3.1-8b", "--layer", "0"], 0)
    expect("hf cos and sin swapped", exe, [st + ":sin,cos"], 1, ["order"])
    expect("hf cos and sin swapped, against the model", exe,
           [st + ":sin,cos", "--model", "llama-3.1-8b", "--layer", "0"], 1, ["order"])
    expect("cos,sin with a missing tensor", exe, [st + ":cos,absent"], 2)
    expect("cos,sin with an empty name", exe, [st + ":cos,"], 2)

    # The same pair stored as bfloat16 and float16 tensors: read at their rounding (theta 10000
    # from a bf16 table reads about 9960 before snapping to what was typed).
    for dtype in ("BF16", "F16"):
        path = os.path.join(tmp, f"rotary_{dtype}.safetensors")
        short = np.outer(np.arange(256, dtype=np.float64),
                         rope_reference.default_inv_freq(10000.0, 128))
        short = np.concatenate([short, short], axis=1)
        write_safetensors(path, {"cos": np.cos(short), "sin": np.sin(short)}, dtype)
        expect(f"cos and sin in {dtype}", exe, [path + ":cos,sin"], 0,
               identified={"--rope-theta": "10000"})

    # vLLM's cos_sin_cache: cat(cos, sin) of outer(t, inv_freq), one column per pair.
    cache = np.concatenate([np.cos(freqs), np.sin(freqs)], axis=1).astype(np.float32)
    report = expect("vllm cos_sin_cache", exe, [save("cos_sin_cache", cache)], 0,
                    identified={"--rope-theta": "500000", "--rope-scaling": "llama3",
                                "--scaling-factor": "8"})
    if report and "cos_sin_cache" not in report.get("layout", ""):
        FAILURES.append(f"cos_sin_cache: layout {report.get('layout')}")
    unscaled_freqs = np.outer(np.arange(2048, dtype=np.float64),
                              rope_reference.default_inv_freq(500000.0, 128))
    no_scaling = np.concatenate([np.cos(unscaled_freqs), np.sin(unscaled_freqs)], axis=1)
    expect("vllm cos_sin_cache without the scaling, against the model", exe,
           [save("cache_unscaled", no_scaling.astype(np.float32)), "--model", "llama-3.1-8b",
            "--layer", "0"], 1, ["scaling"])
    # Meta's freqs_cis = polar(1, freqs), kept as view_as_real: (L, d/2, 2).
    polar = np.stack([np.cos(freqs), np.sin(freqs)], axis=-1).astype(np.float32)
    report = expect("meta freqs_cis as real pairs", exe, [save("freqs_cis", polar)], 0,
                    identified={"--rope-theta": "500000", "--rope-scaling": "llama3"})
    if report and not report.get("one_column_per_pair"):
        FAILURES.append(f"freqs_cis: not read one column per pair: {report.get('layout')}")
    # A cos table with one column per pair.
    report = expect("cos one column per pair", exe,
                    [save("cos_per_pair", np.cos(freqs).astype(np.float32))], 0,
                    identified={"--rope-theta": "500000", "--rope-scaling": "llama3"})
    if report and not any("one column per pair" in n for n in report["notes"]):
        FAILURES.append(f"cos one column per pair: no note says so: {report['notes']}")

    # A cache rounded to bfloat16 (as model.to(torch.bfloat16) rounds HF's cos buffer) and saved
    # as float32: the dtype finding, with the convention still named.
    cos32 = np.cos(emb).astype(np.float32)
    bits = cos32.view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    bf16 = bits.astype(np.uint32).view(np.float32)
    bf16_path = save("cos_bf16", bf16)
    expect("bf16 cos saved as float32", exe, [bf16_path], 0, ["dtype"],
           values={"dtype": 8.0}, identified={"--rope-theta": "500000", "--rope-scaling": "llama3"})
    expect("bf16 cos saved as float32, against the model", exe,
           [bf16_path, "--model", "llama-3.1-8b", "--layer", "0"], 1, ["dtype"])
    expect("float16 cos saved as float32", exe,
           [save("cos_f16", cos32.astype(np.float16).astype(np.float32))], 0, ["dtype"],
           values={"dtype": 11.0})

    # --rotated / --unrotated: q before and after apply-rotary, both pairings, in float32 as
    # torch computes them (HF apply_rotary_pos_emb: q * cos + rotate_half(q) * sin; GPT-J's
    # rotate_every_two with repeat_interleave'd cos and sin).
    rng = np.random.default_rng(7)
    q = rng.standard_normal((256, 128)).astype(np.float32)
    f = np.outer(np.arange(256, dtype=np.float64), inv_freq(LLAMA31))
    cos_h = np.concatenate([np.cos(f), np.cos(f)], axis=1).astype(np.float32)
    sin_h = np.concatenate([np.sin(f), np.sin(f)], axis=1).astype(np.float32)
    rotate_half = np.concatenate([-q[:, 64:], q[:, :64]], axis=1)
    q_half = (q * cos_h + rotate_half * sin_h).astype(np.float32)
    cos_i = np.repeat(np.cos(f), 2, axis=1).astype(np.float32)
    sin_i = np.repeat(np.sin(f), 2, axis=1).astype(np.float32)
    every_two = np.stack([-q[:, 1::2], q[:, 0::2]], axis=-1).reshape(q.shape)
    q_inter = (q * cos_i + every_two * sin_i).astype(np.float32)
    q_path = save("q", q)
    half_path, inter_path = save("q_half", q_half), save("q_inter", q_inter)
    report = expect("rotation, half pairs", exe, ["--rotated", half_path, "--unrotated", q_path],
                    0, identified={"--rope-theta": "500000", "--rope-scaling": "llama3"})
    if report and report.get("pairing") != "half":
        FAILURES.append(f"rotation, half pairs: pairing {report.get('pairing')}")
    report = expect("rotation, interleaved pairs", exe,
                    ["--rotated", inter_path, "--unrotated", q_path], 0,
                    identified={"--rope-theta": "500000", "--rope-scaling": "llama3"})
    if report and report.get("pairing") != "interleaved":
        FAILURES.append(f"rotation, interleaved pairs: pairing {report.get('pairing')}")
    expect("rotation, half pairs against the model", exe,
           ["--rotated", half_path, "--unrotated", q_path, "--model", "llama-3.1-8b", "--layer",
            "0"], 0)
    expect("rotation, interleaved pairs where the model's halves were meant", exe,
           ["--rotated", inter_path, "--unrotated", q_path, "--model", "llama-3.1-8b", "--layer",
            "0"], 1, ["pairing"])
    expect("rotation, interleaved pairs with --rope-pairing half", exe,
           ["--rotated", inter_path, "--unrotated", q_path, "--rope-theta", "500000",
            "--rope-scaling", "llama3", "--scaling-factor", "8", "--original-max-len", "8192",
            "--rope-pairing", "half"], 1, ["pairing"])
    expect("not a rotation", exe,
           ["--rotated", save("q_scaled", (q * rng.uniform(0.5, 2, q.shape)).astype(np.float32)),
            "--unrotated", q_path], 2)
    expect("--rotated alone", exe, ["--rotated", half_path], 2)
    expect("--rotated with a table", exe, [llama, "--rotated", half_path, "--unrotated", q_path], 2)

    # What a first trial of these inputs found, each kept fixed:
    # a rotation the wrong way (sin negated) is named, not noise;
    write_safetensors(os.path.join(tmp, "negsin.safetensors"),
                      {"cos": np.cos(emb), "sin": -np.sin(emb)})
    expect("sin negated", exe, [os.path.join(tmp, "negsin.safetensors") + ":cos,sin"], 1,
           ["order"])
    # HF GPT-J's embed_positions, cat(sin, cos) with one column per pair, is its layout, not a
    # swap (rotary_dim 64 of a head of 256: no partial finding against the model);
    gj_freqs = np.outer(np.arange(256, dtype=np.float64),
                        rope_reference.default_inv_freq(10000.0, 64))
    gptj = np.concatenate([np.sin(gj_freqs), np.cos(gj_freqs)], axis=1).astype(np.float32)
    # (with no intent the same numbers are the TensorFlow tutorial's [sin | cos] sinusoid, and
    # are named so)
    expect("gpt-j [sin | cos]", exe, [save("gptj_sincos", gptj)], 0,
           identified={"--variant": "tf-text", "--base": "10000"})
    report = expect("gpt-j [sin | cos] against its model", exe,
                    [save("gptj_sincos", gptj), "--model", "gpt-j-6b", "--layer", "0"], 0)
    if report and "GPT-J" not in report.get("layout", ""):
        FAILURES.append(f"gpt-j [sin | cos]: layout {report.get('layout')}")
    expect("gpt-j interleaved cos against its model", exe,
           [save("gptj_cos", np.repeat(np.cos(gj_freqs), 2, axis=1).astype(np.float32)),
            "--model", "gpt-j-6b", "--layer", "0"], 0)
    # an inv_freq of another length than the model's rotated width is a shape finding;
    expect("inv_freq of the wrong width for a partial model", exe,
           ["--inv-freq", save("inv32", rope_reference.default_inv_freq(10000.0, 32)
                               .astype(np.float32)), "--model", "gpt-neox-20b", "--layer", "0"],
           1, ["shape"], values={"shape": 16.0})
    # DeepSeek-V3's mscale = mscale_all_dim = 1: the attention factor is 1, and a table with it
    # matches the model (HF's interleaved GGUF-free layout: the catalogue's pairing);
    ds_inv = inv_freq(DEEPSEEK)
    ds_freqs = np.outer(np.arange(512, dtype=np.float64), ds_inv)
    ds_cos = np.repeat(np.cos(ds_freqs), 2, axis=1).astype(np.float32)
    expect("deepseek-v3 cos with attention factor 1, against the model", exe,
           [save("ds_cos", ds_cos), "--model", "deepseek-v3", "--layer", "0"], 0)
    # a partial rotation (GPT-NeoX: 32 of 128 dims turn) is read from the columns that turn,
    # and an input left unrotated is refused.
    q_part = q.copy()
    f32 = np.outer(np.arange(256, dtype=np.float64), rope_reference.default_inv_freq(10000.0, 32))
    c32 = np.concatenate([np.cos(f32), np.cos(f32)], axis=1)
    s32 = np.concatenate([np.sin(f32), np.sin(f32)], axis=1)
    head = q[:, :32].astype(np.float64)
    q_part[:, :32] = head * c32 + np.concatenate([-head[:, 16:], head[:, :16]], axis=1) * s32
    report = expect("partial rotation", exe,
                    ["--rotated", save("q_partial", q_part.astype(np.float32)), "--unrotated",
                     q_path], 0, identified={"--rope-theta": "10000"})
    if report and not any("partial rotary" in n for n in report.get("notes", [])):
        FAILURES.append(f"partial rotation: no note: {report and report.get('notes')}")
    expect("nothing rotated", exe, ["--rotated", q_path, "--unrotated", q_path], 2)

    # An M-RoPE cache before its sections merge, (3, L, d) as Qwen2-VL's rotary module returns it:
    # for text every axis's ids are the positions, and the three axes are one RoPE table.
    q_freqs = np.outer(np.arange(300, dtype=np.float64),
                       rope_reference.default_inv_freq(1000000.0, 128))
    q_cos = np.concatenate([np.cos(q_freqs), np.cos(q_freqs)], axis=1)
    mrope = np.stack([q_cos, q_cos, q_cos]).astype(np.float32)
    report = expect("m-rope cache of text", exe, [save("mrope_text", mrope)], 0,
                    identified={"--rope-theta": "1000000"})
    if report and not report.get("axes_equal"):
        FAILURES.append("m-rope cache of text: the axes are not reported equal")
    expect("m-rope cache of text against qwen2-vl", exe,
           [save("mrope_text", mrope), "--model", "qwen2-vl-7b", "--layer", "0"], 0)
    # With an image (its height and width ids repeat), those axes' rows are other positions.
    ids = np.arange(300)
    h_ids = ids.copy()
    h_ids[10:74] = 10 + np.repeat(np.arange(8), 8)
    h_freqs = np.outer(h_ids.astype(np.float64), rope_reference.default_inv_freq(1000000.0, 128))
    h_cos = np.concatenate([np.cos(h_freqs), np.cos(h_freqs)], axis=1)
    expect("m-rope cache with an image", exe,
           [save("mrope_image", np.stack([q_cos, h_cos, q_cos]).astype(np.float32))], 1,
           ["noise"])

    # --inv-freq: bad input.
    expect("inv_freq 2-D", exe, ["--inv-freq", save("two_d", np.ones((4, 8), np.float32))], 2)
    expect("inv_freq negative", exe,
           ["--inv-freq", save("negative", np.array([1.0, -0.5, 0.25], np.float32))], 2)
    expect("inv_freq and a table", exe, [llama, "--inv-freq", llama], 2)
    expect("inv_freq with a sinusoidal intent", exe,
           ["--inv-freq", llama, "--scheme", "sinusoidal"], 2)

    for f in FAILURES:
        print("FAIL:", f)
    print(f"{'FAILED' if FAILURES else 'ok'}: check's other inputs")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
