// The guided walkthroughs, as data. The input walkthrough (--walkthrough input): eight steps
// from text to model input (text, tokens, ids, the rows of E, x sqrt(d), + PE, dropout, the
// model input). The attention walkthrough (--walkthrough attention, attention_walkthrough.cpp):
// eight steps of how position enters attention (q and k, the four terms of an added scheme, the
// rotation, decay with distance, the biases, one query's softmax row, long context, layers that
// differ). Each step has its title, one sentence, the formula, the line of reference code it
// corresponds to, the current example's numbers and what the other views highlight. The
// window's panel (app/panels/walkthrough_panel.cpp) and the PDF handout (walkthrough_view.cpp)
// both draw from it, whatever the number of pages. No drawing here.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/matrix.h"
#include "base/status.h"
#include "base/ticks.h"
#include "encoding/encoding.h"
#include "figure/figure.h"
#include "figure/figure_render.h"
#include "model/input_layer.h"
#include "model/model_params.h"

namespace pe {

enum class WalkStep {
  kText,
  kTokens,
  kIds,
  kLookup,
  kScale,
  kPosition,
  kDropout,
  kInput,
  // The attention walkthrough's steps.
  kQueryKey,
  kFourTerms,
  kRotation,
  kDecay,
  kBiases,
  kSoftmaxRow,
  kLongContext,
  kLayers,
};
inline constexpr int kWalkStepCount = 8;  // steps of the input walkthrough
inline constexpr std::array<WalkStep, kWalkStepCount> kWalkSteps = {
    WalkStep::kText,  WalkStep::kTokens,   WalkStep::kIds,     WalkStep::kLookup,
    WalkStep::kScale, WalkStep::kPosition, WalkStep::kDropout, WalkStep::kInput};
inline constexpr int kAttentionStepCount = 8;  // steps of the attention walkthrough
inline constexpr std::array<WalkStep, kAttentionStepCount> kAttentionSteps = {
    WalkStep::kQueryKey, WalkStep::kFourTerms,  WalkStep::kRotation,    WalkStep::kDecay,
    WalkStep::kBiases,   WalkStep::kSoftmaxRow, WalkStep::kLongContext, WalkStep::kLayers};
// The steps of `kind`'s walkthrough, in order.
std::span<const WalkStep> WalkStepsOf(WalkthroughKind kind);
// "Text", "Tokens", "Ids", "Rows of E", "× √d", "+ PE", "Dropout", "Model input"; "q and k",
// "Four terms", "Rotation", "Decay", "Biases", "Softmax row", "Long context", "Layers"
std::string_view WalkStepName(WalkStep step);

// A token drawn as a box on a page (the tokens step's pieces, the ids step's ids under them).
struct WalkChip {
  std::string text;
  std::string note;  // under the box ("id 3"), or empty
  bool focus = false;
};

// A dropout mask drawn cell by cell: the followed token's first values before, the mask (1
// kept, 0 dropped) and after (kept values times `scale` = 1/(1 - p), dropped ones 0).
struct WalkMask {
  std::vector<double> before, after;
  std::vector<uint8_t> kept;
  double scale = 1;
  double p = 0;
  int64_t full = 0;  // values in the whole vector (the cells are its first ones)
  std::string caption;
};

// A tutorial a page names, cited by title and author: `key` is how the pages' text names it
// ("PyTorch notes", "blog"), matched without case.
struct WalkSource {
  std::string key;
  std::string citation;
};

struct WalkPage {
  WalkStep step = WalkStep::kText;
  std::string title;        // "4. Rows of E: each id picks one row of the embedding table"
  std::string explanation;  // one sentence
  std::string formula;
  std::string code;                  // the seed code it corresponds to, attributed
  std::vector<std::string> numbers;  // the current example's numbers, one line each
  std::vector<double> values;        // what the step highlights (the followed token's vector,
                                     // or the ids)
  std::vector<double> alt_values;    // the comparison: the intended PE (JAX pitfall), the sum
                                     // before dropout
  std::string highlight_text;        // what the other views of the window outline, in words
  std::string bar_axis = "norm";     // the value axis of the page's bars
  bool applies = true;  // false: the step does not apply to the scheme (its page says which does)
  std::vector<WalkChip> chips;  // tokens drawn as boxes (empty: none)
  WalkMask mask;                // a dropout mask drawn cell by cell (empty kept: none)
};

// A table drawn as an image on a step (E, the positional rows, the model input): its rows,
// their names, and which rows to outline.
struct WalkMatrix {
  std::string caption;
  Matrix values;                  // (rows, cols), cols at most kWalkMatrixCols
  std::vector<int64_t> row_ids;   // (rows) each row's index in the full table
  std::vector<int64_t> outlined;  // rows (indices into values) to outline
  int64_t focus_row = -1;         // the followed token's row (a bolder outline), or -1
  int64_t full_cols = 0;          // columns of the full table
  std::string row_axis;           // "id", "token"
};
// A bar of a step's comparison (the × √d step's norms): its name and value.
struct WalkBar {
  std::string label;
  double value = 0;
};

inline constexpr int64_t kWalkMatrixCols = 512;
inline constexpr int64_t kWalkMatrixRows = 256;

// The attention walkthrough's live numbers, as its pages print them (q = k = x, the score view's
// content, no projections). NaN where a step does not apply.
struct WalkAttention {
  int64_t query = 0, key = 0;  // the example's pair: query m, key n (m - n = 3 when it fits)
  int64_t shift = 0;           // both moved by this (10 when it fits): the same m - n
  double score = 0, shifted_score = 0;  // score(m, n) and score(m + shift, n + shift)
  double scale = 0;                     // the factor of q.k (1/sqrt(d) unless given)
  // Added schemes: x.x, x.PE_n, PE_m.x, PE_m.PE_n (raw dot products, before the scale).
  std::array<double, 4> terms = {0, 0, 0, 0};
  // Rotary schemes: each pair's part of score(m, n), scaled (q = k = x: |X_i|^2 cos((m-n) w_i)).
  std::vector<double> pair_parts;
  // Decay: query m = key n + r for each r, the score, and RoFormer's relative bound (rotary).
  std::vector<int64_t> distances;
  std::vector<double> decay_scores, decay_bound;
  std::vector<double> slopes;                        // ALiBi: each head's slope
  std::vector<std::pair<int64_t, int64_t>> buckets;  // T5: (key - query, bucket)
  std::vector<int64_t> softmax_keys;                 // the softmax row's keys
  std::vector<double> softmax_weights;               // under the parameters' window
  int64_t kept = 0, interpolated = 0, blended = 0;   // long context: pairs of each kind
  std::vector<std::string> layer_groups;             // layers that differ, one line each
};

struct Walkthrough {
  WalkthroughKind kind = WalkthroughKind::kInput;
  std::string title = "PE Explorer walkthrough: from text to model input";  // the handout's
  std::vector<WalkPage> pages;      // in step order (WalkStepsOf(kind))
  std::vector<WalkSource> sources;  // the tutorials the pages name
  // The example as the steps see it.
  std::vector<std::string> token_labels;  // (T)
  std::vector<int64_t> ids;               // (T)
  std::vector<int64_t> positions;         // (T)
  int64_t vocab_size = 0;
  int64_t d = 0;
  int focus = 0;                  // the followed token, in [0, T) (0 when T = 0)
  bool typed = false;             // typed embedding rows (--embedding-rows), not seeded rows
  bool typed_positional = false;  // typed positional rows (--positional-rows)
  bool pe_discarded = false;      // the JAX pitfall: the positional part is the zero table
  bool ids_pending = false;    // typed ids the input layer does not take yet: steps show the text
  InputParts parts;            // (T, d) as the code computes them
  Matrix intended_positional;  // (T, d) the JAX pitfall's intended table; empty otherwise
  std::vector<std::vector<WalkMatrix>> matrices;  // per page, drawn as images
  std::vector<std::vector<WalkBar>> bars;         // per page, drawn as bars
  WalkAttention attention;                        // the attention walkthrough's numbers
};

// The walkthrough of `params`' example with `encoding` (an added scheme) following token
// `focus` (clamped to the tokens; -1 means 0). Errors: a scheme that adds nothing, a typed
// preset whose tables do not match d_model, what ComputeSentence refuses.
Result<Walkthrough> BuildWalkthrough(const ModelParams& params, const Encoding& encoding,
                                     int focus);
// The attention walkthrough of `params` with `encoding` (any scheme): errors are those of the
// score view's content (AttentionScorer::Make).
Result<Walkthrough> BuildAttentionWalkthrough(const ModelParams& params,
                                              const EncodingPtr& encoding, int focus);
// The walkthrough params.walkthrough names.
Result<Walkthrough> BuildWalkthrough(const ModelParams& params, const EncodingPtr& encoding,
                                     int focus);

// The page of one step as a figure laid out to fill `size` (walkthrough_view.cpp): its title,
// sentence, formula, numbers (at least kWalkNumbersPt), code line, the tutorials it names (by
// title and author), and its picture: the table as a heatmap with its rows named, the bars
// named and valued on each bar, the dropout mask cell by cell, or the tokens as boxes. Sized
// from the page's parts, whatever the step. The figure's title is `w.title` (the document's);
// the page's own title is drawn on it.
inline constexpr double kWalkNumbersPt = 10;
Figure WalkPageFigure(const Walkthrough& w, int step, ColormapId colormap, const FigureSize& size);

// The names of a token matrix's rows as ticks at their centres (r + 0.5): each row's token,
// every k-th row with k the least that keeps names `name_height` apart when `shown_rows` rows
// take `height` (same units). Empty for a matrix of ids.
std::vector<Tick> WalkRowTicks(const Walkthrough& w, const WalkMatrix& m, double shown_rows,
                               double height, double name_height);

// A walk matrix as an RGBA image, colours from `colormap` over [-m, m] with m the largest
// |value| (1 when all are zero).
FigureImage WalkMatrixImage(const WalkMatrix& m, ColormapId colormap, float* range);

}  // namespace pe
