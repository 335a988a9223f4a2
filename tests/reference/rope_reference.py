#!/usr/bin/python3
"""RoPE frequencies for each rope_scaling, in numpy float64, written from the published formulas
(HF transformers src/transformers/modeling_rope_utils.py, the _compute_*_parameters functions;
the YaRN paper, arXiv 2309.00071; Llama 3.1's scaling) and independently of core/encoding/rope.cpp.
From HF v5's version of that file: YaRN's `truncate` and `mscale` / `mscale_all_dim`
(_compute_yarn_parameters, get_mscale), Llama 3 with low_freq_factor == high_freq_factor
(_compute_llama3_parameters: the smooth factor's 0 / 0 is masked out by torch.where) and the
proportional rope type (_compute_proportional_rope_parameters: rope_angles =
int(proportion * head_dim // 2) pairs at base^(-2i/head_dim), zeros after, then / factor).
It raises bases with ** (numpy pow) where the C++ uses exp / log in long double.

Prints a C++ fragment: one RopeGolden initializer per case, for tests/rope_golden.inc.
Run: /usr/bin/python3 tests/reference/rope_reference.py > tests/rope_golden.inc
"""
import math

import numpy as np


def rotary_dims(d_model, fraction):
    return int(d_model * fraction)


def default_inv_freq(base, dim):
    exponents = np.arange(0, dim, 2, dtype=np.float64) / dim
    return 1.0 / (np.float64(base) ** exponents)


def get_mscale(scale, mscale=1.0):
    """HF _compute_yarn_parameters' get_mscale."""
    if scale <= 1:
        return 1.0
    return 0.1 * mscale * math.log(scale) + 1.0


