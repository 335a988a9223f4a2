#include "encoding/mrope.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <memory>

#include "base/format_text.h"
#include "encoding/rope_encoding.h"
#include "encoding/wave.h"

namespace pe {
namespace {

std::string Quote(const std::string& s) {
  return "\"" + s + "\"";
}

std::string Trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t");
  if (a == std::string::npos) return {};
  return s.substr(a, s.find_last_not_of(" \t") - a + 1);
}

// A whole decimal number in [lo, hi], or nothing.
std::optional<int64_t> WholeNumber(const std::string& s, int64_t lo, int64_t hi) {
  int64_t v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size() || v < lo || v > hi) {
    return std::nullopt;
  }
  return v;
}

// The RoPE parameters M-RoPE shares: theta, pairing and the table shown; no scaling.
EncodingParams RopeEquivalent(const EncodingParams& params) {
  const MropeParams& m = params.mrope();
  EncodingParams p;
  p.d_model = params.d_model;
  p.max_len = params.max_len;
  p.offset = params.offset;
  RopeParams r;
  r.theta = m.theta;
  r.pairing = m.pairing;
  r.part = m.part;
  p.scheme = r;
  return p;
}

}  // namespace

char MropeAxisLetter(MropeAxis axis) {
  return "thw"[static_cast<size_t>(axis)];
}

std::string MropeImageText(const MropeImage& image) {
  return Fmt("at=%lld,grid=%lldx%lldx%lld", static_cast<long long>(image.at),
             static_cast<long long>(image.t), static_cast<long long>(image.h),
             static_cast<long long>(image.w));
}

std::string MropeImagesText(const std::vector<MropeImage>& images) {
  std::string s;
  for (const MropeImage& im : images) {
    if (!s.empty()) s += ';';
    s += MropeImageText(im);
  }
  return s;
}

Result<std::vector<MropeImage>> ParseMropeImages(const std::string& flag, const std::string& text) {
  std::vector<MropeImage> images;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find_first_of(";\n", start);
    if (end == std::string::npos) end = text.size();
    const std::string item = Trim(text.substr(start, end - start));
    start = end + 1;
    if (item.empty()) continue;
    auto bad = [&](const std::string& why) {
      return InvalidArgument(flag + " " + Quote(item) + ": " + why +
                             " (an image is \"at=P,grid=TxHxW\": its first token P >= 0 and its "
                             "grid of T x H x W patches, each >= 1, e.g. at=3,grid=1x16x16)");
    };
    const size_t comma = item.find(',');
    if (item.rfind("at=", 0) != 0 || comma == std::string::npos ||
        item.compare(comma + 1, 5, "grid=") != 0) {
      return bad("is not of the form at=P,grid=TxHxW");
    }
    MropeImage im;
    const std::optional<int64_t> at = WholeNumber(item.substr(3, comma - 3), 0, kMaxPosition);
    if (!at) {
      return bad("the token P must be a whole number in [0, " + std::to_string(kMaxPosition) + "]");
    }
    im.at = *at;
    const std::string grid = item.substr(comma + 6);
    const size_t x1 = grid.find('x');
    const size_t x2 = x1 == std::string::npos ? x1 : grid.find('x', x1 + 1);
    std::optional<int64_t> t, h, w;
    if (x2 != std::string::npos) {
      t = WholeNumber(grid.substr(0, x1), 1, kMaxPosition);
      h = WholeNumber(grid.substr(x1 + 1, x2 - x1 - 1), 1, kMaxPosition);
      w = WholeNumber(grid.substr(x2 + 1), 1, kMaxPosition);
    }
    if (!t || !h || !w) {
      return bad("the grid must be TxHxW, three whole numbers in [1, " +
                 std::to_string(kMaxPosition) + "], got " + Quote(grid));
    }
    im.t = *t;
    im.h = *h;
    im.w = *w;
    if (images.size() == kMaxMropeImages) {
      return InvalidArgument(flag + ": at most " + std::to_string(kMaxMropeImages) +
                             " images, got more");
    }
    images.push_back(im);
  }
  return images;
}

std::string MropeSectionText(const std::optional<std::array<int64_t, 3>>& section) {
  if (!section) return "auto";
  const std::array<int64_t, 3>& s = *section;
  return std::to_string(s[0]) + "," + std::to_string(s[1]) + "," + std::to_string(s[2]);
}

