#!/usr/bin/env python3
"""Side by side, in one run: the tutorial code for the sinusoidal PE table in numpy and in
PyTorch, PE Explorer's engine (pe_bench) and its CLI (pe-explorer export), at the same sizes.
Prints time, ratio to a memset of the same bytes (measured in the same run) and the largest
error against a float64 reference. Then the input layer (lookup, scale by sqrt(d), add PE;
with and without dropout) at batch 8 x 512 tokens x d 1024 in numpy, PyTorch and the engine.

Run with Debian's interpreter so it sees Debian's numpy and torch:
    /usr/bin/python3 bench/peers.py [--build build] [--sizes 8192x1024,32768x4096]
numpy is required for the errors; torch is optional (skipped with a message when absent).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

try:
    import numpy as np
except ImportError:
    sys.exit("peers.py needs numpy: apt-get install python3-numpy, and run /usr/bin/python3")
try:
    import torch
except ImportError:
    torch = None


def best_of(fn, repeat):
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best * 1e3


def numpy_seed(max_len, d, offset=0):
    # The tutorial formula as the seeds write it, in float32.
    pe = np.zeros((max_len, d), dtype=np.float32)
    position = np.arange(offset, offset + max_len, dtype=np.float32)[:, None]
    div_term = np.exp(np.arange(0, d, 2, dtype=np.float32) * np.float32(-np.log(10000.0) / d))
    pe[:, 0::2] = np.sin(position * div_term)
    pe[:, 1::2] = np.cos(position * div_term)
    return pe


def torch_seed(max_len, d, offset=0):
    import math
    pe = torch.zeros(max_len, d)
    position = torch.arange(offset, offset + max_len, dtype=torch.float).unsqueeze(1)
    div_term = torch.exp(torch.arange(0, d, 2).float() * (-math.log(10000.0) / d))
    pe[:, 0::2] = torch.sin(position * div_term)
    pe[:, 1::2] = torch.cos(position * div_term)
    return pe


def max_error(table, offset=0, chunk=2048):
    """Largest |table - PE| with PE computed in float64 (paper layout)."""
    max_len, d = table.shape
    w = 10000.0 ** (-2.0 * (np.arange(d) // 2) / d)
    worst = 0.0
    for r0 in range(0, max_len, chunk):
        pos = np.arange(offset + r0, offset + min(max_len, r0 + chunk), dtype=np.float64)[:, None]
        ang = pos * w
        ref = np.where(np.arange(d) % 2 == 0, np.sin(ang), np.cos(ang))
        worst = max(worst, float(np.abs(table[r0:r0 + chunk].astype(np.float64) - ref).max()))
    return worst


def engine_times(build, max_len, d):
    runs = run_bench(build, f"^BM_(Memset|SinusoidalPE)/{max_len}/{d}(/real_time|/manual_time)?$")
    if not runs:
        return None, None, None
    pe = runs["BM_SinusoidalPE"]
    return bench_ms(runs["BM_Memset"]), bench_ms(pe), pe.get("x_memset")


def run_bench(build, flt):
    """{name without arguments: benchmark} for pe_bench's benchmarks matching `flt`."""
    exe = os.path.join(build, "pe_bench")
    if not os.path.exists(exe):
        return {}
    out = subprocess.run([exe, f"--benchmark_filter={flt}", "--benchmark_format=json",
                          "--benchmark_min_time=0.5"], capture_output=True, text=True, check=True)
    return {b["name"].split("/")[0]: b for b in json.loads(out.stdout)["benchmarks"]}


def bench_ms(b):
    return b["real_time"] * {"ms": 1.0, "us": 1e-3, "ns": 1e-6}[b["time_unit"]]


