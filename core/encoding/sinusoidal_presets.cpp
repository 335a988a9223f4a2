#include "encoding/sinusoidal_presets.h"

#include <array>
#include <cmath>
#include <cstdint>
#include <string>

#include "base/closest_word.h"

namespace pe {
namespace {

// How a preset's output_scale follows from the table width.
enum class Scale { kOne, kInvSqrtD };

struct PresetEntry {
  SinusoidalPreset info;
  PeVariant variant;
  WaveOrder order;
  double base;     // max timescale; min timescale is 1 for every source here
  int64_t offset;  // position of row 0
  Scale scale;
};

// Each entry reproduces its source exactly for every width the source accepts; the notes say
// where the source itself stops (odd widths, or d < 4 where it divides by h - 1 = 0).
// tests/reference/sinusoidal_reference.py re-implements every source as written and
// tests/check_sinusoidal_presets.py compares the CLI's tables with it.
constexpr std::array<PresetEntry, 13> kPresets{{
    // ---- interleaved: PE[p, 2i] = sin(p w_i), PE[p, 2i+1] = cos(p w_i), w_i = 10000^(-2i/d)

    // harvardnlp/annotated-transformer, the_annotated_transformer.py, class PositionalEncoding:
    // div_term = exp(arange(0, d, 2) * -ln(10000) / d), sin into the even columns, cos into the
    // odd ones, positions from 0.
    {{"annotated-transformer", "Annotated Transformer",
      "harvardnlp/annotated-transformer: the_annotated_transformer.py, PositionalEncoding",
      "interleaved sin/cos as in the paper; odd d fails there (one cos column short)"},
     PeVariant::kPaper,
     WaveOrder::kSinFirst,
     10000.0,
     0,
     Scale::kOne},
    // pytorch/tutorials, beginner_source/transformer_tutorial.py, class PositionalEncoding: the
    // same formula, stored as (max_len, 1, d) for sequence-first batches.
    {{"pytorch-tutorial", "PyTorch tutorial",
      "pytorch/tutorials: beginner_source/transformer_tutorial.py, PositionalEncoding",
      "interleaved as in the paper, stored (max_len, 1, d); odd d fails there"},
     PeVariant::kPaper,
     WaveOrder::kSinFirst,
     10000.0,
     0,
     Scale::kOne},
    // huggingface/transformers, src/transformers/models/distilbert/modeling_distilbert.py,
    // create_sinusoidal_embeddings: angle pos / 10000^(2 (j // 2) / d) for column j, sin in the
    // even columns, cos in the odd ones. For odd d the last column is the sin of the next
    // frequency, as in our paper layout. Only used when config.sinusoidal_pos_embds is true
    // (DistilBertConfig's default is false).
    {{"distilbert", "DistilBERT",
      "huggingface/transformers: models/distilbert/modeling_distilbert.py, "
      "create_sinusoidal_embeddings",
      "interleaved; only with config.sinusoidal_pos_embds = true (false by default)"},
     PeVariant::kPaper,
     WaveOrder::kSinFirst,
     10000.0,
     0,
     Scale::kOne},

    // ---- [sin | cos] halves with the paper's w_i = 10000^(-2i/d) (our tf-text layout)

    // tensorflow/text, docs/tutorials/transformer.ipynb, positional_encoding(length, depth):
    // depth /= 2, angle rates 1 / 10000^(i / depth), concatenate [sin, cos]. For odd d the
    // float depth makes ceil(d/2) frequencies and a table d + 1 wide.
    {{"tensorflow-tutorial", "TensorFlow tutorial",
      "tensorflow/text: docs/tutorials/transformer.ipynb, positional_encoding",
      "[sin | cos] halves with the paper's frequencies; odd d gives d + 1 columns there"},
     PeVariant::kTfText,
     WaveOrder::kSinFirst,
     10000.0,
     0,
     Scale::kOne},
    // huggingface/transformers, src/transformers/models/marian/modeling_marian.py,
    // MarianSinusoidalPositionalEmbedding._init_weight: the DistilBERT angles, with the sines
    // (of the even columns) in out[:, :ceil(d/2)] and the cosines after them; positions from
    // past_key_values_length = 0. Matches our tf-text layout for odd d too.
    {{"marian", "Marian (HF)",
      "huggingface/transformers: models/marian/modeling_marian.py, "
      "MarianSinusoidalPositionalEmbedding",
      "[sin | cos] halves with the paper's frequencies; odd d: ceil(d/2) sines first"},
     PeVariant::kTfText,
     WaveOrder::kSinFirst,
     10000.0,
     0,
     Scale::kOne},
    // awslabs/sockeye, sockeye/layers.py, get_positional_embeddings (PositionalEmbeddings with
    // weight_type fixed): positions / 10000^(2c / depth), hstack [sin, cos]; even depth only.
    // Its scale_down_positions option would multiply by d^-0.5, but encoder.py and decoder.py
    // pass False.
    {{"sockeye", "Sockeye", "awslabs/sockeye: sockeye/layers.py, get_positional_embeddings",
      "[sin | cos] halves with the paper's frequencies; even d only"},
     PeVariant::kTfText,
     WaveOrder::kSinFirst,
     10000.0,
     0,
     Scale::kOne},
    // lucidrains/x-transformers, x_transformers/x_transformers.py, ScaledSinusoidalEmbedding
    // (TransformerWrapper with scaled_sinu_pos_emb = True): inv_freq = theta^(-i / (d/2)),
    // cat [sin, cos], times a learned scale that starts at d^-0.5; even d only. (Its
    // AbsolutePositionalEmbedding, the default, is a learned table, not a sinusoid.)
    {{"x-transformers", "x-transformers",
      "lucidrains/x-transformers: x_transformers/x_transformers.py, ScaledSinusoidalEmbedding",
      "[sin | cos] halves times a learned scale that starts at d^-0.5; even d only"},
     PeVariant::kTfText,
     WaveOrder::kSinFirst,
     10000.0,
     0,
     Scale::kInvSqrtD},

    // ---- [sin | cos] halves with w_i = 10000^(-i / (h - 1)) (our t2t layout); odd d: last
    // column zero

    // tensorflow/tensor2tensor, tensor2tensor/layers/common_attention.py,
    // get_timing_signal_1d: log increment ln(max/min) / max(h - 1, 1), inv_timescales =
    // min_timescale * exp(-i * increment), concat [sin, cos], zero pad for odd channels.
    {{"tensor2tensor", "tensor2tensor",
      "tensorflow/tensor2tensor: tensor2tensor/layers/common_attention.py, "
      "get_timing_signal_1d",
      "[sin | cos] halves, exponent i / max(h - 1, 1), so d = 2 and 3 work; odd d: zero column"},
     PeVariant::kT2t,
     WaveOrder::kSinFirst,
     10000.0,
     0,
     Scale::kOne},
    // facebookresearch/fairseq, fairseq/modules/sinusoidal_positional_embedding.py,
    // SinusoidalPositionalEmbedding.get_embedding: ln(10000) / (half_dim - 1), cat [sin, cos],
    // zero pad for odd d, row padding_idx zeroed. utils.make_positions numbers real tokens
    // from padding_idx + 1, and fairseq dictionaries put padding at index 1.
    {{"fairseq", "fairseq",
      "facebookresearch/fairseq: fairseq/modules/sinusoidal_positional_embedding.py, "
      "SinusoidalPositionalEmbedding",
      "rows start at padding_idx + 1 = 2; odd d: zero column; d < 4 divides by zero there"},
     PeVariant::kT2t,
     WaveOrder::kSinFirst,
     10000.0,
     2,
     Scale::kOne},
    // openai/whisper, whisper/model.py, sinusoids(length, channels, max_timescale=10000): the
    // tensor2tensor formula without the max(., 1); asserts even channels. The audio encoder's
    // table; the text decoder learns its positions.
    {{"whisper", "Whisper", "openai/whisper: whisper/model.py, sinusoids",
      "audio encoder table (the text decoder's is learned); even d >= 4 only"},
     PeVariant::kT2t,
     WaveOrder::kSinFirst,
     10000.0,
     0,
     Scale::kOne},
    // OpenNMT/OpenNMT-tf, opennmt/layers/position.py, SinusoidalPositionEncoder.encode:
    // ln(10000) / (depth / 2 - 1), concat [sin, cos]; positions tf.range(T) + 1 (0 is padding);
    // odd depth raises.
    {{"opennmt-tf", "OpenNMT-tf",
      "OpenNMT/OpenNMT-tf: opennmt/layers/position.py, SinusoidalPositionEncoder",
      "rows start at position 1 (0 is padding); even d >= 4 only"},
     PeVariant::kT2t,
     WaveOrder::kSinFirst,
     10000.0,
     1,
     Scale::kOne},
    // huggingface/transformers, src/transformers/models/musicgen/modeling_musicgen.py,
    // MusicgenSinusoidalPositionalEmbedding.get_embedding: fairseq's formula with
    // cat [cos, sin]; zero pad for odd d; positions from past_key_values_length = 0.
    {{"musicgen", "MusicGen (HF)",
      "huggingface/transformers: models/musicgen/modeling_musicgen.py, "
      "MusicgenSinusoidalPositionalEmbedding",
      "[cos | sin] halves with tensor2tensor's frequencies; d < 4 divides by zero there"},
     PeVariant::kT2t,
     WaveOrder::kCosFirst,
     10000.0,
     0,
     Scale::kOne},
    // huggingface/diffusers, src/diffusers/models/embeddings.py, get_timestep_embedding with
    // flip_sin_to_cos = True and the default downscale_freq_shift = 1, scale = 1,
    // max_period = 10000: exponent -ln(max_period) i / (h - 1), cat [sin, cos], swap the
    // halves, zero pad for odd d. (downscale_freq_shift = 0 divides by h instead: not this
    // preset.)
    {{"diffusers-flip", "diffusers (flip_sin_to_cos)",
      "huggingface/diffusers: src/diffusers/models/embeddings.py, get_timestep_embedding",
      "flip_sin_to_cos=True, downscale_freq_shift=1: [cos | sin] halves; d < 4 gives NaN there"},
     PeVariant::kT2t,
     WaveOrder::kCosFirst,
     10000.0,
     0,
     Scale::kOne},
}};

constexpr std::array<SinusoidalPreset, kPresets.size()> kInfos = [] {
  std::array<SinusoidalPreset, kPresets.size()> infos{};
  for (size_t i = 0; i < kPresets.size(); ++i) infos[i] = kPresets[i].info;
  return infos;
}();

}  // namespace

std::span<const SinusoidalPreset> SinusoidalPresets() {
  return kInfos;
}

Status ApplySinusoidalPreset(std::string_view name, EncodingParams& params) {
  for (const PresetEntry& entry : kPresets) {
    if (entry.info.name != name) continue;
    SinusoidalParams s;
    s.variant = entry.variant;
    s.order = entry.order;
    s.base = entry.base;
    s.min_timescale = 1.0;
    s.output_scale = 1.0;
    if (entry.scale == Scale::kInvSqrtD && params.d_model > 0) {
      s.output_scale = 1.0 / std::sqrt(static_cast<double>(params.d_model));
    }
    params.scheme = s;
    params.offset = entry.offset;
    return {};
  }
  std::string known;
  for (const PresetEntry& entry : kPresets) {
    if (!known.empty()) known += ", ";
    known += entry.info.name;
  }
  return InvalidArgument("--preset must be one of " + known + ", got \"" + std::string(name) +
                         "\"" + DidYouMean(name, WordsOfList(known)));
}

}  // namespace pe