Result<std::optional<std::array<int64_t, 3>>> ParseMropeSection(const std::string& flag,
                                                                const std::string& text) {
  if (Trim(text) == "auto") return std::optional<std::array<int64_t, 3>>();
  std::array<int64_t, 3> s{};
  size_t start = 0;
  for (size_t k = 0; k < 3; ++k) {
    size_t end = text.find(',', start);
    if (k == 2) end = text.size();
    std::optional<int64_t> v;
    if (end != std::string::npos) v = WholeNumber(Trim(text.substr(start, end - start)), 0, 32768);
    if (!v) {
      return InvalidArgument(flag +
                             " must be T,H,W: three whole numbers in [0, 32768], the pairs of "
                             "the t, h and w ids (Qwen2-VL 16,24,24), or auto, got " +
                             Quote(text));
    }
    s[k] = *v;
    start = end + 1;
  }
  return std::optional(s);
}

std::array<int64_t, 3> MropeSection(const MropeParams& params, int64_t pairs) {
  if (params.section) return *params.section;
  if (params.layout == MropeLayout::kChunked) {
    const int64_t t = pairs / 4, h = (pairs - t + 1) / 2;
    return {t, h, pairs - t - h};
  }
  const int64_t hw = 5 * pairs / 16;
  return {pairs - 2 * hw, hw, hw};
}

std::vector<MropeAxis> MropePairAxes(const MropeParams& params, int64_t pairs) {
  const std::array<int64_t, 3> s = MropeSection(params, pairs);
  std::vector<MropeAxis> axes(static_cast<size_t>(std::max<int64_t>(pairs, 0)), MropeAxis::kT);
  for (int64_t i = 0; i < pairs; ++i) {
    MropeAxis a = MropeAxis::kT;
    if (params.layout == MropeLayout::kChunked) {
      // apply_multimodal_rotary_pos_emb: chunk k of the split takes axis k % 3.
      if (i >= s[0] + s[1]) {
        a = MropeAxis::kW;
      } else if (i >= s[0]) {
        a = MropeAxis::kH;
      }
    } else {
      // apply_interleaved_mrope: axis 1 at slice(1, 3 H, 3), axis 2 at slice(2, 3 W, 3).
      if (i % 3 == 1 && i < 3 * s[1]) a = MropeAxis::kH;
      if (i % 3 == 2 && i < 3 * s[2]) a = MropeAxis::kW;
    }
    axes[static_cast<size_t>(i)] = a;
  }
  return axes;
}

std::vector<double> MropePairFrequencies(const EncodingParams& params) {
  const RopeFrequencies f = ComputeRopeFrequencies(RopeEquivalent(params));
  std::vector<double> out;
  out.reserve(f.pairs.size());
  for (const RopePair& p : f.pairs) out.push_back(p.scaled);
  return out;
}

MropeSequence::MropeSequence(const EncodingParams& params)
    : tokens_(params.max_len), offset_(params.offset) {
  for (const MropeImage& im : params.mrope().images) images_.push_back({im, 0});
  std::stable_sort(images_.begin(), images_.end(),
                   [](const Image& a, const Image& b) { return a.image.at < b.image.at; });
  int64_t shrink = 0;
  for (Image& im : images_) {
    shrink_.push_back(shrink);
    im.first_id = offset_ + im.image.at - shrink;
    shrink += im.tokens() - std::max({im.image.t, im.image.h, im.image.w});
  }
  shrink_.push_back(shrink);
}

int MropeSequence::ImageOf(int64_t token) const {
  // The last image starting at or before the token.
  auto it = std::upper_bound(images_.begin(), images_.end(), token,
                             [](int64_t t, const Image& im) { return t < im.image.at; });
  if (it == images_.begin()) return -1;
  const auto k = static_cast<int>(it - images_.begin()) - 1;
  const Image& im = images_[static_cast<size_t>(k)];
  return token < im.image.at + im.tokens() ? k : -1;
}

