// One interface for every positional scheme. An Encoding is built once from its parameters by
// MakeEncoding, which validates them; the object is immutable, so the UI thread, the workers and
// the CLI share it through a shared_ptr<const Encoding>.
//
// Every scheme exposes one natural table of (rows, cols) float32 values whose row r holds
// position first_position() + r:
//   sinusoidal: PE, (max_len, d_model), added to the token embeddings
//   learned:    the position-embedding table (GPT-2 wpe, BERT position_embeddings), added too
//   rope:       cos or sin (max_len, d_rot) in the pairing's layout, or the angle (max_len,
//               d_rot / 2), as RopeParams::part picks; it rotates queries and keys instead
//   alibi, t5:  the attention bias of one head, (max_len, max_len): row = query position, column
//               = key position (both from first_position()); it is added to the logits
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/matrix.h"
#include "base/progress.h"
#include "base/status.h"
#include "encoding/encoding_params.h"
#include "encoding/rope.h"
#include "encoding/scheme_descriptor.h"
#include "encoding/wave.h"

namespace pe {

// What a column of the table is: a dimension j, a rotated pair i (the angle tables) or a key
// position n (the bias tables, whose rows are query positions m).
enum class ColumnNoun { kDim, kPair, kKey };
std::string_view ColumnNounName(ColumnNoun noun);  // "dim", "pair", "key": "dim 5", "pair 3"

// One rotated pair of a head's dimensions, as the closed forms of q.k use it (RoFormer section
// 3.4.2): dims dim_a and dim_b of a query at position m turn by m * frequency, of a key at n by
// n * frequency, both times `amplitude`, so the pair adds
//   amplitude^2 e^{-decay (n - m)} Re(conj(Q) K e^{i (n - m) frequency})
// to q.k (Q = q_a + i q_b, K = k_a + i k_b). RoPE: amplitude is YaRN's attention factor (1
// otherwise), decay 0; xPos: amplitude 1, decay -ln(zeta_i) / scale_base.
struct RotaryPair {
  int64_t index = 0;  // i
  int64_t dim_a = 0, dim_b = 0;
  double frequency = 0;  // radians per position, after the scheme's scaling
  double amplitude = 1;
  double decay = 0;  // per position of n - m
};

struct ValueRange {
  double lo = -1.0, hi = 1.0;
  bool operator==(const ValueRange&) const = default;
};

// Allowed ranges of the shape, checked by ValidateEncodingParams.
inline constexpr int64_t kMaxDModel = 65536;
inline constexpr int64_t kMaxPosition = (int64_t{1} << 31) - 1;  // last position a table may hold

class Encoding {
 public:
  virtual ~Encoding() = default;
  Encoding(const Encoding&) = delete;
  Encoding& operator=(const Encoding&) = delete;

  const EncodingParams& params() const { return params_; }
  Scheme scheme() const { return params_.kind(); }
  const SchemeDescriptor& descriptor() const { return DescriptorOf(scheme()); }
  // The descriptor's family; an encoding written on the interface alone may say its own.
  virtual Family family() const { return descriptor().family; }

  int64_t rows() const { return params_.max_len; }
  int64_t first_position() const { return params_.offset; }
  int64_t last_position() const { return params_.offset + params_.max_len - 1; }
  virtual int64_t cols() const { return params_.d_model; }

  // "PE", "cos", "sin", "angle", "position embedding": what a cell of the table is.
  virtual std::string TableName() const = 0;
  // What a column is, for labels ("dim 5", "pair 3") and axes (AxesOf).
  virtual ColumnNoun column_noun() const { return ColumnNoun::kDim; }
  // "head dim" for the schemes that rotate a head's dimensions (RoPE, xPos), else "d_model":
  // what the table's width d_model is called in titles and the window.
  std::string_view WidthLabel() const { return descriptor().width_label; }
  // The colour bar's range: every value of the table lies inside it.
  virtual ValueRange Range() const = 0;
  // "sinusoidal (paper), d=128, L=100, base 10000": the parameters in one line.
  virtual std::string Summary() const = 0;
  // "Sinusoidal positional encoding (paper)": what the table is, for figure titles.
  virtual std::string Title() const = 0;
  // "paper", "learned", "rope-cos-yarn": a short tag for file names.
  virtual std::string FileTag() const = 0;

  // The table's columns as waves of the position (value = amplitude * wave(p w)), one per
  // column; empty for tables that are not (learned). Curves of wave columns are smooth.
  virtual std::span<const WaveColumn> waves() const { return {}; }
  // The rotated pairs with their frequencies, in pair order (d_rot / 2 of them: RoPE, xPos);
  // empty for the schemes that do not rotate. The closed forms of the score, similarity and
  // decay views sum over them.
  virtual std::span<const RotaryPair> rotary_pairs() const { return {}; }
  // Every pair's frequency before and after the context-extension scaling, for a scheme that
  // has one (RoPE, rope.h); null for the others, whose waves() carry their frequencies.
  virtual const RopeFrequencies* frequencies() const { return nullptr; }
  // ", yarn x8 (original 2048), attention factor 1.2079442": the scaling with what it depends
  // on, for titles; empty without one.
  virtual std::string ScalingText() const { return {}; }

  // Value of column `col` at a real-valued position, in double precision. Tables without a
  // formula (learned) take the nearest row inside the table.
  virtual double ValueAt(int64_t col, double position) const = 0;

