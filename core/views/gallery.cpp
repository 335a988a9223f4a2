// The gallery's table (views/gallery.h). Each figure is drawn by an existing view; the flags are
// the only knowledge here, so `export --figure NAME` is `export FLAGS` and a figure's metadata
// gives it back with `export --from`.
#include "views/gallery.h"

#include <array>

namespace pe {
namespace {

using Flags = std::string_view;

// Alammar's table: tensor2tensor's get_timing_signal_1d ([sin | cos] halves), 20 positions of
// 512 dimensions, as the post's figure (its July 2020 note names the layout).
constexpr Flags kAlammar[] = {"--preset",  "tensor2tensor",
                              "--d-model", "512",
                              "--max-len", "20",
                              "--view",    "heatmap",
                              "--title",   "Alammar's 20 x 512 table (tensor2tensor layout)"};
// Kazemnejad's Figure 2: the paper's interleaved layout, d 128, 50 positions.
constexpr Flags kKazemnejad[] = {
    "--preset",  "annotated-transformer",
    "--d-model", "128",
    "--max-len", "50",
    "--view",    "heatmap",
    "--title",   "Kazemnejad's Figure 2: 50 positions x 128 dims (interleaved)"};
// The TensorFlow tutorial's plot: positional_encoding(length=2048, depth=512).
constexpr Flags kTensorflow[] = {"--preset",  "tensorflow-tutorial",
                                 "--d-model", "512",
                                 "--max-len", "2048",
                                 "--view",    "heatmap",
                                 "--title",   "TensorFlow tutorial: 2048 positions x 512 depth"};
// The Annotated Transformer's plot: PositionalEncoding(20, 0) over 100 positions, dims 4-7.
constexpr Flags kAnnotated[] = {"--preset",  "annotated-transformer",
                                "--d-model", "20",
                                "--max-len", "100",
                                "--view",    "curves",
                                "--dims",    "4,5,6,7",
                                "--title",   "The Annotated Transformer: dims 4-7 at d 20"};
// RoFormer's Figure 2: the bound at head dim 128 over relative distances 0..250.
constexpr Flags kRoformer[] = {"--scheme",  "rope",
                               "--d-model", "128",
                               "--max-len", "251",
                               "--view",    "roformer-decay",
                               "--title",   "RoFormer's Figure 2: long-term decay, d 128"};
// Position Interpolation (Chen et al. 2023, Figure 2): a model trained to 2048 asked for 4096.
// Extrapolation turns the slow pairs to angles never seen in training; interpolation divides
// the positions by 2 and keeps every angle inside the trained range. q = k = ones, so the
// score is (2/sqrt(d)) sum_i cos(k theta_i) (with PI theta_i / 2).
constexpr Flags kPositionInterpolation[] = {
    "--scheme",
    "rope",
    "--d-model",
    "128",
    "--max-len",
    "4096",
    "--rope-scaling",
    "linear",
    "--scaling-factor",
    "2",
    "--view",
    "decay",
    "--content",
    "ones",
    "--compare",
    "rope",
    "--title",
    "Position Interpolation (PI x2 from 2048) vs extrapolation: score by distance"};
// Position Interpolation (Chen et al. 2023, Figure 2, left and middle): a score of RoPE's form
// fitted to random targets at 0..2048 (Llama 7B's head dim 128), drawn to 4096 as is and at s/2.
constexpr Flags kPiFit[] = {
    "--scheme",  "rope",   "--d-model", "128",
    "--max-len", "2048",   "--seed",    "0",
    "--view",    "pi-fit", "--title",   "Position Interpolation's Figure 2: a fitted score past L"};
// YaRN (Peng et al. 2023, Section 3.2, "NTK-by-parts"): Llama 2 (head dim 128, 4096) at s 16,
// alpha 1 and beta 32: the ramp from kept to interpolated over the pairs.
constexpr Flags kYarn[] = {"--scheme",
                           "rope",
                           "--d-model",
                           "128",
                           "--rope-scaling",
                           "yarn",
                           "--scaling-factor",
                           "16",
                           "--original-max-len",
                           "4096",
                           "--beta-fast",
                           "32",
                           "--beta-slow",
                           "1",
                           "--view",
                           "frequencies",
                           "--title",
                           "YaRN's ramp over the pairs (s 16 from 4096)"};
// Llama 3.1: theta 500000, factor 8, low 1, high 4, original 8192 (its config.json).
constexpr Flags kLlama31[] = {"--scheme",
                              "rope",
                              "--d-model",
                              "128",
                              "--rope-theta",
                              "500000",
                              "--rope-scaling",
                              "llama3",
                              "--scaling-factor",
                              "8",
                              "--original-max-len",
                              "8192",
                              "--low-freq-factor",
                              "1",
                              "--high-freq-factor",
                              "4",
                              "--view",
                              "frequencies",
                              "--title",
                              "Llama 3.1's three wavelength bands"};
// NTK-aware scaling (bloc97 2023): the base times s^(d/(d-2)); the fast pairs kept, the slowest
// divided by s, where linear (PI) divides every pair by s.
constexpr Flags kNtk[] = {"--scheme",         "rope",
                          "--d-model",        "128",
                          "--rope-scaling",   "ntk",
                          "--scaling-factor", "8",
                          "--view",           "frequencies",
                          "--title",          "NTK-aware scaling x8: base 10000 x 8^(128/126)"};
// ALiBi (Press et al. 2022, Figure 3): head 0's bias -m (i - j), m = 1/2 of 8 heads.
constexpr Flags kAlibiBias[] = {
    "--scheme", "alibi", "--heads",   "8",
    "--head",   "0",     "--max-len", "8",
    "--view",   "bias",  "--title",   "ALiBi's Figure 3: head 0's bias m (j - i), m = 1/2"};
// ALiBi's slopes for 8 heads: the geometric sequence 1/2, 1/4, ..., 1/256 (Section 3).
constexpr Flags kAlibiSlopes[] = {
    "--scheme", "alibi",  "--heads", "8",
    "--view",   "slopes", "--title", "ALiBi's slopes for 8 heads: 2^-1 ... 2^-8"};
// T5 (Raffel et al. 2020, Section 2.1): 32 buckets, max distance 128, bidirectional.
constexpr Flags kT5[] = {"--scheme",
                         "t5",
                         "--t5-buckets",
                         "32",
                         "--t5-max-distance",
                         "128",
                         "--max-len",
                         "256",
                         "--view",
                         "buckets",
                         "--title",
                         "T5's buckets: 32, max distance 128"};
// p-RoPE (Barbero et al. 2024) as Gemma 4's proportional rope type: head dim 256, theta 1e6,
// a quarter of the pairs turn (exponents over the whole head), the rest stand still.
constexpr Flags kPRope[] = {"--scheme",
                            "rope",
                            "--d-model",
                            "256",
                            "--rope-theta",
                            "1000000",
                            "--rope-proportion",
                            "0.25",
                            "--view",
                            "frequencies",
                            "--title",
                            "p-RoPE 0.25 as Gemma 4's proportional layers"};
// Men et al. 2024: B(m) = sum_i cos(m theta_i) (q = k = ones gives (2/sqrt(d)) B(m)) at base
// 10000, head dim 128, over 8192 positions: it goes below 0, so base 10000 bounds the context.
constexpr Flags kBaseBound[] = {"--scheme",     "rope",
                                "--d-model",    "128",
                                "--rope-theta", "10000",
                                "--max-len",    "8192",
                                "--view",       "decay",
                                "--content",    "ones",
                                "--title",      "Base bounds context: B(m) = sum cos(m theta_i)"};
// Men et al. 2024, Figure 1: the lower bound of the base against the context length, head dim
// 128 (Llama 2 7B's), contexts 256 to 131072 (the paper's run to 1M: --max-len 1048576).
constexpr Flags kBaseBoundCurve[] = {
    "--scheme",     "rope",       "--d-model", "128",
    "--rope-theta", "10000",      "--max-len", "131072",
    "--view",       "base-bound", "--title",   "Base of RoPE bounds context length, d 128"};
// bf16 (Wang et al. 2024): RoPE's cos table at 65536 positions stored in bfloat16.
constexpr Flags kBf16[] = {"--scheme", "rope",      "--d-model",
                           "128",      "--max-len", "65536",
                           "--view",   "precision", "--dtype",
                           "bf16",     "--title",   "RoPE's cos table in bf16 at 65536 positions"};

constexpr std::array kGallery = {
    GalleryFigure{"alammar-sinusoid", "Sinusoid: Alammar's 20 x 512 table",
                  "the sinusoidal table of 20 positions x 512 dims, [sin | cos] halves",
                  "Jay Alammar, \"The Illustrated Transformer\" (2018), the figure \"A real "
                  "example of positional encoding for 20 words ... embedding size of 512\"",
                  kAlammar},
    GalleryFigure{"kazemnejad-sinusoid", "Sinusoid: Kazemnejad's 50 x 128 table",
                  "the sinusoidal table of 50 positions x 128 dims, sin and cos interleaved",
                  "Amirhossein Kazemnejad, \"Transformer Architecture: The Positional "
                  "Encoding\" (2019), Figure 2",
                  kKazemnejad},
    GalleryFigure{"tensorflow-sinusoid", "Sinusoid: TensorFlow tutorial's 2048 x 512 plot",
                  "the tutorial's positional_encoding(length=2048, depth=512), [sin | cos]",
                  "TensorFlow Text tutorial \"Neural machine translation with a Transformer "
                  "and Keras\", the positional encoding plot",
                  kTensorflow},
    GalleryFigure{"annotated-curves", "Sinusoid: the Annotated Transformer's dims 4-7",
                  "columns 4, 5, 6, 7 of the d 20 table over 100 positions",
                  "Alexander Rush et al., \"The Annotated Transformer\" (Harvard NLP, 2018; "
                  "2022 update), the PositionalEncoding plot",
                  kAnnotated},
    GalleryFigure{"roformer-decay", "RoPE: RoFormer's long-term decay (Figure 2)",
                  "RoFormer's bound on |q.k| against relative distance, head dim 128",
                  "Su, Lu, Pan, Murtadha, Wen, Liu, \"RoFormer: Enhanced Transformer with "
                  "Rotary Position Embedding\" (2021), Figure 2",
                  kRoformer},
    GalleryFigure{"pi-interpolation", "Scaling: Position Interpolation vs extrapolation",
                  "the score by distance to 4096 of a RoPE trained to 2048: PI x2 vs as trained",
                  "Chen, Wong, Chen, Tian, \"Extending Context Window of Large Language "
                  "Models via Positional Interpolation\" (2023), Figure 2",
                  kPositionInterpolation},
    GalleryFigure{"pi-fit", "Scaling: a fitted score past the trained length (PI, Figure 2)",
                  "least squares to random targets at 0..2048, then to 4096: as is vs at s/2",
                  "Chen, Wong, Chen, Tian, \"Extending Context Window of Large Language "
                  "Models via Positional Interpolation\" (2023), Figure 2",
                  kPiFit},
    GalleryFigure{"yarn-ramp", "Scaling: YaRN's ramp over the pairs",
                  "each pair's wavelength before and after YaRN x16: kept, ramped, interpolated",
                  "Peng, Quesnelle, Fan, Shippole, \"YaRN: Efficient Context Window Extension "
                  "of Large Language Models\" (2023), Section 3.2 (the ramp gamma(r))",
                  kYarn},
    GalleryFigure{"llama31-bands", "Scaling: Llama 3.1's three wavelength bands",
                  "kept below 2048, divided by 8 above 8192, blended between (theta 500000)",
                  "Meta, Llama 3.1 (\"The Llama 3 Herd of Models\", 2024); the scaling of "
                  "HF transformers modeling_rope_utils.py _compute_llama3_parameters",
                  kLlama31},
    GalleryFigure{"ntk-vs-linear", "Scaling: NTK-aware vs linear frequencies",
                  "NTK-aware x8 keeps the fast pairs and slows the slow ones; linear slows all",
                  "bloc97, \"NTK-Aware Scaled RoPE\" (r/LocalLLaMA, 2023); Peng et al., "
                  "\"YaRN\" (2023), Section 3.1",
                  kNtk},
    GalleryFigure{"alibi-bias", "ALiBi: head 0's bias matrix (Figure 3)",
                  "the bias m (j - i) a query i adds to key j, 8 positions, m = 1/2",
                  "Press, Smith, Lewis, \"Train Short, Test Long: Attention with Linear Biases "
                  "Enables Input Length Extrapolation\" (2022), Figure 3",
                  kAlibiBias},
    GalleryFigure{"alibi-slopes", "ALiBi: the slopes of 8 heads",
                  "the heads' slopes 2^-1 ... 2^-8, a geometric sequence",
                  "Press, Smith, Lewis, \"Train Short, Test Long\" (2022), Section 3",
                  kAlibiSlopes},
    GalleryFigure{"t5-buckets", "T5: the bucket table",
                  "the bucket of each relative distance: exact to 8, log-spaced to 128",
                  "Raffel et al., \"Exploring the Limits of Transfer Learning with a Unified "
                  "Text-to-Text Transformer\" (2020), Section 2.1; HF modeling_t5.py "
                  "_relative_position_bucket",
                  kT5},
    GalleryFigure{"p-rope-gemma4", "RoPE: p-RoPE as Gemma 4's proportional layers",
                  "head dim 256, theta 1e6: the first 32 pairs turn, the other 96 never do",
                  "Barbero, Vitvitskyi, Perivolaropoulos, Pascanu, Velickovic, \"Round and "
                  "Round We Go! What makes Rotary Positional Encodings useful?\" (2024), "
                  "p-RoPE; Gemma 4's rope type \"proportional\"",
                  kPRope},
    GalleryFigure{"base-bound", "RoPE: the base bounds the context length (Men et al.)",
                  "the smallest base whose B(m) stays >= 0 up to L, against L (d 128)",
                  "Men, Xu, Wang, Zhang, Lin, Han, Chen, \"Base of RoPE Bounds Context "
                  "Length\" (2024), Figure 1 (the lower bound of the base by context length)",
                  kBaseBoundCurve},
    GalleryFigure{"base-bound-b-of-m", "RoPE: base 10000's B(m) falls below 0 (Men et al.)",
                  "B(m) = sum_i cos(m theta_i) by distance at base 10000: it falls below 0",
                  "Men, Xu, Wang, Zhang, Lin, Han, Chen, \"Base of RoPE Bounds Context "
                  "Length\" (2024), B_{m,theta} of Section 4 and Figure 1",
                  kBaseBound},
    GalleryFigure{"bf16-precision", "Precision: RoPE's table in bf16",
                  "the error of storing RoPE's cos table in bfloat16, 65536 positions",
                  "Wang et al., \"When Precision Meets Position: BFloat16 Breaks Down RoPE in "
                  "Long-Context Training\" (2024)",
                  kBf16},
};

}  // namespace

std::span<const GalleryFigure> GalleryFigures() {
  return kGallery;
}

const GalleryFigure* FindGalleryFigure(std::string_view name) {
  for (const GalleryFigure& f : kGallery) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::string GalleryNames() {
  std::string out;
  for (const GalleryFigure& f : kGallery) {
    if (!out.empty()) out += ", ";
    out += f.name;
  }
  return out;
}

}  // namespace pe