MropeIds MropeSequence::Ids(int64_t token) const {
  auto it = std::upper_bound(images_.begin(), images_.end(), token,
                             [](int64_t t, const Image& im) { return t < im.image.at; });
  const auto k = static_cast<size_t>(it - images_.begin());  // images before or at the token
  if (k > 0) {
    const Image& im = images_[k - 1];
    const int64_t l = token - im.image.at;
    if (l < im.tokens()) {
      // get_rope_index: t_index, h_index, w_index of patch l in (T, H, W) row-major order.
      const int64_t hw = im.image.h * im.image.w;
      return {{im.first_id + l / hw, im.first_id + (l % hw) / im.image.w,
               im.first_id + l % im.image.w}};
    }
  }
  const int64_t id = offset_ + token - shrink_[k];
  return {{id, id, id}};
}

std::vector<MropeSequence::IdBox> MropeSequence::IdBoxes(int64_t token, int64_t count) const {
  std::vector<IdBox> out;
  const int64_t end = token + count;
  // The first image that ends after the token (images are sorted and disjoint).
  auto it = std::upper_bound(images_.begin(), images_.end(), token, [](int64_t t, const Image& im) {
    return t < im.image.at + im.tokens();
  });
  int64_t r = token;
  while (r < end) {
    if (it == images_.end() || r < it->image.at) {
      // Text up to the next image: ids step by one on every axis.
      const int64_t stop = it == images_.end() ? end : std::min(end, it->image.at);
      const int64_t id = Ids(r).id[0];
      out.push_back({true, {id, id, id}, {stop - r, stop - r, stop - r}});
      r = stop;
      continue;
    }
    // Inside the image: patch (a, b, c) of its T x H x W grid in row-major order.
    const MropeImage& im = it->image;
    const int64_t hw = im.h * im.w, l = r - im.at;
    const int64_t a = l / hw, b = (l % hw) / im.w, c = l % im.w;
    const int64_t left = std::min(end, im.at + it->tokens()) - r;
    IdBox box{false, {it->first_id + a, it->first_id + b, it->first_id + c}, {1, 1, 1}};
    if (c != 0 || left < im.w) {
      box.count[2] = std::min(im.w - c, left);  // part of a grid row
    } else if (b != 0 || left < hw) {
      box.count[1] = std::min(im.h - b, left / im.w);  // whole rows of one time step
      box.count[2] = im.w;
    } else {
      box.count[0] = std::min(im.t - a, left / hw);  // whole time steps
      box.count[1] = im.h;
      box.count[2] = im.w;
    }
    out.push_back(box);
    r += box.count[0] * box.count[1] * box.count[2];
    if (r == im.at + it->tokens()) ++it;
  }
  return out;
}

std::string MropePatchText(const MropePatch& patch) {
  if (patch.image < 0) return "centre";
  return Fmt("image=%lld,t=%lld,h=%lld,w=%lld", static_cast<long long>(patch.image),
             static_cast<long long>(patch.t), static_cast<long long>(patch.h),
             static_cast<long long>(patch.w));
}

Result<MropePatch> ParseMropePatch(const std::string& flag, const std::string& text) {
  const std::string item = Trim(text);
  if (item == "centre" || item == "center" || item.empty()) return MropePatch{};
  auto bad = [&](const std::string& why) {
    return InvalidArgument(flag + " " + Quote(item) + ": " + why +
                           " (a patch is \"image=I,t=T,h=H,w=W\": the image's index in token "
                           "order and the patch's place in its grid, each a whole number from 0, "
                           "e.g. image=0,t=0,h=3,w=4; or centre)");
  };
  constexpr const char* kKeys[4] = {"image=", "t=", "h=", "w="};
  int64_t v[4] = {0, 0, 0, 0};
  size_t start = 0;
  for (int k = 0; k < 4; ++k) {
    size_t end = item.find(',', start);
    if (k == 3) {
      if (end != std::string::npos) return bad("has more than four parts");
      end = item.size();
    }
    if (end == std::string::npos) return bad("is not of the form image=I,t=T,h=H,w=W");
    const std::string part = item.substr(start, end - start);
    const std::string key = kKeys[k];
    if (part.rfind(key, 0) != 0) return bad("is not of the form image=I,t=T,h=H,w=W");
    const std::optional<int64_t> n = WholeNumber(part.substr(key.size()), 0, kMaxPosition);
    if (!n) {
      return bad(key.substr(0, key.size() - 1) + " must be a whole number in [0, " +
                 std::to_string(kMaxPosition) + "], got " + Quote(part.substr(key.size())));
    }
    v[k] = *n;
    start = end + 1;
  }
  return MropePatch{v[0], v[1], v[2], v[3]};
}

