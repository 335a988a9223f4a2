// Multimodal RoPE (M-RoPE) of Qwen2-VL, Qwen2.5-VL and Qwen3-VL: RoPE whose pairs turn by one
// of three position ids per token, t (time), h (row) and w (column), instead of one.
//
// Position ids (HF transformers, models/qwen2_vl/modeling_qwen2_vl.py,
// Qwen2VLModel.get_rope_index): text tokens take t = h = w = the next id, one more per token.
// An image of T x H x W patches (the grid after the spatial merge, taken as given here) takes,
// for its patch (a, b, c) in row-major order, (t0 + a, t0 + b, t0 + c) with t0 the next id
// (get_rope_index's `text_len + st_idx`); the text after it resumes at the largest id so far + 1
// (`st_idx = llm_pos_ids_list[-1].max() + 1`), i.e. t0 + max(T, H, W). Ids start at the table's
// offset (0 in a model's prefill).
//
// Which pair takes which id, for d_rot / 2 pairs and mrope_section (T, H, W), T + H + W =
// d_rot / 2:
//   chunked (modeling_qwen2_vl.py, apply_multimodal_rotary_pos_emb: cos split by
//            mrope_section * 2, chunk k taking axis k % 3): pairs [0, T) take t, [T, T + H) h,
//            [T + H, d_rot / 2) w. With the half pairing, dims i and i + d_rot / 2 both belong
//            to pair i, which is why HF repeats the section for the second half of cos.
//   interleaved (models/qwen3_vl/modeling_qwen3_vl.py, Qwen3VLTextRotaryEmbedding
//            .apply_interleaved_mrope: freqs of axis 1 at slice(1, 3 H, 3), of axis 2 at
//            slice(2, 3 W, 3), axis 0 elsewhere): pair i takes h when i % 3 == 1 and i < 3 H,
//            w when i % 3 == 2 and i < 3 W, t otherwise. HF checks nothing else, so with
//            [24, 20, 20] and 64 pairs t has pairs 0, 3, ..., 57 and 60..63 (24 in all).
// Pair i turns by id_axis(i) * theta^(-2i/d_rot), RoPE's frequency; no scaling, attention
// factor 1, d_rot = d_model (the head dim).
//
// The natural table, (rows, cols), row r = token r of the sequence:
//   cos, sin: (max_len, d_rot) in the pairing's layout (rope_encoding.h), column j holding
//             cos / sin of id_axis(pair(j)) * w_pair(j)
//   angle:    (max_len, d_rot / 2), id_axis(i) * w_i
// A text token's row is RoPE's row at its id, bit for bit (the same fill); an image token's
// column j is RoPE's table at position id_axis(pair(j)), column j.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "encoding/encoding.h"

namespace pe {

// At most this many images in a sequence.
inline constexpr size_t kMaxMropeImages = 4096;

// The axes, as get_rope_index stacks them: 0 = t, 1 = h, 2 = w.
enum class MropeAxis : uint8_t { kT = 0, kH = 1, kW = 2 };
char MropeAxisLetter(MropeAxis axis);  // 't', 'h', 'w'

// "at=3,grid=1x2x2", and a list of them joined by ';'.
std::string MropeImageText(const MropeImage& image);
std::string MropeImagesText(const std::vector<MropeImage>& images);
// Images separated by ';' or new lines (a repeated flag), each "at=P,grid=TxHxW" (P >= 0, T, H,
// W >= 1, whole decimal numbers); empty text: none. Errors name `flag`, the rule and the text.
Result<std::vector<MropeImage>> ParseMropeImages(const std::string& flag, const std::string& text);
// "16,24,24" or "auto" and back: three whole numbers >= 0, or none.
std::string MropeSectionText(const std::optional<std::array<int64_t, 3>>& section);
Result<std::optional<std::array<int64_t, 3>>> ParseMropeSection(const std::string& flag,
                                                                const std::string& text);
// The section in force for `pairs` = d_rot / 2 pairs: the one given, or "auto": chunked takes
// Qwen2-VL's 1 : 1.5 : 1.5 (T = pairs / 4, H = ceil((pairs - T) / 2), W the rest: 16, 24, 24
// for 64 pairs), interleaved Qwen3-VL's (H = W = floor(5 pairs / 16), T the rest: 24, 20, 20).
std::array<int64_t, 3> MropeSection(const MropeParams& params, int64_t pairs);

// The axis of each of `pairs` pairs under the layout and section (no check of the sum).
std::vector<MropeAxis> MropePairAxes(const MropeParams& params, int64_t pairs);

// Pair i's frequency theta_i = theta^(-2i/d_rot) in radians per id, (d_rot / 2): RoPE's unscaled
// inv_freq (HF `_compute_default_rope_parameters`), the same numbers the table turns by (valid
// params).
std::vector<double> MropePairFrequencies(const EncodingParams& params);

// A token's three ids.
struct MropeIds {
  std::array<int64_t, 3> id = {0, 0, 0};  // t, h, w
  int64_t operator[](MropeAxis a) const { return id[static_cast<size_t>(a)]; }
  bool operator==(const MropeIds&) const = default;
};

// The sequence's images in token order with their first ids, and every token's ids, computed
// on demand in O(log images) (valid params).
class MropeSequence {
 public:
  struct Image {
    MropeImage image;
    int64_t first_id = 0;  // t0
    int64_t tokens() const { return image.t * image.h * image.w; }
  };
  explicit MropeSequence(const EncodingParams& params);
  int64_t tokens() const { return tokens_; }
  const std::vector<Image>& images() const { return images_; }  // sorted by `at`
  // The index into images() of the image token `token` belongs to, or -1 for a text token.
  int ImageOf(int64_t token) const;
  MropeIds Ids(int64_t token) const;

