#!/usr/bin/python3
"""Float64 numpy references for the sinusoidal presets (core/encoding/sinusoidal_presets.cpp).

Each function below redoes, in numpy float64, the arithmetic of the code a preset is named
after, in the order that code does it (its exponent formula, its layout, its padding, the
positions it gives the first tokens), and deliberately not through our variant / order / scale
mapping: that mapping is what the comparison checks. Where the source itself stops (an assert,
a shape error, a division by zero), the function stops the same way, by raising; where it
returns NaN or inf, so does the function; where it returns a table of another width, so does
the function. Callers decide what to do with those cases.

    reference_table(name, d, length) -> float64 array, the source's rows for the first
                                        `length` tokens
    OUTPUT_SCALE[name](d)            -> the largest magnitude a value can have

Run as a script it writes one table:
    sinusoidal_reference.py NAME D L [-o table.npy]     (text to stdout without -o)
    sinusoidal_reference.py --list
It exits with status 3 when the source itself fails for that width.
"""

import argparse
import math
import sys

import numpy as np


# ---- interleaved: sin in the even columns, cos in the odd ones -------------------------------

def annotated_transformer(d, length):
    # harvardnlp/annotated-transformer, the_annotated_transformer.py, PositionalEncoding:
    # a (max_len, d) zero table, div_term = exp(arange(0, d, 2) * -(ln 10000 / d)), then
    # sin(position * div_term) into columns 0::2 and cos into 1::2. For odd d the cos
    # assignment has one column too many and fails.
    table = np.zeros((length, d))
    pos = np.arange(0, length)[:, None]
    div = np.exp(np.arange(0, d, 2) * -(math.log(10000.0) / d))
    table[:, 0::2] = np.sin(pos * div)
    table[:, 1::2] = np.cos(pos * div)
    return table


def pytorch_tutorial(d, length):
    # pytorch/tutorials, beginner_source/transformer_tutorial.py, PositionalEncoding: the same
    # arithmetic, into a (max_len, 1, d) buffer for sequence-first batches.
    pos = np.arange(length)[:, None]
    div = np.exp(np.arange(0, d, 2) * (-math.log(10000.0) / d))
    buf = np.zeros((length, 1, d))
    buf[:, 0, 0::2] = np.sin(pos * div)
    buf[:, 0, 1::2] = np.cos(pos * div)
    return buf[:, 0, :]