Result<MropeQueryPatch> ResolveMropePatch(const EncodingParams& params, const MropePatch& patch) {
  const MropeSequence seq(params);
  if (seq.images().empty()) {
    return InvalidArgument(
        "the mrope-neighbours view scores an image patch against its neighbours, and the "
        "sequence has no image: add one with --mrope-image \"at=P,grid=TxHxW\" (e.g. "
        "--mrope-image \"at=4,grid=1x8x8\")");
  }
  MropeQueryPatch q;
  if (patch.image < 0) {
    q.image = seq.images().front();
    q.patch = {0, q.image.image.t / 2, q.image.image.h / 2, q.image.image.w / 2};
  } else {
    const auto n = static_cast<int64_t>(seq.images().size());
    if (patch.image >= n) {
      return InvalidArgument("--mrope-patch image=" + std::to_string(patch.image) +
                             " is out of range: the sequence has " + std::to_string(n) +
                             (n == 1 ? " image, so image must be 0"
                                     : " images, so image must "
                                       "be in [0, " +
                                           std::to_string(n - 1) + "]") +
                             " (images counted in token order)");
    }
    q.image = seq.images()[static_cast<size_t>(patch.image)];
    const int64_t size[3] = {q.image.image.t, q.image.image.h, q.image.image.w};
    const int64_t at[3] = {patch.t, patch.h, patch.w};
    for (size_t a = 0; a < 3; ++a) {
      if (at[a] >= size[a]) {
        const char axis = "thw"[a];
        return InvalidArgument(
            Fmt("--mrope-patch %c=%lld is out of range: image %lld (%s) has %c in [0, %lld]", axis,
                static_cast<long long>(at[a]), static_cast<long long>(patch.image),
                MropeImageText(q.image.image).c_str(), axis, static_cast<long long>(size[a] - 1)));
      }
    }
    q.patch = patch;
  }
  const MropeImage& im = q.image.image;
  q.token = im.at + q.patch.t * im.h * im.w + q.patch.h * im.w + q.patch.w;
  return q;
}

Status ValidateMropeParams(const EncodingParams& params) {
  const MropeParams& m = params.mrope();
  if (!std::isfinite(m.theta) || !(m.theta > 1)) {
    return InvalidArgument("rope_theta must be a finite number greater than 1, got " +
                           Fmt("%g", m.theta));
  }
  if (params.d_model < 2 || params.d_model % 2 != 0) {
    return InvalidArgument(
        "mrope rotates pairs of dims: the head dim d_model must be even and >= 2, got " +
        std::to_string(params.d_model));
  }
  const int64_t pairs = params.d_model / 2;
  const std::array<int64_t, 3> section = MropeSection(m, pairs);
  const int64_t sum = section[0] + section[1] + section[2];
  if (sum != pairs) {
    return InvalidArgument(
        "--mrope-section " + MropeSectionText(m.section) + " sums to " + std::to_string(sum) +
        " pairs, but head dim " + std::to_string(params.d_model) +
        " has d_rot/2 = " + std::to_string(pairs) +
        "; the sections must sum to d_rot/2 (Qwen2-VL: 16,24,24 for 128), or be auto");
  }
  if (m.images.size() > kMaxMropeImages) {
    return InvalidArgument("--mrope-image: at most " + std::to_string(kMaxMropeImages) +
                           " images, got " + std::to_string(m.images.size()));
  }
  std::vector<MropeImage> sorted = m.images;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const MropeImage& a, const MropeImage& b) { return a.at < b.at; });
  const MropeImage* before = nullptr;
  for (const MropeImage& im : sorted) {
    if (im.at < 0 || im.t < 1 || im.h < 1 || im.w < 1) {
      return InvalidArgument("--mrope-image " + Quote(MropeImageText(im)) +
                             ": the token must be >= 0 and T, H, W >= 1");
    }
    // Its tokens t h w must fit in [at, max_len): checked stepwise, so nothing overflows.
    const int64_t room = params.max_len - std::min(im.at, params.max_len);
    const bool fits = im.t <= room && im.h <= room / im.t && im.w <= room / (im.t * im.h);
    if (!fits) {
      const long double tokens = static_cast<long double>(im.t) * im.h * im.w;
      return InvalidArgument(
          "--mrope-image " + Quote(MropeImageText(im)) + " runs past the sequence: its " +
          Fmt("%.0Lf", tokens) + " tokens from token " + std::to_string(im.at) +
          " must end by --max-len " + std::to_string(params.max_len) + " (at + T*H*W <= max_len)");
    }
    if (before != nullptr && im.at < before->at + before->t * before->h * before->w) {
      return InvalidArgument("--mrope-image " + Quote(MropeImageText(im)) + " overlaps " +
                             Quote(MropeImageText(*before)) + " (its tokens " +
                             std::to_string(before->at) + " to " +
                             std::to_string(before->at + before->t * before->h * before->w - 1) +
                             "); images may not share tokens");
    }
    before = &im;
  }
  return {};
}