  // A run of tokens whose ids step as boxes do. A text run (`text`) takes the ids first[a] + k on
  // every axis a for k in [0, count[a]) (all three the same); an image box is every combination
  // of the id runs [first[a], first[a] + count[a]) of its three axes, one token each: part of a
  // grid row (t and h fixed, w stepping), whole grid rows of one time step, or whole time steps.
  struct IdBox {
    bool text = false;
    std::array<int64_t, 3> first = {0, 0, 0}, count = {1, 1, 1};
    // Tokens per id of axis a: 1 for text, the other two axes' counts for an image box.
    int64_t TokensPerId(size_t a) const {
      return text ? 1 : count[(a + 1) % 3] * count[(a + 2) % 3];
    }
  };
  // Tokens [token, token + count) of the sequence (inside it) as text runs and image boxes in
  // token order: one per text stretch, at most five per image (its cut first row, cut first time
  // step, whole time steps, then the cut last ones), so O(images cut) boxes for any count.
  std::vector<IdBox> IdBoxes(int64_t token, int64_t count) const;

 private:
  int64_t tokens_ = 0;
  int64_t offset_ = 0;
  std::vector<Image> images_;
  // shrink_[k]: ids not used by the tokens before image k (sum of T H W - max(T, H, W)); one
  // more entry for the text after the last image.
  std::vector<int64_t> shrink_;
};

// A patch of an image, for the neighbours view: the image's index in token order (0: the first)
// and the patch's (t, h, w) in its T x H x W grid, each from 0. image -1: none given, the first
// image's centre patch (T / 2, H / 2, W / 2, rounded down).
struct MropePatch {
  int64_t image = -1, t = 0, h = 0, w = 0;
  bool operator==(const MropePatch&) const = default;
};
// "image=0,t=0,h=3,w=4", or "centre" for none given.
std::string MropePatchText(const MropePatch& patch);
// "image=I,t=T,h=H,w=W" (whole numbers >= 0, in this order) or "centre"; the ranges are checked
// against the sequence later (ResolveMropePatch). Errors name `flag`, the rule and the text.
Result<MropePatch> ParseMropePatch(const std::string& flag, const std::string& text);
// The patch in force for `params` (valid), its image and its token: an error naming the value
// and the allowed range when it lies outside the images or the grid, or saying to add
// --mrope-image when there is no image.
struct MropeQueryPatch {
  MropePatch patch;            // image >= 0
  MropeSequence::Image image;  // its image
  int64_t token = 0;           // its token: at + t H W + h W + w
};
Result<MropeQueryPatch> ResolveMropePatch(const EncodingParams& params, const MropePatch& patch);

// Theta, d_model (even, >= 2), the section's sum, the images' grids and places: an error naming
// the flag, the rule and the value.
Status ValidateMropeParams(const EncodingParams& params);
// The M-RoPE Encoding (valid params).
Result<EncodingPtr> MakeMropeEncoding(const EncodingParams& params);

}  // namespace pe