def rotating_pairs(d_model, proportion):
    """HF _compute_proportional_rope_parameters: int(rope_proportion * head_dim // 2)."""
    return int(proportion * d_model // 2)


def scaled_frequencies(case):
    dim = rotary_dims(case["d_model"], case.get("fraction", 1.0))
    theta = case["theta"]
    kind = case["scaling"]
    factor = case.get("factor", 1.0)
    original = case.get("original", 8192)
    base = theta
    attention = 1.0
    inv = default_inv_freq(theta, dim)
    proportion = case.get("proportion", 1.0)
    if proportion < 1.0:
        k = rotating_pairs(case["d_model"], proportion)
        inv = np.concatenate((default_inv_freq(theta, dim)[:k], np.zeros(dim // 2 - k)))
    if kind == "none":
        scaled = inv
    elif kind == "linear":
        scaled = inv / factor
    elif kind == "ntk":
        base = theta * factor ** (dim / (dim - 2))
        scaled = default_inv_freq(base, dim)
    elif kind == "dynamic-ntk":
        seq = max(case["seq"], original)
        base = theta * ((factor * seq / original) - (factor - 1)) ** (dim / (dim - 2))
        scaled = default_inv_freq(base, dim)
    elif kind == "yarn":
        beta_fast = case.get("beta_fast", 32.0)
        beta_slow = case.get("beta_slow", 1.0)
        attention = case.get("attention")
        mscale = case.get("mscale", 0.0)
        mscale_all_dim = case.get("mscale_all_dim", 0.0)
        if attention is None:
            if mscale and mscale_all_dim:
                attention = get_mscale(factor, mscale) / get_mscale(factor, mscale_all_dim)
            else:
                attention = get_mscale(factor)

        def dim_for(rotations):
            # the pair index whose wavelength fits `rotations` times into the original context
            return dim * math.log(original / (rotations * 2 * math.pi)) / (2 * math.log(theta))

        lo = dim_for(beta_fast)
        hi = dim_for(beta_slow)
        if case.get("truncate", True):
            lo = math.floor(lo)
            hi = math.ceil(hi)
        lo = max(lo, 0)
        hi = min(hi, dim - 1)
        if lo == hi:
            hi += 0.001
        ramp = np.clip((np.arange(dim // 2, dtype=np.float64) - lo) / (hi - lo), 0.0, 1.0)
        extrapolation = 1.0 - ramp  # weight of the unscaled frequency
        pos = np.float64(theta) ** (np.arange(0, dim, 2, dtype=np.float64) / dim)
        scaled = (1.0 / (factor * pos)) * (1.0 - extrapolation) + (1.0 / pos) * extrapolation
    elif kind == "llama3":
        low = case["low"]
        high = case["high"]
        wavelen = 2 * math.pi / inv
        scaled = np.where(wavelen > original / low, inv / factor, inv)
        medium = (wavelen >= original / high) & (wavelen <= original / low)
        with np.errstate(divide="ignore", invalid="ignore"):  # low == high: masked by `medium`
            smooth = (original / wavelen - low) / (high - low)
            scaled = np.where(medium, (1 - smooth) * scaled / factor + smooth * scaled, scaled)
    else:
        raise ValueError(kind)
    return dim, float(base), float(attention), scaled


CASES = [
    dict(name="none", d_model=128, theta=10000.0, scaling="none"),
    dict(name="linear", d_model=128, theta=10000.0, scaling="linear", factor=4.0),
    dict(name="ntk", d_model=128, theta=10000.0, scaling="ntk", factor=8.0),
    dict(name="ntk_partial", d_model=80, fraction=0.4, theta=500000.0, scaling="ntk", factor=3.0),
    dict(name="dynamic_ntk", d_model=128, theta=10000.0, scaling="dynamic-ntk", factor=4.0,
         original=2048, seq=8192),
    dict(name="dynamic_ntk_odd", d_model=64, theta=10000.0, scaling="dynamic-ntk", factor=2.5,
         original=4096, seq=5000),
    dict(name="yarn", d_model=128, theta=10000.0, scaling="yarn", factor=8.0, original=2048),
    # correction dims 20.94 and 45.03: floor / ceil differ from rounding at both ends
    dict(name="yarn_4096", d_model=128, theta=10000.0, scaling="yarn", factor=16.0, original=4096),
    dict(name="yarn_partial", d_model=80, fraction=0.4, theta=500000.0, scaling="yarn",
         factor=4.0, original=8192, beta_fast=16.0, beta_slow=2.0, attention=1.5),
    dict(name="llama3", d_model=128, theta=500000.0, scaling="llama3", factor=8.0, low=1.0,
         high=4.0, original=8192),
    dict(name="llama3_other", d_model=64, theta=10000.0, scaling="llama3", factor=16.0, low=2.0,
         high=8.0, original=4096),
    # GPT-OSS: truncate false keeps the correction range 8.0928 .. 17.3980
    dict(name="yarn_gpt_oss", d_model=64, theta=150000.0, scaling="yarn", factor=32.0,
         original=4096, truncate=False),
    dict(name="yarn_gpt_oss_truncated", d_model=64, theta=150000.0, scaling="yarn", factor=32.0,
         original=4096),
    # Qwen2.5 / Qwen3 (factor 4, original 32768): pairs 23 .. 40
    dict(name="yarn_qwen", d_model=128, theta=1000000.0, scaling="yarn", factor=4.0,
         original=32768),
    # DeepSeek-V3: mscale = mscale_all_dim = 1 gives attention factor 1; pairs 10 .. 23
    dict(name="yarn_deepseek_v3", d_model=64, theta=10000.0, scaling="yarn", factor=40.0,
         original=4096, mscale=1.0, mscale_all_dim=1.0),
    dict(name="yarn_mscale_all_dim_zero", d_model=64, theta=10000.0, scaling="yarn",
         factor=40.0, original=4096, mscale=1.0, mscale_all_dim=0.0),
    dict(name="yarn_mscale_ratio", d_model=64, theta=10000.0, scaling="yarn", factor=40.0,
         original=4096, mscale=1.0, mscale_all_dim=0.707),
    # Llama 4 Scout: low_freq_factor == high_freq_factor == 1, no blend band
    dict(name="llama4_scout", d_model=128, theta=500000.0, scaling="llama3", factor=16.0,
         low=1.0, high=1.0, original=8192),
    # Gemma 4 global layers: proportional, head 256, P 0.25 (32 pairs turn, 96 do not)
    dict(name="proportional_gemma4", d_model=256, theta=1000000.0, scaling="none",
         proportion=0.25),
    dict(name="proportional_linear", d_model=64, theta=10000.0, scaling="linear", factor=8.0,
         proportion=0.3),
]


def cpp_number(v):
    return repr(float(v))


def main():
    print("// Generated by: /usr/bin/python3 tests/reference/rope_reference.py "
          "> tests/rope_golden.inc")
    print("// numpy " + np.__version__ + ", float64. Do not edit by hand.")
    for case in CASES:
        dim, base, attention, scaled = scaled_frequencies(case)
        fields = [
            '"' + case["name"] + '"',
            "RopeScaling::k" + {"none": "None", "linear": "Linear", "ntk": "Ntk",
                                "dynamic-ntk": "DynamicNtk", "yarn": "Yarn",
                                "llama3": "Llama3"}[case["scaling"]],
            str(case["d_model"]),
            cpp_number(case.get("fraction", 1.0)),
            cpp_number(case["theta"]),
            cpp_number(case.get("factor", 1.0)),
            str(case.get("original", 8192)),
            str(case.get("seq", 0)),
            cpp_number(case.get("beta_fast", 32.0)),
            cpp_number(case.get("beta_slow", 1.0)),
            cpp_number(case["attention"]) if case.get("attention") is not None else "0.0",
            cpp_number(case.get("low", 1.0)),
            cpp_number(case.get("high", 4.0)),
            str(dim),
            cpp_number(base),
            cpp_number(attention),
            "true" if case.get("truncate", True) else "false",
            cpp_number(case.get("mscale", 0.0)),
            cpp_number(case.get("mscale_all_dim", 0.0)),
            cpp_number(case.get("proportion", 1.0)),
            str(rotating_pairs(case["d_model"], case.get("proportion", 1.0))
                if case.get("proportion", 1.0) < 1.0 else dim // 2),
        ]
        print("{" + ", ".join(fields) + ",")
        values = [cpp_number(v) for v in scaled]
        print(" {")
        for k in range(0, len(values), 4):
            print("  " + ", ".join(values[k:k + 4]) + ",")
        print(" }},")


if __name__ == "__main__":
    main()