namespace {

class MropeEncoding final : public Encoding {
 public:
  explicit MropeEncoding(const EncodingParams& params)
      : Encoding(params),
        seq_(params),
        freq_(ComputeRopeFrequencies(RopeEquivalent(params))),
        columns_(RopeColumns(RopeEquivalent(params), freq_)),
        axes_(MropePairAxes(params.mrope(), freq_.d_rot / 2)) {}

  int64_t cols() const override { return static_cast<int64_t>(columns_.size()); }
  std::string TableName() const override { return std::string(RopePartName(m().part)); }
  ColumnNoun column_noun() const override {
    return m().part == RopePart::kAngle ? ColumnNoun::kPair : ColumnNoun::kDim;
  }
  ValueRange Range() const override {
    if (m().part != RopePart::kAngle) return {-1.0, 1.0};
    // Ids run from the offset up to at most the last position (an image uses fewer ids than
    // tokens).
    const double w_max = freq_.pairs.front().scaled, w_min = freq_.pairs.back().scaled;
    const double lo = static_cast<double>(first_position()) * w_min;
    const double hi = static_cast<double>(last_position()) * w_max;
    return {lo, hi > lo ? hi : lo + 1.0};
  }
  std::string Summary() const override {
    std::string s = Fmt("mrope %s %s, head dim %lld, theta %g, section %s, %s pairing",
                        std::string(MropeLayoutName(m().layout)).c_str(), TableName().c_str(),
                        static_cast<long long>(params_.d_model), m().theta,
                        MropeSectionText(MropeSection(m(), freq_.d_rot / 2)).c_str(),
                        std::string(RopePairingName(m().pairing)).c_str());
    s += Fmt(", %zu image%s", m().images.size(), m().images.size() == 1 ? "" : "s");
    s += Fmt(", L=%lld", static_cast<long long>(params_.max_len));
    if (params_.offset != 0) s += Fmt(", ids from %lld", static_cast<long long>(params_.offset));
    return s;
  }
  std::string Title() const override {
    return Fmt("M-RoPE %s (%s %s, theta %g, %zu image%s)", TableName().c_str(),
               std::string(MropeLayoutName(m().layout)).c_str(),
               MropeSectionText(MropeSection(m(), freq_.d_rot / 2)).c_str(), m().theta,
               m().images.size(), m().images.size() == 1 ? "" : "s");
  }
  std::string FileTag() const override { return "mrope-" + TableName(); }

  // The nearest token inside the table: the table is a function of the token, not of a real
  // position.
  double ValueAt(int64_t col, double position) const override {
    const double r = std::round(position - static_cast<double>(params_.offset));
    const auto token = static_cast<int64_t>(std::clamp(r, 0.0, static_cast<double>(rows() - 1)));
    const WaveColumn& c = columns_[static_cast<size_t>(col)];
    return WaveValueAt(c, static_cast<double>(seq_.Ids(token)[Axis(c)]));
  }