def _xlm_angles(d, length):
    # The angle table DistilBERT and Marian share (XLM's create_sinusoidal_embeddings):
    # column j of row pos holds pos / 10000^(2 (j // 2) / d).
    return np.array([[p / np.power(10000, 2 * (j // 2) / d) for j in range(d)]
                     for p in range(length)])


def distilbert(d, length):
    # huggingface/transformers, models/distilbert/modeling_distilbert.py,
    # create_sinusoidal_embeddings: sin of the even angle columns into the even columns, cos of
    # the odd ones into the odd columns. Positions 0, 1, ...
    angles = _xlm_angles(d, length)
    out = np.empty((length, d))
    out[:, 0::2] = np.sin(angles[:, 0::2])
    out[:, 1::2] = np.cos(angles[:, 1::2])
    return out


# ---- [sin | cos] halves with the paper's frequencies ----------------------------------------

def tensorflow_tutorial(d, length):
    # tensorflow/text, docs/tutorials/transformer.ipynb, positional_encoding(length, depth):
    # depth = depth / 2 (a float), rates 1 / 10000^(arange(depth) / depth), concatenate
    # [sin, cos]. For odd d, arange of the float half gives ceil(d/2) rates: d + 1 columns.
    half = d / 2
    positions = np.arange(length)[:, np.newaxis]
    depths = np.arange(half)[np.newaxis, :] / half
    rates = 1 / (10000 ** depths)
    angles = positions * rates
    return np.concatenate([np.sin(angles), np.cos(angles)], axis=-1)


def marian(d, length):
    # huggingface/transformers, models/marian/modeling_marian.py,
    # MarianSinusoidalPositionalEmbedding._init_weight: XLM's angles, sines of the even columns
    # into out[:, :sentinel], cosines of the odd ones after, sentinel = ceil(d / 2). Positions
    # from past_key_values_length = 0.
    angles = _xlm_angles(d, length)
    out = np.empty((length, d))
    sentinel = d // 2 if d % 2 == 0 else d // 2 + 1
    out[:, 0:sentinel] = np.sin(angles[:, 0::2])
    out[:, sentinel:] = np.cos(angles[:, 1::2])
    return out


def sockeye(d, length):
    # awslabs/sockeye, sockeye/layers.py, get_positional_embeddings: refuses odd depth; channels
    # c < d // 2, positions / 10000^(2c / d), hstack [sin, cos]. (scale_down_positions is False
    # in its encoder and decoder.)
    if d % 2 != 0:
        raise ValueError("sockeye needs an even width, got %d" % d)
    channels = np.arange(d // 2)[None, :]
    positions = np.arange(0, length)[:, None]
    scaled = positions / np.power(10000, (2 * channels) / d)
    return np.hstack([np.sin(scaled), np.cos(scaled)])


def x_transformers(d, length):
    # lucidrains/x-transformers, x_transformers/x_transformers.py, ScaledSinusoidalEmbedding:
    # asserts even d; inv_freq = 10000^-(arange(d/2) / (d/2)); outer product with the
    # positions, cat [sin, cos], times the learned scale's starting value d^-0.5.
    assert d % 2 == 0
    half = d // 2
    inv_freq = 10000.0 ** -(np.arange(half) / half)
    pos = np.arange(length).astype(np.float64)
    angles = np.einsum("i,j->ij", pos, inv_freq)
    return np.concatenate([np.sin(angles), np.cos(angles)], axis=-1) * (d ** -0.5)


# ---- [sin | cos] halves with tensor2tensor's frequencies ------------------------------------

def tensor2tensor(d, length, min_timescale=1.0, max_timescale=1.0e4, start_index=0):
    # tensorflow/tensor2tensor, tensor2tensor/layers/common_attention.py, get_timing_signal_1d:
    # increment ln(max / min) / max(h - 1, 1), inv_timescales = min * exp(-i * increment),
    # concat [sin, cos], pad one zero column for odd channels.
    position = (np.arange(length) + start_index).astype(np.float64)
    num_timescales = d // 2
    increment = math.log(float(max_timescale) / float(min_timescale)) / max(
        float(num_timescales) - 1, 1)
    inv_timescales = min_timescale * np.exp(np.arange(num_timescales) * -increment)
    scaled = position[:, None] * inv_timescales[None, :]
    signal = np.concatenate([np.sin(scaled), np.cos(scaled)], axis=1)
    return np.pad(signal, [[0, 0], [0, d % 2]])


def fairseq(d, length, padding_idx=1):
    # facebookresearch/fairseq, fairseq/modules/sinusoidal_positional_embedding.py,
    # SinusoidalPositionalEmbedding: get_embedding(padding_idx + 1 + seq_len, d) with
    # ln(10000) / (half_dim - 1) (a Python float division: d < 4 raises), cat [sin, cos], a
    # zero column for odd d, row padding_idx zeroed; utils.make_positions numbers the tokens
    # of an unpadded sentence padding_idx + 1, padding_idx + 2, ... (padding_idx is 1 in
    # fairseq's dictionaries).
    num_embeddings = padding_idx + 1 + length
    half_dim = d // 2
    step = math.log(10000) / (half_dim - 1)
    freqs = np.exp(np.arange(half_dim, dtype=np.float64) * -step)
    emb = np.arange(num_embeddings, dtype=np.float64)[:, None] * freqs[None, :]
    emb = np.concatenate([np.sin(emb), np.cos(emb)], axis=1)
    if d % 2 == 1:
        emb = np.concatenate([emb, np.zeros((num_embeddings, 1))], axis=1)
    emb[padding_idx, :] = 0
    positions = np.cumsum(np.ones(length, dtype=np.int64)) + padding_idx
    return emb[positions]


def whisper(d, length, max_timescale=10000):
    # openai/whisper, whisper/model.py, sinusoids(length, channels, max_timescale=10000):
    # asserts even channels; np.log(max_timescale) / (channels // 2 - 1) is a numpy division,
    # so d = 2 gives inf and then NaN rather than an exception; exp(-increment * i), cat
    # [sin, cos].
    assert d % 2 == 0
    increment = np.log(max_timescale) / (d // 2 - 1)
    inv_timescales = np.exp(-increment * np.arange(d // 2))
    scaled = np.arange(length)[:, np.newaxis] * inv_timescales[np.newaxis, :]
    return np.concatenate([np.sin(scaled), np.cos(scaled)], axis=1)


def opennmt_tf(d, length):
    # OpenNMT/OpenNMT-tf, opennmt/layers/position.py, SinusoidalPositionEncoder.encode: odd depth
    # raises; ln(10000) / (depth / 2 - 1) (d = 2 raises); exp(range(depth / 2) * -increment);
    # concat [sin, cos]. PositionEncoder numbers the tokens tf.range(T) + 1.
    if d % 2 != 0:
        raise ValueError("OpenNMT-tf needs an even depth, got %d" % d)
    positions = (np.arange(length) + 1).astype(np.float64)
    increment = math.log(10000) / (d / 2 - 1)
    inv_timescales = np.exp(np.arange(d / 2) * -increment)
    scaled = positions[:, None] * inv_timescales[None, :]
    return np.concatenate([np.sin(scaled), np.cos(scaled)], axis=1)


def musicgen(d, length):
    # huggingface/transformers, models/musicgen/modeling_musicgen.py,
    # MusicgenSinusoidalPositionalEmbedding.get_embedding: fairseq's frequencies (d < 4
    # raises), cat [cos, sin], a zero column for odd d; forward takes rows
    # arange(seq_len) + past_key_values_length (0).
    half_dim = d // 2
    step = math.log(10000) / (half_dim - 1)
    freqs = np.exp(np.arange(half_dim, dtype=np.float64) * -step)
    emb = np.arange(length, dtype=np.float64)[:, None] * freqs[None, :]
    emb = np.concatenate([np.cos(emb), np.sin(emb)], axis=1)
    if d % 2 == 1:
        emb = np.concatenate([emb, np.zeros((length, 1))], axis=1)
    return emb[np.arange(length) + 0]


def diffusers_flip(d, length, flip_sin_to_cos=True, downscale_freq_shift=1, scale=1,
                   max_period=10000):
    # huggingface/diffusers, src/diffusers/models/embeddings.py, get_timestep_embedding:
    # exponent = -ln(max_period) * arange(h) / (h - downscale_freq_shift) (a tensor division:
    # h = 1 gives 0 / 0 = NaN, no exception), timesteps * exp(exponent), times scale, cat
    # [sin, cos], swap the halves when flip_sin_to_cos, pad a zero column for odd d. The
    # timesteps here are 0, 1, ..., length - 1.
    half_dim = d // 2
    exponent = -math.log(max_period) * np.arange(0, half_dim, dtype=np.float64)
    exponent = exponent / (half_dim - downscale_freq_shift)
    emb = np.exp(exponent)
    emb = np.arange(length, dtype=np.float64)[:, None] * emb[None, :]
    emb = scale * emb
    emb = np.concatenate([np.sin(emb), np.cos(emb)], axis=-1)
    if flip_sin_to_cos:
        emb = np.concatenate([emb[:, half_dim:], emb[:, :half_dim]], axis=-1)
    if d % 2 == 1:
        emb = np.pad(emb, [[0, 0], [0, 1]])
    return emb


REFERENCES = {
    "annotated-transformer": annotated_transformer,
    "pytorch-tutorial": pytorch_tutorial,
    "distilbert": distilbert,
    "tensorflow-tutorial": tensorflow_tutorial,
    "marian": marian,
    "sockeye": sockeye,
    "x-transformers": x_transformers,
    "tensor2tensor": tensor2tensor,
    "fairseq": fairseq,
    "whisper": whisper,
    "opennmt-tf": opennmt_tf,
    "musicgen": musicgen,
    "diffusers-flip": diffusers_flip,
}

OUTPUT_SCALE = {name: (lambda d: 1.0) for name in REFERENCES}
OUTPUT_SCALE["x-transformers"] = lambda d: d ** -0.5


def reference_table(name, d, length):
    """The source's table for the first `length` tokens, float64; raises where the source does."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return np.asarray(REFERENCES[name](d, length), dtype=np.float64)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("name", nargs="?", choices=sorted(REFERENCES))
    parser.add_argument("d", nargs="?", type=int)
    parser.add_argument("length", nargs="?", type=int)
    parser.add_argument("-o", "--output", help="write an .npy file instead of text")
    parser.add_argument("--list", action="store_true", help="print the preset names")
    args = parser.parse_args()
    if args.list:
        print("\n".join(REFERENCES))
        return 0
    if args.name is None or args.d is None or args.length is None:
        parser.error("NAME, D and L are required")
    try:
        table = reference_table(args.name, args.d, args.length)
    except Exception as e:  # the source itself fails at this width
        detail = ": %s" % e if str(e) else ""
        print("%s fails at d=%d: %s%s" % (args.name, args.d, type(e).__name__, detail),
              file=sys.stderr)
        return 3
    if args.output:
        np.save(args.output, table)
    else:
        np.savetxt(sys.stdout, table, fmt="%.17g")
    return 0


if __name__ == "__main__":
    sys.exit(main())