  // Writes rows [row0, row0 + rows) and columns [col0, col0 + cols) into `out`, (rows, cols)
  // row-major, each value rounded once to float32. The caller keeps the block inside the table.
  virtual void FillBlock(int64_t row0, int64_t rows, int64_t col0, int64_t cols,
                         float* out) const = 0;
  // Mean of each column in [col0, col0 + cols) over table rows [row0, row0 + rows), into
  // `out` (cols). Exact; wave columns use closed forms, so any number of rows costs the same.
  virtual void MeanOverRows(int64_t row0, int64_t rows, int64_t col0, int64_t cols,
                            double* out) const;

  // Mean of the block rows [row0, row0 + rows) x columns [col0, col0 + cols) into `*mean`, in a
  // time that does not grow with the block, for tables with a closed form over rectangles (the
  // biases, whose (max_len, max_len) tables have as many columns as rows); false (the default)
  // when there is none and callers average MeanOverRows.
  virtual bool MeanOverBlock(int64_t row0, int64_t rows, int64_t col0, int64_t cols,
                             double* mean) const {
    (void)row0, (void)rows, (void)col0, (void)cols, (void)mean;
    return false;
  }

  // Texel means for the heatmap raster: out[y * width + x] (float32) = the mean of the cells at
  // absolute positions [row_edges[y], row_edges[y + 1]) and columns [col_edges[x],
  // col_edges[x + 1]), width = col_edges.size() - 1, in about the time of one closed form per
  // texel row and column (wave tables: MeanOverTexels in wave.h). False, writing nothing, when
  // the table has no such path (the default); callers average MeanOverRows then.
  virtual bool MeanOverTexels(std::span<const int64_t> row_edges,
                              std::span<const int64_t> col_edges, float* out) const {
    (void)row_edges, (void)col_edges, (void)out;
    return false;
  }

  // "sin(12 / 10000^(8/128)) = 0.3174": one cell's formula with its numbers.
  virtual std::string DescribeCell(int64_t position, int64_t col) const = 0;

  // How the scheme acts inside attention, for the attention-score view. A query at position m
  // and a key at position n (head-dimension vectors, (d_model)) are turned in place the way
  // models apply the scheme: RoPE and xPos rotate (xPos also scales the query up and the key
  // down); the others leave them as they are (the default). Positions are absolute.
  virtual void RotateQuery(int64_t position, double* v) const { (void)position, (void)v; }
  virtual void RotateKey(int64_t position, double* v) const { (void)position, (void)v; }
  // The mean over positions [position, position + count) of RotateQuery's (and RotateKey's)
  // turn of `v`, (d_model) into `out`, in a time that does not grow with count, for a rotation
  // with a closed form that rotary_pairs() cannot state (M-RoPE, whose pairs turn by ids other
  // than the position); false (the default), writing nothing, when there is none or the
  // positions leave the table.
  virtual bool MeanRotated(int64_t position, int64_t count, const double* v, double* out) const {
    (void)position, (void)count, (void)v, (void)out;
    return false;
  }
  // The bias added to the logit of query position m and key position n (ALiBi, T5); 0 for the
  // others (the default).
  virtual double Bias(int64_t query_position, int64_t key_position) const {
    (void)query_position, (void)key_position;
    return 0.0;
  }
  // True when the key is hidden from the query by a mask the scheme implies (causal ALiBi: keys
  // after the query). Bias() and the table hold 0 there; the logit is -inf in a model.
  virtual bool Masked(int64_t query_position, int64_t key_position) const {
    (void)query_position, (void)key_position;
    return false;
  }
  // Whether any key is masked: masks are causal, so the first query's last key tells.
  bool MasksAnyKey() const { return Masked(first_position(), first_position() + cols() - 1); }

 protected:
  explicit Encoding(EncodingParams params) : params_(std::move(params)) {}
  EncodingParams params_;
};

using EncodingPtr = std::shared_ptr<const Encoding>;

// How a table's axes are named, from its column_noun(): columns are dimensions j ("d5" in CSV
// headers), pairs i ("i5") or key positions n ("k5", the bias tables, whose rows are the query
// positions m).
struct TableAxes {
  std::string column_axis;   // "dimension j", "pair i", "key position n"
  std::string column_index;  // "j", "i", "n"
  std::string csv_prefix;    // "d", "i", "k"
  std::string row_axis;      // "position p", or "query position m"
  std::string row_index;     // "p", "m"
};
TableAxes AxesOf(const Encoding& encoding);

// An error naming the parameter, its allowed range and the value given; ok when all are valid.
Status ValidateEncodingParams(const EncodingParams& params);

// Whether the encoding of (valid) `params` fits `cap` without building it: the learned table,
// seeded or rows of a loaded file, is held in memory; the other schemes compute on demand. The
// message is the one MakeEncoding would give, so the window can refuse the field that was typed.
Status CheckEncodingFits(const EncodingParams& params, const MemoryCap& cap);

// How many values MakeEncoding stores for `params`: max_len * d_model for a learned table (it
// draws or reads them all), 0 for the schemes that compute on demand. The window builds an
// encoding with many off its UI thread.
int64_t StoredCells(const EncodingParams& params);

// Validates `params` and builds the encoding. Schemes that hold a table (learned) check it
// against `cap`; drawing a seeded table reports to `progress` every 2^20 values and stops when
// it returns false.
Result<EncodingPtr> MakeEncoding(const EncodingParams& params, const MemoryCap& cap = {},
                                 const Progress& progress = {});

// The whole natural table, (rows, cols), or an error for a table over `cap`.
Result<Matrix> ComputeTable(const Encoding& encoding, const MemoryCap& cap = {});

}  // namespace pe