  // Text runs through RoPE's fill at their ids (bit for bit RoPE's rows); each image token
  // through the same fill once per axis its ids differ in, column j taken from its pair's axis.
  void FillBlock(int64_t row0, int64_t rows, int64_t col0, int64_t cols,
                 float* out) const override {
    const auto sub =
        std::span(columns_).subspan(static_cast<size_t>(col0), static_cast<size_t>(cols));
    std::vector<float> row(static_cast<size_t>(3 * cols));  // (3, cols)
    int64_t r = row0;
    const int64_t end = row0 + rows;
    while (r < end) {
      float* dst = out + (r - row0) * cols;
      const int k = seq_.ImageOf(r);
      if (k < 0) {
        const int64_t run_end = std::min(end, TextRunEnd(r));
        FillWaveBlock(sub, seq_.Ids(r).id[0], 0, run_end - r, dst);
        r = run_end;
        continue;
      }
      const MropeIds ids = seq_.Ids(r);
      for (size_t a = 0; a < 3; ++a) {
        if (a > 0 && ids.id[a] == ids.id[0]) {
          std::copy_n(row.data(), cols, row.data() + a * static_cast<size_t>(cols));
        } else {
          FillWaveBlock(sub, ids.id[a], 0, 1, row.data() + a * static_cast<size_t>(cols));
        }
      }
      for (int64_t j = 0; j < cols; ++j) {
        dst[j] =
            row[static_cast<size_t>(Axis(sub[static_cast<size_t>(j)])) * static_cast<size_t>(cols) +
                static_cast<size_t>(j)];
      }
      ++r;
    }
  }

  // Exact: closed forms over the text runs (MeanOverPositions at their ids) and over each run
  // of an image's grid row (fixed t and h: the w ids step by one, the t and h ids stay).
  void MeanOverRows(int64_t row0, int64_t rows, int64_t col0, int64_t cols,
                    double* out) const override {
    std::fill_n(out, cols, 0.0);
    int64_t r = row0;
    const int64_t end = row0 + rows;
    while (r < end) {
      const MropeIds ids = seq_.Ids(r);
      if (const int k = seq_.ImageOf(r); k >= 0) {
        const MropeImage& im = seq_.images()[static_cast<size_t>(k)].image;
        const int64_t w_index = (r - im.at) % im.w;
        const int64_t n = std::min(end, r + (im.w - w_index)) - r;
        for (int64_t j = 0; j < cols; ++j) {
          const WaveColumn& c = columns_[static_cast<size_t>(col0 + j)];
          const MropeAxis a = Axis(c);
          out[j] += static_cast<double>(n) * (a == MropeAxis::kW
                                                  ? MeanOverPositions(c, ids[a], n)
                                                  : WaveValueAt(c, static_cast<double>(ids[a])));
        }
        r += n;
        continue;
      }
      const int64_t n = std::min(end, TextRunEnd(r)) - r;
      for (int64_t j = 0; j < cols; ++j) {
        out[j] += static_cast<double>(n) *
                  MeanOverPositions(columns_[static_cast<size_t>(col0 + j)], ids.id[0], n);
      }
      r += n;
    }
    for (int64_t j = 0; j < cols; ++j) out[j] /= static_cast<double>(rows);
  }

  // "token 4 (image 0, t=3 h=3 w=4): cos(w 4 * 1000000^(-80/128)) = 0.9999".
  std::string DescribeCell(int64_t position, int64_t col) const override {
    const int64_t token = position - params_.offset;
    const WaveColumn& c = columns_[static_cast<size_t>(col)];
    const MropeIds ids = seq_.Ids(token);
    const int k = seq_.ImageOf(token);
    std::string who = Fmt("token %lld (", static_cast<long long>(token));
    who += k < 0 ? std::string("text")
                 : Fmt("image %d, t=%lld h=%lld w=%lld", k, static_cast<long long>(ids.id[0]),
                       static_cast<long long>(ids.id[1]), static_cast<long long>(ids.id[2]));
    who += "): ";
    const std::string angle = Fmt(
        "%c %lld * %g^(-%lld/%lld)", MropeAxisLetter(Axis(c)), static_cast<long long>(ids[Axis(c)]),
        m().theta, static_cast<long long>(c.exponent_num), static_cast<long long>(c.exponent_den));
    const double value = WaveValueAt(c, static_cast<double>(ids[Axis(c)]));
    if (c.wave == Wave::kAngle) return who + angle + Fmt(" = %.6g rad", value);
    return who + (c.wave == Wave::kCos ? "cos(" : "sin(") + angle + Fmt(") = %.4f", value);
  }

  // HF's apply_multimodal_rotary_pos_emb / apply_rotary_pos_emb: v * cos + rotate_half(v) * sin
  // with cos and sin of the token's M-RoPE angles; `position` is the table's (offset + token).
  void RotateQuery(int64_t position, double* v) const override { Rotate(position, v); }
  void RotateKey(int64_t position, double* v) const override { Rotate(position, v); }

