#!/usr/bin/python3
# Golden values for the built-in catalogue (tests/test_model_catalogue.cpp), worked with numpy
# from each model's OWN reference code, not from PE Explorer's C++. This script regenerates
# tests/model_golden.inc:
#     /usr/bin/python3 tests/model_reference.py
# It reads every assets/models/*.json itself (numpy and the standard library only).
#
# Ported formulas (each function below names its source):
#  - HF transformers src/transformers/modeling_rope_utils.py: _compute_default_rope_parameters,
#    _compute_linear_scaling_rope_parameters, _compute_dynamic_ntk_parameters,
#    _compute_yarn_parameters (get_mscale, find_correction_dim, find_correction_range,
#    linear_ramp_factor), _compute_longrope_parameters, _compute_llama3_parameters,
#    _compute_proportional_rope_parameters; the rotary modules' forward (LlamaRotaryEmbedding:
#    float32 inv_freq times float32 positions, cos / sin times attention_scaling).
#  - DeepSeek-V3 modeling_deepseek.py: yarn_get_mscale and DeepseekV3Attention's softmax_scale
#    (q_head_dim^-0.5 * mscale^2); its q_pe / k_pe permutation makes the pairs interleaved.
#  - Llama 4 (HF models/llama4/modeling_llama4.py): apply_rotary_emb (view_as_complex: pairs
#    2i, 2i+1, i.e. interleaved), Llama4TextAttention's attn_scales
#    (log1p(floor((pos + 1) / floor_scale)) * attn_scale + 1) on the NoPE layers, no_rope_layers
#    and attention_chunk_size.
#  - Qwen2-VL / Qwen3-VL: M-RoPE (apply_multimodal_rotary_pos_emb's mrope_section chunks;
#    Qwen3-VL's apply_interleaved_mrope); text tokens have t = h = w = position.
#  - GPT-J (models/gptj/modeling_gptj.py): create_sinusoidal_positions, rotate_every_two.
#  - BLOOM (models/bloom/modeling_bloom.py): build_alibi_tensor. MPT (llm-foundry / HF
#    models/mpt): build_mpt_alibi_tensor / gen_slopes.
#  - T5 (models/t5/modeling_t5.py): T5Attention._relative_position_bucket.
#  - GPT-NeoX: rotary_pct. Whisper (openai/whisper whisper/model.py, HF modeling_whisper.py):
#    sinusoids.
#
# For every model and each distinct layer treatment (with the layers that have it) the .inc
# gives the per-pair inverse frequencies in float64 and the attention factor, and the cos / sin
# of a few pairs at a few positions twice: "exact" (float64 math rounded once to float32) and
# "hf32" (float32 inv_freq times float32 positions, float32 cos / sin, as the reference computes).
import glob
import json
import math
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
F32 = np.float32


# ---- modeling_rope_utils.py --------------------------------------------------------------------

def default_inv_freq(base, dim, dtype):
    # _compute_default_rope_parameters: 1 / base ** (arange(0, dim, 2).float() / dim)
    expo = np.arange(0, dim, 2).astype(dtype) / dtype(dim)
    return (dtype(1.0) / (dtype(base) ** expo)).astype(dtype)


def linear_inv_freq(base, dim, factor, dtype):
    # _compute_linear_scaling_rope_parameters: default / factor
    return (default_inv_freq(base, dim, dtype) / dtype(factor)).astype(dtype)


def dynamic_inv_freq(base, dim, factor, original, seq_len, dtype):
    # _compute_dynamic_ntk_parameters
    seq_len = max(seq_len, original)
    b = base * ((factor * seq_len / original) - (factor - 1)) ** (dim / (dim - 2))
    return default_inv_freq(b, dim, dtype)


def get_mscale(scale, mscale=1.0):
    # _compute_yarn_parameters.get_mscale and DeepSeek's yarn_get_mscale
    if scale <= 1:
        return 1.0
    return 0.1 * mscale * math.log(scale) + 1.0