def input_layer_rows(build, repeat, batch=8, seq=512, d=1024, vocab=1000):
    """The input layer as the engine's benchmark runs it: ids (k * 7919) % vocab, PE rows
    precomputed, output (batch, seq, d)."""
    rows = []
    runs = run_bench(build, f"^BM_(InputLayerOutputMemset|InputLayer|InputLayerDropout)/{batch}/{seq}/{d}"
                            "(/manual_time)?$")
    floor = bench_ms(runs["BM_InputLayerOutputMemset"]) if runs else None
    if runs:
        rows.append(("memset of the output (C)", floor, None))
        rows.append(("PE Explorer engine", bench_ms(runs["BM_InputLayer"]),
                     runs["BM_InputLayer"].get("x_memset")))
        rows.append(("PE Explorer engine, dropout 0.1", bench_ms(runs["BM_InputLayerDropout"]),
                     runs["BM_InputLayerDropout"].get("x_memset")))
    ids = (np.arange(batch * seq, dtype=np.int64) * 7919 % vocab).reshape(batch, seq)
    table = np.random.default_rng(0).standard_normal((vocab, d), dtype=np.float32)
    pe = numpy_seed(seq, d)
    scale = np.float32(np.sqrt(d))
    rows.append(("numpy: table[ids] * sqrt(d) + pe", best_of(lambda: table[ids] * scale + pe, repeat), None))
    if torch is not None:
        emb = torch.nn.Embedding(vocab, d)
        tids, tpe = torch.from_numpy(ids), torch.from_numpy(pe)
        for threads in sorted({1, os.cpu_count() or 1}):
            torch.set_num_threads(threads)
            with torch.no_grad():
                rows.append((f"PyTorch nn.Embedding * sqrt(d) + pe ({threads} thr)",
                             best_of(lambda: emb(tids) * float(scale) + tpe, repeat), None))
                rows.append((f"PyTorch, then dropout 0.1 ({threads} thr)",
                             best_of(lambda: torch.nn.functional.dropout(emb(tids) * float(scale) + tpe, 0.1,
                                                                         training=True), repeat), None))
        torch.set_num_threads(os.cpu_count() or 1)
    return floor, rows