  // Exact: the rotation is linear in e^{i angle} per pair, so the mean of R_p v is v turned by
  // each pair's mean of e^{i id_axis(p) w_i}. Over the sequence's id boxes (MropeSequence::
  // IdBoxes) that is sum_box TokensPerId(axis) sum_{k < n} e^{i (first + k) w_i}, with n and
  // first the box's count and first id on the pair's axis, and
  //   sum_{k < n} e^{i (first + k) w} = e^{i (2 first + n - 1) w / 2} sin(n w / 2) / sin(w / 2)
  // (the Dirichlet kernel; angles as exact products, ExpOfMultiple): O(boxes x pairs) for any
  // count.
  bool MeanRotated(int64_t position, int64_t count, const double* v, double* out) const override {
    const int64_t token = position - params_.offset;
    if (count < 1 || token < 0 || token > rows() - count) return false;
    const int64_t h = freq_.d_rot / 2;
    std::vector<double> re(static_cast<size_t>(h), 0.0), im(static_cast<size_t>(h), 0.0);
    for (const MropeSequence::IdBox& box : seq_.IdBoxes(token, count)) {
      for (int64_t i = 0; i < h; ++i) {
        const auto a = static_cast<size_t>(axes_[static_cast<size_t>(i)]);
        const double w = freq_.pairs[static_cast<size_t>(i)].scaled;
        const int64_t n = box.count[a];
        const UnitComplex mid =
            ExpOfMultiple(static_cast<double>(2 * box.first[a] + n - 1), 0.5 * w);
        const double kernel =
            n == 1 ? 1.0 : ExpOfMultiple(static_cast<double>(n), 0.5 * w).im / std::sin(0.5 * w);
        const double weight = static_cast<double>(box.TokensPerId(a)) * kernel;
        re[static_cast<size_t>(i)] += weight * mid.re;
        im[static_cast<size_t>(i)] += weight * mid.im;
      }
    }
    std::copy_n(v, params_.d_model, out);
    const bool half = m().pairing == RopePairing::kHalf;
    for (int64_t i = 0; i < h; ++i) {
      const double c = re[static_cast<size_t>(i)] / static_cast<double>(count);
      const double s = im[static_cast<size_t>(i)] / static_cast<double>(count);
      const int64_t da = half ? i : 2 * i, db = half ? i + h : 2 * i + 1;
      out[da] = v[da] * c - v[db] * s;
      out[db] = v[db] * c + v[da] * s;
    }
    return true;
  }

 private:
  const MropeParams& m() const { return params_.mrope(); }
  MropeAxis Axis(const WaveColumn& c) const { return axes_[static_cast<size_t>(c.pair)]; }
  // The first token after `token` (a text token) that is not text, or the end of the table.
  int64_t TextRunEnd(int64_t token) const {
    for (const MropeSequence::Image& im : seq_.images()) {
      if (im.image.at > token) return im.image.at;
    }
    return rows();
  }
  void Rotate(int64_t position, double* v) const {
    const int64_t h = freq_.d_rot / 2;
    const bool half = m().pairing == RopePairing::kHalf;
    const int64_t token = std::clamp<int64_t>(position - params_.offset, 0, rows() - 1);
    const MropeIds ids = seq_.Ids(token);
    for (int64_t i = 0; i < h; ++i) {
      const double angle = static_cast<double>(ids[axes_[static_cast<size_t>(i)]]) *
                           freq_.pairs[static_cast<size_t>(i)].scaled;
      const double c = std::cos(angle), s = std::sin(angle);
      double& x = v[half ? i : 2 * i];
      double& y = v[half ? i + h : 2 * i + 1];
      const double x0 = x, y0 = y;
      x = x0 * c - y0 * s;
      y = y0 * c + x0 * s;
    }
  }

  MropeSequence seq_;
  RopeFrequencies freq_;
  std::vector<WaveColumn> columns_;  // (cols): RoPE's columns
  std::vector<MropeAxis> axes_;      // (d_rot / 2): the axis of each pair
};

}  // namespace

Result<EncodingPtr> MakeMropeEncoding(const EncodingParams& params) {
  return EncodingPtr(std::make_shared<MropeEncoding>(params));
}

}  // namespace pe