def yarn(base, dim, rs, max_pos, dtype):
    # _compute_yarn_parameters (the form with original_max_position_embeddings given: the factor
    # is max_position_embeddings / original, as HF computes it)
    factor = rs["factor"]
    if "original_max_position_embeddings" in rs:
        original = rs["original_max_position_embeddings"]
        factor = max_pos / original
    else:
        original = max_pos
    attention_factor = rs.get("attention_factor")
    mscale, mscale_all_dim = rs.get("mscale"), rs.get("mscale_all_dim")
    if attention_factor is None:
        if mscale and mscale_all_dim:
            attention_factor = float(get_mscale(factor, mscale) / get_mscale(factor, mscale_all_dim))
        else:
            attention_factor = get_mscale(factor)
    beta_fast = rs.get("beta_fast") or 32
    beta_slow = rs.get("beta_slow") or 1
    truncate = rs.get("truncate", True)

    def corr_dim(num_rot):
        return (dim * math.log(original / (num_rot * 2 * math.pi))) / (2 * math.log(base))

    low, high = corr_dim(beta_fast), corr_dim(beta_slow)
    if truncate:
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, dim - 1)
    if low == high:
        high += 0.001
    ramp = np.clip((np.arange(dim // 2, dtype=dtype) - dtype(low)) / dtype(high - low), 0, 1).astype(dtype)
    extra = dtype(1) - ramp
    pos_freqs = dtype(base) ** (np.arange(0, dim, 2).astype(dtype) / dtype(dim))
    inv_extra = dtype(1.0) / pos_freqs
    inv_inter = dtype(1.0) / (dtype(factor) * pos_freqs)
    inv = (inv_inter * (dtype(1) - extra) + inv_extra * extra).astype(dtype)
    return inv, attention_factor


def llama3(base, dim, rs, dtype):
    # _compute_llama3_parameters
    inv = default_inv_freq(base, dim, dtype)
    factor, lo, hi = rs["factor"], rs["low_freq_factor"], rs["high_freq_factor"]
    old = rs["original_max_position_embeddings"]
    low_wl, high_wl = old / lo, old / hi
    wl = dtype(2 * math.pi) / inv
    out = np.where(wl > low_wl, inv / dtype(factor), inv).astype(dtype)
    with np.errstate(divide="ignore", invalid="ignore"):
        smooth = (dtype(old) / wl - dtype(lo)) / dtype(hi - lo)
        smoothed = (dtype(1) - smooth) * out / dtype(factor) + smooth * out
    medium = ~(wl < high_wl) & ~(wl > low_wl)
    return np.where(medium, smoothed, out).astype(dtype)


def longrope(base, dim, rs, max_pos, original, seq_len, dtype):
    # _compute_longrope_parameters (the list chosen as longrope_frequency_update chooses it)
    factor = max_pos / original
    af = rs.get("attention_factor")
    if af is None:
        af = 1.0 if factor <= 1.0 else math.sqrt(1 + math.log(factor) / math.log(original))
    ext = rs["long_factor"] if seq_len > original else rs["short_factor"]
    ext = np.array(ext, dtype=dtype)  # HF: torch.tensor(ext, dtype=float32)
    shape = np.arange(0, dim, 2).astype(dtype) / dtype(dim)
    return (dtype(1.0) / (ext * dtype(base) ** shape)).astype(dtype), af


def proportional(base, head_dim, proportion, factor, dtype):
    # _compute_proportional_rope_parameters (Gemma 4): the first floor(proportion * d / 2)
    # pairs at base^(-2i/d) over the whole head dim, the rest 0; then / factor. No catalogue
    # model uses it yet; kept for models that will.
    n = int(proportion * head_dim // 2)
    inv = np.zeros(head_dim // 2, dtype=dtype)
    inv[:n] = dtype(1.0) / dtype(base) ** (np.arange(0, 2 * n, 2).astype(dtype) / dtype(head_dim))
    return (inv / dtype(factor)).astype(dtype)


# ---- the schedule each model's code builds ----------------------------------------------------

# Gemma3TextConfig's defaults (HF models/gemma3/configuration_gemma3.py): Gemma 3's published
# text_config leaves these out.
GEMMA3_TEXT_DEFAULTS = {"num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256,
                        "max_position_embeddings": 131072, "rope_theta": 1000000.0,
                        "rope_local_base_freq": 10000.0, "sliding_window": 4096,
                        "sliding_window_pattern": 6, "query_pre_attn_scalar": 256}


def text_cfg(cfg):
    c = cfg.get("text_config", cfg)
    if c.get("model_type") == "gemma3_text":
        c = {**GEMMA3_TEXT_DEFAULTS, **c}
    return c


def rope_treatment(c, name, head_dim, dim, base, rs, pairing, max_pos, layers, window, extra=None):
    """A RoPE layer treatment: frequencies for the chosen scaling in float64 and float32."""
    kind = (rs or {}).get("rope_type") or (rs or {}).get("type") or "default"
    if kind == "su":  # Phi-3's first name for longrope (Phi3Config renames it)
        kind = "longrope"
    original = max_pos
    t = {"scheme": "rope", "layers": layers, "d_model": head_dim, "d_rot": dim,
         "pairing": pairing, "theta": float(base), "scaling": kind, "window": window}
    if kind in ("default", "mrope"):
        f = lambda seq, dt: (default_inv_freq(base, dim, dt), 1.0)
    elif kind == "linear":
        f = lambda seq, dt: (linear_inv_freq(base, dim, rs["factor"], dt), 1.0)
    elif kind == "yarn":
        original = rs.get("original_max_position_embeddings", max_pos)
        f = lambda seq, dt: yarn(base, dim, rs, max_pos, dt)
    elif kind == "llama3":
        original = rs["original_max_position_embeddings"]
        f = lambda seq, dt: (llama3(base, dim, rs, dt), 1.0)
    elif kind == "longrope":
        original = c["original_max_position_embeddings"]
        f = lambda seq, dt: longrope(base, dim, rs, max_pos, original, seq, dt)
    elif kind == "dynamic":
        original = rs.get("original_max_position_embeddings", max_pos)
        f = lambda seq, dt: (dynamic_inv_freq(base, dim, rs["factor"], original, seq, dt), 1.0)
    else:
        sys.exit(f"{name}: rope type {kind} not ported")
    t["original"] = original
    positions = sorted({0, 1, 2047, original - 1, original, max_pos - 1, max_pos + 100})
    half = dim // 2
    pairs = sorted({0, 1, half // 4, half // 2, (3 * half) // 4, half - 1})
    # inv_freq at a short sequence (and the long list for LongRoPE)
    inv64, af = f(1, np.float64)
    t["inv_freq"] = [float(x) for x in inv64]
    t["attention_factor"] = float(af)
    if kind == "longrope":
        t["inv_freq_long"] = [float(x) for x in f(max_pos, np.float64)[0]]
    cells = []
    for p in positions:
        seq = p + 1  # the query at p ends a sequence of p + 1 tokens
        i64, af64 = f(seq, np.float64)
        i32, af32 = f(seq, np.float32)
        for j in pairs:
            ang = p * i64[j]
            ce, se = F32(af64 * math.cos(ang)), F32(af64 * math.sin(ang))
            a32 = F32(F32(p) * i32[j])
            ch = F32(np.cos(a32, dtype=np.float32) * F32(af32))
            sh = F32(np.sin(a32, dtype=np.float32) * F32(af32))
            cells.append((p, j, float(i64[j]), float(ce), float(se), float(ch), float(sh)))
    t["cells"] = cells
    if extra:
        t.update(extra)
    return t


def schedule(name, cfg):
    c = text_cfg(cfg)
    mt = cfg.get("model_type", "")
    out = {"name": name}
    causal = ("causal", 0)
    full = ("full", 0)
    if mt == "gpt2":
        n, d, ctx = c["n_layer"], c["n_embd"], c["n_positions"]
        out.update(layers=n, context=ctx, original=0)
        out["treatments"] = [{"scheme": "learned", "layers": list(range(n)), "d_model": d,
                              "window": causal}]
        return out
    if mt == "bert":
        n, d, ctx = c["num_hidden_layers"], c["hidden_size"], c["max_position_embeddings"]
        out.update(layers=n, context=ctx, original=0)
        out["treatments"] = [{"scheme": "learned", "layers": list(range(n)), "d_model": d,
                              "window": full}]
        return out
    if mt == "whisper":
        # WhisperEncoder: embed_positions = sinusoids(max_source_positions, d_model), frozen;
        # WhisperDecoder: a learned table of max_target_positions rows, causal.
        n, d, src = c["encoder_layers"], c["d_model"], c["max_source_positions"]
        nd, tgt = c["decoder_layers"], c["max_target_positions"]
        out.update(layers=n + nd, context=tgt, original=0)
        out["treatments"] = [whisper_treatment(n, d, src),
                             {"scheme": "learned", "layers": list(range(n, n + nd)), "d_model": d,
                              "max_len": tgt, "window": causal}]
        return out
    if mt == "t5":
        # T5Attention: the encoder's self-attention has bidirectional buckets, the decoder's
        # (is_decoder) causal ones; q.k is not scaled (the scale is in the initialisation).
        n, heads = c["num_layers"], c["num_heads"]
        nd = c.get("num_decoder_layers", n)
        out.update(layers=n + nd, context=c.get("n_positions", 512), original=0)
        nb = c.get("relative_attention_num_buckets", 32)  # T5Config's defaults
        md = c.get("relative_attention_max_distance", 128)
        offsets = sorted(set(range(-140, 141)) | {-1000, -500, -200, 200, 500, 1000})
        out["treatments"] = [
            {"scheme": "t5", "layers": list(range(0, n)), "d_model": c["d_kv"], "heads": heads,
             "t5_buckets": nb, "t5_max_distance": md, "bidirectional": True, "window": full,
             "softmax_scale": 1.0, "buckets": [(o, t5_bucket(o, True, nb, md)) for o in offsets]},
            {"scheme": "t5", "layers": list(range(n, n + nd)), "d_model": c["d_kv"],
             "heads": heads, "t5_buckets": nb, "t5_max_distance": md, "bidirectional": False,
             "window": causal, "softmax_scale": 1.0,
             "buckets": [(o, t5_bucket(o, False, nb, md)) for o in offsets]}]
        return out
    if mt == "bloom":
        n, heads, hid = c["n_layer"], c["n_head"], c["hidden_size"]
        out.update(layers=n, context=2048, original=0)
        s64, s32 = bloom_slopes(heads)
        out["treatments"] = [{"scheme": "alibi", "layers": list(range(n)), "d_model": hid // heads,
                              "heads": heads, "slopes": s64, "slopes32": s32, "window": causal}]
        return out
    if mt == "mpt":
        n, heads, hid = c["n_layers"], c["n_heads"], c["d_model"]
        out.update(layers=n, context=c["max_seq_len"], original=0)
        s64, s32 = mpt_slopes(heads, c["attn_config"]["alibi_bias_max"])
        out["treatments"] = [{"scheme": "alibi", "layers": list(range(n)), "d_model": hid // heads,
                              "heads": heads, "slopes": s64, "slopes32": s32, "window": causal}]
        return out

    # RoPE families
    n = c.get("num_hidden_layers") or c.get("n_layer")
    heads = c.get("num_attention_heads") or c.get("n_head")
    hid = c.get("hidden_size") or c.get("n_embd")
    head_dim = c.get("head_dim") or hid // heads
    max_pos = c.get("max_position_embeddings") or c.get("n_positions") or 2048
    base = c.get("rope_theta", 10000.0)
    rs = c.get("rope_scaling")
    all_layers = list(range(n))
    if mt == "gptj":
        # create_sinusoidal_positions over rotary_dim; rotate_every_two: interleaved
        t = rope_treatment(c, name, head_dim, c["rotary_dim"], 10000.0, None, "interleaved",
                           max_pos, all_layers, causal)
        out.update(layers=n, context=max_pos, original=0, treatments=[t])
        return out
    if mt == "gpt_neox":
        dim = int(head_dim * c["rotary_pct"])
        t = rope_treatment(c, name, head_dim, dim, c.get("rotary_emb_base", 10000), None, "half",
                           max_pos, all_layers, causal)
        out.update(layers=n, context=max_pos, original=0, treatments=[t])
        return out
    if mt == "deepseek_v3":
        dim = c["qk_rope_head_dim"]
        q_head_dim = c["qk_nope_head_dim"] + c["qk_rope_head_dim"]
        scale = q_head_dim ** -0.5
        if rs and rs.get("mscale_all_dim"):
            m = get_mscale(rs["factor"], rs["mscale_all_dim"])
            scale = scale * m * m
        t = rope_treatment(c, name, dim, dim, base, rs, "interleaved", max_pos, all_layers, causal,
                           {"softmax_scale": scale})
        out.update(layers=n, context=max_pos, original=rs["original_max_position_embeddings"],
                   treatments=[t])
        return out
    if mt == "modernbert":
        every = c["global_attn_every_n_layers"]
        glob_l = [i for i in all_layers if i % every == 0]
        loc_l = [i for i in all_layers if i % every != 0]
        tg = rope_treatment(c, name, head_dim, head_dim, c["global_rope_theta"], None, "half",
                            max_pos, glob_l, full)
        tl = rope_treatment(c, name, head_dim, head_dim, c["local_rope_theta"], None, "half",
                            max_pos, loc_l, ("sliding-bidirectional", c["local_attention"]))
        out.update(layers=n, context=max_pos, original=0, treatments=[tg, tl])
        return out
    if mt in ("gemma2", "gemma3", "gemma3_text"):
        if "layer_types" in c:
            sliding = [lt == "sliding_attention" for lt in c["layer_types"]]
        elif mt == "gemma2":
            sliding = [i % 2 == 0 for i in all_layers]  # Gemma2Attention: not bool(layer_idx % 2)
        else:
            pat = c.get("sliding_window_pattern", 6)
            sliding = [bool((i + 1) % pat) for i in all_layers]
        scale = c["query_pre_attn_scalar"] ** -0.5
        sl = [i for i in all_layers if sliding[i]]
        gl = [i for i in all_layers if not sliding[i]]
        local_base = c.get("rope_local_base_freq", base)
        ts = rope_treatment(c, name, head_dim, head_dim, local_base, None, "half", max_pos, sl,
                            ("sliding", c["sliding_window"]), {"softmax_scale": scale})
        tg = rope_treatment(c, name, head_dim, head_dim, base, rs, "half", max_pos, gl, causal,
                            {"softmax_scale": scale})
        orig = ts["original"] if tg["original"] == max_pos else tg["original"]
        out.update(layers=n, context=max_pos, original=orig if orig != max_pos else 0,
                   treatments=[ts, tg])
        return out
    if mt in ("llama4", "llama4_text"):
        nope = c.get("no_rope_layers")
        if not nope:
            nope = [int((i + 1) % c.get("no_rope_layer_interval", 4) != 0) for i in all_layers]
        rl = [i for i in all_layers if nope[i]]
        nl = [i for i in all_layers if not nope[i]]
        t = rope_treatment(c, name, head_dim, head_dim, base, rs, "interleaved", max_pos, rl,
                           ("chunked", c["attention_chunk_size"]))
        tn = {"scheme": "none", "layers": nl, "d_model": head_dim, "window": causal}
        if c.get("attn_temperature_tuning"):
            fs, sc = c["floor_scale"], c["attn_scale"]
            ps = sorted({0, 1, fs - 2, fs - 1, fs, 2 * fs - 1, 10 * fs, max_pos - 1})
            tn["temperature"] = (sc, fs)
            tn["temps"] = [(p, float(np.log1p(np.floor((F32(p) + F32(1)) / F32(fs)), dtype=np.float64) * sc + 1))
                           for p in ps]
            tn["temps64"] = [(p, math.log1p(math.floor((p + 1.0) / fs)) * sc + 1) for p in ps]
        out.update(layers=n, context=max_pos, original=t["original"], treatments=[t, tn])
        return out
    if mt == "smollm3":
        nope = c["no_rope_layers"]
        rl = [i for i in all_layers if nope[i]]
        nl = [i for i in all_layers if not nope[i]]
        t = rope_treatment(c, name, head_dim, head_dim, base, rs, "half", max_pos, rl, causal)
        tn = {"scheme": "none", "layers": nl, "d_model": head_dim, "window": causal}
        out.update(layers=n, context=max_pos, original=0, treatments=[t, tn])
        return out
    if mt in ("qwen2_vl", "qwen3_vl", "qwen2_5_vl"):
        sec = rs["mrope_section"]
        interleaved = bool(rs.get("mrope_interleaved"))
        half = head_dim // 2
        if interleaved:  # Qwen3-VL apply_interleaved_mrope
            axes = [0] * half
            for ax, off in ((1, 1), (2, 2)):
                for j in range(off, sec[ax] * 3, 3):
                    axes[j] = ax
        else:  # apply_multimodal_rotary_pos_emb: consecutive chunks t, h, w
            axes = [0] * sec[0] + [1] * sec[1] + [2] * sec[2]
        t = rope_treatment(c, name, head_dim, head_dim, base, None, "half", max_pos, all_layers,
                           causal, {"scheme": "mrope", "section": sec,
                                    "layout": "interleaved" if interleaved else "chunked",
                                    "axes": axes})
        out.update(layers=n, context=max_pos, original=0, treatments=[t])
        return out

    # The Llama-like rest: llama, mistral, qwen2, qwen3, phi3, stablelm, falcon, gpt_oss
    frac = c.get("partial_rotary_factor", 1.0)
    dim = int(head_dim * frac)
    if mt == "gpt_oss":
        types = c["layer_types"]
        sl = [i for i in all_layers if types[i] == "sliding_attention"]
        gl = [i for i in all_layers if types[i] != "sliding_attention"]
        ts = rope_treatment(c, name, head_dim, dim, base, rs, "half", max_pos, sl,
                            ("sliding", c["sliding_window"]))
        tg = rope_treatment(c, name, head_dim, dim, base, rs, "half", max_pos, gl, causal)
        out.update(layers=n, context=max_pos, original=ts["original"], treatments=[ts, tg])
        return out
    window = causal
    if mt == "mistral" and c.get("sliding_window"):
        window = ("sliding", c["sliding_window"])
    t = rope_treatment(c, name, head_dim, dim, base, rs, "half", max_pos, all_layers, window)
    out.update(layers=n, context=max_pos, original=t["original"] if t["original"] != max_pos else 0,
               treatments=[t])
    return out


# ---- absolute and bias schemes ----------------------------------------------------------------

def whisper_treatment(n, channels, length):
    # whisper/model.py sinusoids(length, channels, max_timescale=10000), float32 as torch runs it
    inc = np.log(10000) / (channels // 2 - 1)
    inv32 = np.exp(F32(-inc) * np.arange(channels // 2).astype(F32), dtype=F32)
    cells = []
    for p in sorted({0, 1, 2, 750, length - 1}):
        for k in sorted({0, 1, channels // 8, channels // 4, channels // 2 - 1}):
            w64 = math.exp(-inc * k)
            a32 = F32(F32(p) * inv32[k])
            cells.append((p, k, float(F32(math.sin(p * w64))), float(np.sin(a32, dtype=F32))))
            cells.append((p, k + channels // 2, float(F32(math.cos(p * w64))),
                          float(np.cos(a32, dtype=F32))))
    return {"scheme": "sinusoidal", "layers": list(range(n)), "d_model": channels,
            "max_len": length, "window": ("full", 0), "table_cells": cells}


def t5_bucket(rel, bidirectional, num_buckets, max_distance):
    # T5Attention._relative_position_bucket; rel = memory (key) position - query position
    b = 0
    if bidirectional:
        num_buckets //= 2
        b += (rel > 0) * num_buckets
        rel = abs(rel)
    else:
        rel = -min(rel, 0)
    max_exact = num_buckets // 2
    if rel < max_exact:
        return b + rel
    large = max_exact + int(np.log(F32(rel) / F32(max_exact), dtype=F32) /
                            F32(math.log(max_distance / max_exact)) * F32(num_buckets - max_exact))
    return b + min(large, num_buckets - 1)


def bloom_slopes(num_heads):
    # build_alibi_tensor's slopes (float32 there; the float64 values are powers of two)
    cp2 = 2 ** math.floor(math.log2(num_heads))
    base = 2 ** (-(2 ** -(math.log2(cp2) - 3)))
    # float64: base^k = 2^(e k) with e the base's exponent, exact (a power of two or its square
    # root's rounding), not base ** k, which compounds base's rounding
    e = -(2 ** -(math.log2(cp2) - 3))
    s64 = [2.0 ** (e * k) for k in range(1, cp2 + 1)]
    if cp2 != num_heads:
        eb = 2 ** (-(2 ** -(math.log2(2 * cp2) - 3)))
        rem = min(cp2, num_heads - cp2)
        ee = -(2 ** -(math.log2(2 * cp2) - 3))
        s64 += [2.0 ** (ee * k) for k in range(1, 1 + 2 * rem, 2)]
    s32 = [float(F32(base) ** F32(k)) for k in range(1, cp2 + 1)]
    return s64, s32


def mpt_slopes(n_heads, alibi_bias_max):
    # gen_slopes(n_heads, alibi_bias_max)
    n2 = 2 ** math.ceil(math.log2(n_heads))
    m = np.arange(1, n2 + 1, dtype=np.float64) * (alibi_bias_max / n2)
    s = 1.0 / np.power(2.0, m)
    if n2 != n_heads:
        s = np.concatenate([s[1::2], s[::2]])[:n_heads]
    return [float(x) for x in s], [float(F32(x)) for x in s]


# ---- C++ initialisers -------------------------------------------------------------------------

def d(x):
    r = repr(float(x))
    if r in ("inf", "-inf", "nan"):
        sys.exit("non-finite value")
    return r


def f32(x):
    x = F32(x)
    if x == 0:
        return "0.0f"
    return np.format_float_scientific(x, unique=True) .replace("e+", "e") + "f"


def emit(models):
    o = []
    o.append("// Generated by tests/model_reference.py (numpy port of each model's reference code);")
    o.append("// do not edit: run /usr/bin/python3 tests/model_reference.py to regenerate.")
    o.append("// clang-format off")
    o.append("const std::vector<GoldenModel> kGoldenModels = {")
    for m in models:
        o.append(f'{{"{m["name"]}", {m["layers"]}, {m["context"]}, {m["original"]}, {{')
        for t in m["treatments"]:
            o.append("  GoldenTreatment{")
            o.append(f'    .scheme = "{t["scheme"]}",')
            o.append("    .layers = {" + ",".join(str(i) for i in t["layers"]) + "},")
            o.append(f'    .d_model = {t["d_model"]}, .max_len = {t.get("max_len", m["context"])},')
            o.append(f'    .window = "{t["window"][0]}", .window_size = {t["window"][1]},')
            o.append(f'    .softmax_scale = {d(t.get("softmax_scale", 0.0))},')
            if t["scheme"] in ("rope", "mrope"):
                o.append(f'    .d_rot = {t["d_rot"]}, .pairing = "{t["pairing"]}", .theta = {d(t["theta"])},')
                o.append(f'    .scaling = "{t["scaling"]}", .original = {t["original"]},')
                o.append("    .inv_freq = {" + ",".join(d(x) for x in t["inv_freq"]) + "},")
                if "inv_freq_long" in t:
                    o.append("    .inv_freq_long = {" + ",".join(d(x) for x in t["inv_freq_long"]) + "},")
                o.append(f'    .attention_factor = {d(t["attention_factor"])},')
                o.append("    .cells = {")
                for (p, j, w, ce, se, ch, sh) in t["cells"]:
                    o.append(f"      {{{p},{j},{d(w)},{f32(ce)},{f32(se)},{f32(ch)},{f32(sh)}}},")
                o.append("    },")
                if t["scheme"] == "mrope":
                    o.append("    .section = {" + ",".join(str(x) for x in t["section"]) + "},")
                    o.append(f'    .layout = "{t["layout"]}",')
                    o.append("    .axes = {" + ",".join(str(x) for x in t["axes"]) + "},")
            if "temperature" in t:
                sc, fs = t["temperature"]
                o.append(f"    .temp_scale = {d(sc)}, .temp_floor = {d(fs)},")
                o.append("    .temps = {" + ",".join(
                    f"{{{p},{d(v)},{d(v64)}}}" for (p, v), (_, v64) in zip(t["temps"], t["temps64"])) + "},")
            if t["scheme"] == "alibi":
                o.append(f'    .heads = {t["heads"]},')
                o.append("    .slopes = {" + ",".join(d(x) for x in t["slopes"]) + "},")
                o.append("    .slopes32 = {" + ",".join(f32(x) for x in t["slopes32"]) + "},")
            if t["scheme"] == "t5":
                o.append(f'    .heads = {t["heads"]}, .t5_buckets = {t["t5_buckets"]}, '
                         f'.t5_max_distance = {t["t5_max_distance"]}, '
                         f'.bidirectional = {"true" if t["bidirectional"] else "false"},')
                o.append("    .buckets = {" + ",".join(f"{{{a},{b}}}" for a, b in t["buckets"]) + "},")
            if t["scheme"] == "sinusoidal":
                o.append("    .table_cells = {" + ",".join(
                    f"{{{p},{k},{f32(e)},{f32(h)}}}" for p, k, e, h in t["table_cells"]) + "},")
            o.append("  },")
        o.append("}},")
    o.append("};")
    o.append("// clang-format on")
    return "\n".join(o) + "\n"


def main():
    models = []
    for path in sorted(glob.glob(os.path.join(ROOT, "assets", "models", "*.json"))):
        name = os.path.basename(path)[:-5]
        with open(path) as f:
            cfg = json.load(f)
        models.append(schedule(name, cfg))
    for m in models:  # every layer in exactly one treatment
        seen = sorted(i for t in m["treatments"] for i in t["layers"])
        assert seen == list(range(m["layers"])), m["name"]
    text = emit(models)
    out = os.path.join(HERE, "model_golden.inc")
    with open(out, "w") as f:
        f.write(text)
    print(f"{len(models)} models, {len(text)} bytes -> {out}")


if __name__ == "__main__":
    main()