def new_scheme_rows(repeat, n=4096, d=512, heads=12):
    """Peers for the similarity, ALiBi and T5 views, written in numpy after their reference
    implementations (our own code; float32 like the models, errors against float64)."""
    rows = []
    # Similarity: PE . PE^T, (n, n), from the tutorial table.
    pe32 = numpy_seed(n, d)
    out = np.empty((n, n), dtype=np.float32)
    floor = best_of(lambda: out.fill(0.75), repeat)
    rows.append((f"similarity {n} x {n}", "numpy fill of the same bytes", floor, floor, None))
    sim_ms = best_of(lambda: pe32 @ pe32.T, max(1, repeat // 2))
    w = 10000.0 ** (-2.0 * (np.arange(d) // 2) / d)
    ang = np.arange(n, dtype=np.float64)[:, None] * w
    pe64 = np.where(np.arange(d) % 2 == 0, np.sin(ang), np.cos(ang))
    err = float(np.abs((pe32 @ pe32.T).astype(np.float64) - pe64 @ pe64.T).max())
    rows.append((f"similarity {n} x {n}", "numpy pe @ pe.T (float32)", sim_ms, floor, err))
    del out, pe64, ang

    # ALiBi as BLOOM builds it (HF transformers, models/bloom/modeling_bloom.py,
    # build_alibi_tensor): slopes 2^(-8/h k) for the closest power of two of the heads, the
    # interleaved extra heads, times the key's position (cumsum of the mask - 1), (heads, 1, n).
    def bloom_alibi(dtype):
        closest = 2 ** int(np.floor(np.log2(heads)))
        base = dtype(2.0 ** (-(2.0 ** -(np.log2(closest) - 3))))
        slopes = base ** np.arange(1, 1 + closest, dtype=dtype)
        if closest != heads:
            extra = dtype(2.0 ** (-(2.0 ** -(np.log2(2 * closest) - 3))))
            k = min(closest, heads - closest)
            slopes = np.concatenate([slopes, extra ** np.arange(1, 1 + 2 * k, 2, dtype=dtype)])
        mask = np.ones((1, n), dtype=np.int64)
        positions = ((np.cumsum(mask, axis=-1) - 1) * mask)[:, None, :].astype(dtype)
        return (slopes[:, None] * positions).reshape(heads, 1, n)

    a_out = np.empty((heads, 1, n), dtype=np.float32)
    a_floor = best_of(lambda: a_out.fill(0.75), repeat)
    a_ms = best_of(lambda: bloom_alibi(np.float32), repeat)
    a_err = float(np.abs(bloom_alibi(np.float32).astype(np.float64) - bloom_alibi(np.float64)).max())
    rows.append((f"alibi {heads} x {n}", "numpy fill of the same bytes", a_floor, a_floor, None))
    rows.append((f"alibi {heads} x {n}", "numpy, BLOOM's build_alibi_tensor", a_ms, a_floor, a_err))

    # T5 buckets as HF computes them (models/t5/modeling_t5.py, T5Attention.
    # _relative_position_bucket; bidirectional, 32 buckets, max distance 128), (n, n) int64.
    def t5_buckets(ftype, num_buckets=32, max_distance=128):
        rel = np.arange(n, dtype=np.int64)[None, :] - np.arange(n, dtype=np.int64)[:, None]
        num_buckets //= 2
        buckets = (rel > 0).astype(np.int64) * num_buckets
        rel = np.abs(rel)
        max_exact = num_buckets // 2
        is_small = rel < max_exact
        with np.errstate(divide="ignore", invalid="ignore"):  # log 0 where is_small picks rel
            large = max_exact + (np.log(rel.astype(ftype) / ftype(max_exact)) /
                                 ftype(np.log(max_distance / max_exact)) *
                                 ftype(num_buckets - max_exact)).astype(np.int64)
            large = np.minimum(large, num_buckets - 1)
        return buckets + np.where(is_small, rel, large)

    b_out = np.empty((n, n), dtype=np.int64)
    b_floor = best_of(lambda: b_out.fill(3), repeat)
    b_ms = best_of(lambda: t5_buckets(np.float32), max(1, repeat // 2))
    b_err = float(np.abs(t5_buckets(np.float32) - t5_buckets(np.float64)).max())
    rows.append((f"t5 buckets {n} x {n}", "numpy fill of the same bytes (int64)", b_floor, b_floor, None))
    rows.append((f"t5 buckets {n} x {n}", "numpy, HF _relative_position_bucket", b_ms, b_floor, b_err))

    # RoPE's cos and sin caches as HF's rotary embedding builds them (transformers,
    # models/llama/modeling_llama.py, LlamaRotaryEmbedding: inv_freq = 1 / base^(2i / d),
    # freqs = outer(positions, inv_freq), emb = cat(freqs, freqs), then cos and sin), (n, d) each.
    def rope_cache_np(dtype):
        inv_freq = (1.0 / (10000.0 ** (np.arange(0, d, 2, dtype=np.int64).astype(dtype) / dtype(d)))).astype(dtype)
        freqs = np.outer(np.arange(n, dtype=dtype), inv_freq)
        emb = np.concatenate([freqs, freqs], axis=-1)
        return np.cos(emb), np.sin(emb)

    r_out = np.empty((2, n, d), dtype=np.float32)
    r_floor = best_of(lambda: r_out.fill(0.75), repeat)
    r_ms = best_of(lambda: rope_cache_np(np.float32), repeat)
    c64, s64 = rope_cache_np(np.float64)
    c32, s32 = rope_cache_np(np.float32)
    r_err = float(max(np.abs(c32 - c64).max(), np.abs(s32 - s64).max()))
    rows.append((f"rope cos+sin {n} x {d}", "numpy fill of the same bytes", r_floor, r_floor, None))
    rows.append((f"rope cos+sin {n} x {d}", "numpy, HF LlamaRotaryEmbedding", r_ms, r_floor, r_err))
    if torch is None:
        for what in ("similarity pe @ pe.T", "BLOOM build_alibi_tensor", "T5 _relative_position_bucket",
                     "HF rotary cos/sin cache"):
            rows.append(("torch", f"PyTorch {what}: not installed", None, None, None))
        return rows
    # The same four in PyTorch, as the reference code runs them (float32, all threads).
    tpe = torch.from_numpy(pe32)
    rows.append((f"similarity {n} x {n}", "PyTorch pe @ pe.T (float32)",
                 best_of(lambda: tpe @ tpe.T, max(1, repeat // 2)), floor,
                 float(np.abs((tpe @ tpe.T).numpy().astype(np.float64) - pe32.astype(np.float64) @ pe32.T.astype(np.float64)).max())))

    def bloom_alibi_torch():
        closest = 2 ** int(np.floor(np.log2(heads)))
        base = torch.tensor(2 ** (-(2 ** -(np.log2(closest) - 3))), dtype=torch.float32)
        slopes = torch.pow(base, torch.arange(1, 1 + closest, dtype=torch.int32))
        if closest != heads:
            extra = torch.tensor(2 ** (-(2 ** -(np.log2(2 * closest) - 3))), dtype=torch.float32)
            k = min(closest, heads - closest)
            slopes = torch.cat([slopes, torch.pow(extra, torch.arange(1, 1 + 2 * k, 2, dtype=torch.int32))])
        mask = torch.ones((1, n), dtype=torch.int64)
        positions = ((mask.cumsum(dim=-1) - 1) * mask)[:, None, :]
        return (slopes[..., None] * positions).reshape(heads, 1, n)

    rows.append((f"alibi {heads} x {n}", "PyTorch, BLOOM's build_alibi_tensor", best_of(bloom_alibi_torch, repeat),
                 a_floor, float(np.abs(bloom_alibi_torch().numpy().astype(np.float64) - bloom_alibi(np.float64)).max())))

    def t5_buckets_torch(num_buckets=32, max_distance=128):
        ctx = torch.arange(n, dtype=torch.long)
        rel = ctx[None, :] - ctx[:, None]
        num_buckets //= 2
        buckets = (rel > 0).to(torch.long) * num_buckets
        rel = torch.abs(rel)
        max_exact = num_buckets // 2
        is_small = rel < max_exact
        large = max_exact + (torch.log(rel.float() / max_exact) / np.log(max_distance / max_exact) *
                             (num_buckets - max_exact)).to(torch.long)
        large = torch.min(large, torch.full_like(large, num_buckets - 1))
        return buckets + torch.where(is_small, rel, large)

    rows.append((f"t5 buckets {n} x {n}", "PyTorch, HF _relative_position_bucket",
                 best_of(t5_buckets_torch, max(1, repeat // 2)), b_floor,
                 float(np.abs(t5_buckets_torch().numpy() - t5_buckets(np.float64)).max())))

    def rope_cache_torch():
        inv_freq = 1.0 / (10000.0 ** (torch.arange(0, d, 2, dtype=torch.int64).float() / d))
        freqs = torch.outer(torch.arange(n, dtype=torch.float32), inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        return emb.cos(), emb.sin()

    tc, ts = rope_cache_torch()
    rows.append((f"rope cos+sin {n} x {d}", "PyTorch, HF LlamaRotaryEmbedding", best_of(rope_cache_torch, repeat),
                 r_floor, float(max(np.abs(tc.numpy() - c64).max(), np.abs(ts.numpy() - s64).max()))))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build", help="build directory with pe-explorer and pe_bench")
    ap.add_argument("--sizes", default="8192x1024,32768x4096", help="max_len x d_model, comma separated")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    cli = os.path.join(args.build, "pe-explorer")
    if torch is None:
        print("PyTorch not found (apt-get install python3-torch): its rows are skipped.\n")
    else:
        torch.set_num_threads(os.cpu_count() or 1)
    rows = []
    paired_ratios = {}  # the engine's ratio with memset timed beside it in every iteration
    for size in args.sizes.split(","):
        max_len, d = (int(x) for x in size.split("x"))
        label = f"{max_len} x {d}"
        mem_ms, ours_ms, paired = engine_times(args.build, max_len, d)
        buf = np.empty((max_len, d), dtype=np.float32)
        np_fill = best_of(lambda: buf.fill(0.75), args.repeat)
        floor = mem_ms if mem_ms else np_fill
        rows.append((label, "memset of the same bytes (C)" if mem_ms else "numpy fill (no pe_bench)", floor, None))
        if ours_ms:
            rows.append((label, "PE Explorer engine (pe_bench)", ours_ms, None))
            if paired:
                paired_ratios[label] = paired
        with tempfile.TemporaryDirectory(dir="/dev/shm" if os.path.isdir("/dev/shm") else None) as tmp:
            path = os.path.join(tmp, "pe.npy")
            cmd = [cli, "export", "--view", "heatmap", "--d-model", str(d), "--max-len", str(max_len),
                   "--memory-cap-mib", "8192", "-o", path]
            cli_ms = best_of(lambda: subprocess.run(cmd, check=True), max(1, args.repeat // 2))
            ours = np.load(path)
            rows.append((label, "PE Explorer CLI (export .npy, end to end)", cli_ms, max_error(ours)))
        del buf
        table = numpy_seed(max_len, d)
        rows.append((label, "numpy tutorial code (float32)", best_of(lambda: numpy_seed(max_len, d), args.repeat),
                     max_error(table)))
        del table
        if torch is not None:
            t = torch_seed(max_len, d)
            rows.append((label, f"PyTorch tutorial code ({torch.get_num_threads()} threads)",
                         best_of(lambda: torch_seed(max_len, d), args.repeat), max_error(t.numpy())))
            del t
        for i, r in enumerate(rows):
            if r[0] == label and r[3] is None and ours_ms and r[1].startswith("PE Explorer engine"):
                rows[i] = (r[0], r[1], r[2], rows[i + 1][3])  # the engine's numbers are the CLI's
    # Accuracy far from 0: positions 1,000,000 to 1,000,511 at d = 512.
    far = []
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "far.npy")
        subprocess.run([cli, "export", "--view", "heatmap", "--d-model", "512", "--max-len", "512",
                        "--offset", "1000000", "-o", path], check=True)
        far.append(("PE Explorer", max_error(np.load(path), offset=1000000)))
    far.append(("numpy tutorial code (float32)", max_error(numpy_seed(512, 512, 1000000), offset=1000000)))
    if torch is not None:
        far.append(("PyTorch tutorial code", max_error(torch_seed(512, 512, 1000000).numpy(), offset=1000000)))

    print(f"{'table':<14} {'what':<44} {'time ms':>9} {'x memset':>9} {'max err vs f64':>15}")
    for label, what, ms, err in rows:
        floor = next(r[2] for r in rows if r[0] == label)
        err_s = f"{err:.2e}" if err is not None else ""
        print(f"{label:<14} {what:<44} {ms:9.2f} {ms / floor:9.2f} {err_s:>15}")
    for label, ratio in paired_ratios.items():
        print(f"{label:<14} engine vs memset timed alternately in each iteration: {ratio:.2f}x")
    print("\nAccuracy at positions 1,000,000 .. 1,000,511 (d = 512), max error vs float64:")
    for what, err in far:
        print(f"  {what:<32} {err:.2e}")

    print("\nNew schemes' peers (time, ratio to a fill of the same bytes, max error vs float64):")
    for label, what, ms, floor_ms, err in new_scheme_rows(args.repeat):
        if ms is None:
            print(f"  {what}")
            continue
        err_s = f"{err:.2e}" if err is not None else ""
        print(f"  {label:<22} {what:<40} {ms:9.2f} {ms / floor_ms:9.2f} {err_s:>10}")

    floor, il_rows = input_layer_rows(args.build, 4 * args.repeat)
    print("\nInput layer, batch 8 x 512 tokens x d 1024 (float32 output of 16 MiB):")
    print(f"  {'what':<46} {'time ms':>9} {'x memset':>9} {'paired':>7}")
    for what, ms, paired in il_rows:
        ratio = f"{ms / floor:9.2f}" if floor else f"{'':>9}"
        paired_s = f"{paired:7.2f}" if paired else ""
        print(f"  {what:<46} {ms:9.3f} {ratio} {paired_s}")
    print("  (paired: the engine against a memset of its output timed just before it, each iteration)")


if __name__ == "__main__":
    main()
