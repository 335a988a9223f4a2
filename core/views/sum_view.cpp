// The sum view: a token's embedding, scaled, plus its positional vector: the model input.
// Only for schemes that add a vector to the embeddings.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "io/loaded_table.h"
#include "text/tokenizer.h"
#include "views/figure_budget.h"
#include "views/figure_export.h"
#include "views/view_builders.h"
#include "views/view_geometry.h"

namespace pe {
namespace {

std::string SumsTitle(const ModelParams& m, const Encoding& e, const SentenceResult& s, int token) {
  const char* pos = e.scheme() == Scheme::kLearned ? "W_pos" : "PE";
  std::ostringstream t;
  if (token < 0) {
    t << "Model input (embedding"
      << (m.input.scale ? " \xc3\x97 \xe2\x88\x9a"
                          "d"
                        : "")
      << " + " << pos << ") of every token, d_model = " << m.pe.d_model;
  } else if (!m.example.ids.empty()) {
    t << "Input vector of id " << s.ids[static_cast<size_t>(token)] << " (position "
      << m.pe.offset + token << "), d_model = " << m.pe.d_model;
  } else {
    t << "Input vector of \"" << VisibleWhitespace(s.tokens[static_cast<size_t>(token)].text)
      << "\" (id " << s.ids[static_cast<size_t>(token)] << ", position " << m.pe.offset + token
      << "), d_model = " << m.pe.d_model;
  }
  if (s.batch > 1) t << ", batch row " << s.row << " (rows 0 to " << s.batch - 1 << ")";
  return t.str();
}

// The figure's notes (legend lines without a swatch): where the embeddings come from and, for
// one token, the three norms side by side, so the role of sqrt(d) under each initialiser shows.
void AddNotes(const ModelParams& m, const Encoding& e, const SentenceResult& s, int token,
              Figure& f) {
  const Rgba8 none{255, 255, 255, 0};
  char buf[160];
  if (const TableRef& ref = m.example.embeddings; ref.loaded()) {
    // A loaded table: its file and hash, and how the ids index it.
    f.legend.push_back({"E: " + ref.spec, none});
    f.legend.push_back({"E hash " + HashText(ref.hash), none});
    if (ref.table->has_words() && m.example.ids.empty()) {
      f.legend.push_back({"ids: the file's row of each word", none});
      if (!s.unknown_tokens.empty()) {
        std::string missing = std::to_string(s.unknown_tokens.size()) + " word" +
                              (s.unknown_tokens.size() == 1 ? "" : "s") + " not in the file: ";
        missing += ref.table->FindWord(kUnknownToken) >= 0 ? "<unk> row" : "zero row";
        f.legend.push_back({missing, none});
      }
    } else {
      f.legend.push_back({!m.example.ids.empty() ? "ids typed, V = " + std::to_string(s.vocab_size)
                          : m.example.subword
                              ? "ids: " + m.example.subword->Describe()
                              : std::string("ids: order of first appearance in the text"),
                          none});
    }
  } else {
    if (!m.example.embedding_rows.empty()) {
      std::snprintf(buf, sizeof buf, "E: typed rows E[0] to E[%zu] (--embedding-rows)",
                    m.example.embedding_rows.size() - 1);
    } else if (m.example.init == EmbeddingInit::kTorch) {
      std::snprintf(buf, sizeof buf, "E: torch.manual_seed(%llu); nn.Embedding(%lld, %lld)",
                    static_cast<unsigned long long>(m.example.torch_seed),
                    static_cast<long long>(s.vocab_size), static_cast<long long>(m.pe.d_model));
    } else {
      std::snprintf(buf, sizeof buf, "E: random, untrained: %s, seed %llu",
                    InitFormula(m.example.init, m.pe.d_model).c_str(),
                    static_cast<unsigned long long>(m.example.seed));
    }
    f.legend.push_back({buf, none});
    f.legend.push_back({!m.example.ids.empty() ? "ids typed, V = " + std::to_string(s.vocab_size)
                        : m.example.subword
                            ? "ids: " + m.example.subword->Describe()
                            : std::string("ids: order of first appearance in the text"),
                        none});
  }
  if (!m.example.positional_rows.empty()) {
    std::snprintf(buf, sizeof buf, "PE: typed rows P[0] to P[%zu] (--positional-rows)",
                  m.example.positional_rows.size() - 1);
    f.legend.push_back({buf, none});
  }
  if (m.input.pe_discarded) {
    // The JAX pitfall: what the code adds is the zero table; name it, and the intended size.
    f.legend.push_back({"PE: zero (JAX pitfall: .at[].set() results never kept)", none});
    if (token >= 0) {
      std::vector<float> row(static_cast<size_t>(e.cols()));
      e.FillBlock(token, 1, 0, e.cols(), row.data());
      double acc = 0;
      for (float v : row) acc += static_cast<double>(v) * v;
      std::snprintf(buf, sizeof buf, "intended |PE| = %.3f, not added", std::sqrt(acc));
      f.legend.push_back({buf, none});
    }
  }
  if (token < 0) return;
  const InputParts& p = s.parts;
  const char* pos = e.scheme() == Scheme::kLearned ? "W_pos" : "PE";
  std::snprintf(buf, sizeof buf, "|E| = %.3f", p.Norm(Part::kEmbedding, token));
  f.legend.push_back({buf, none});
  std::snprintf(buf, sizeof buf, "|%s| = %.3f", m.input.scale ? kScaledEmbedding : "E",
                p.Norm(Part::kScaled, token));
  f.legend.push_back({buf, none});
  std::snprintf(buf, sizeof buf, "|%s| = %.3f", pos, p.Norm(Part::kPositional, token));
  f.legend.push_back({buf, none});
}

}  // namespace

Figure NoTokensFigure(const ModelParams& m, const std::string& title, const ViewRange& window) {
  // No tokens is a valid input (an empty text, or one of spaces for word tokens): the figure
  // says so over empty axes instead of refusing.
  Figure f;
  f.title = title;
  f.x = {"dimension j", false, false, true};
  f.y = {"value", false, false};
  f.view = {window.x0, window.x1, -1.0, 1.0};
  f.hlines.push_back(0.0);
  std::string note = NoTokensMessage(m.example.text);
  note[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(note[0])));
  f.legend.push_back({note + ": there is no vector to show", kNoColor});
  return f;
}

Result<Figure> SumsFigure(const ViewContext& c) {
  const ModelParams& m = c.params;
  const ViewSelection& sel = c.sel;
  Result<SentenceResult> sentence =
      ComputeSentence(m.example, *c.encoding, m.input, m.cap, sel.batch_row);
  if (!sentence.ok()) return sentence.error();
  const SentenceResult& s = sentence.value();
  if (s.tokens.empty())
    return NoTokensFigure(m, "Token vectors: no tokens", sel.windows[ViewKind::kSums]);
  const int tokens = static_cast<int>(s.tokens.size());
  if (sel.selected_token >= tokens) {
    return InvalidArgument("token must be in [0, " + std::to_string(tokens - 1) + "] or all, got " +
                           std::to_string(sel.selected_token));
  }
  const InputParts& parts = s.parts;
  const int64_t d = parts.embedding.cols;
  std::vector<const float*> series;
  Figure f;
  f.x = {"dimension j", false, false, true};
  f.y = {"value", false, false};
  const char* part_names[] = {
      "embedding E[id]",
      "scaled E \xc3\x97 \xe2\x88\x9a"
      "d",
      c.encoding->scheme() == Scheme::kLearned ? "positional W_pos[p]" : "positional PE[p]",
      "sum (model input)"};
  if (sel.selected_token >= 0) {
    const int t = sel.selected_token;
    for (int k = 0; k < 4; ++k) {
      series.push_back(parts.part(kAllParts[k]).row(t));
      f.legend.push_back({part_names[k], SeriesRgba(k)});
    }
  } else {
    for (int t = 0; t < std::min(tokens, kMaxTokenSeries); ++t) {
      series.push_back(parts.sum.row(t));
      // Typed ids are labelled "id 23" already; words are quoted.
      const std::string word = VisibleWhitespace(s.tokens[static_cast<size_t>(t)].text);
      f.legend.push_back({(m.example.ids.empty() ? "\"" + word + "\"" : word) +
                              " (p=" + std::to_string(m.pe.offset + t) + ")",
                          SeriesRgba(t)});
    }
  }
  f.title = SumsTitle(m, *c.encoding, s, sel.selected_token);
  if (sel.selected_token < 0 && tokens > static_cast<int>(series.size())) {
    f.legend.push_back(
        {"(first " + std::to_string(series.size()) + " of " + std::to_string(tokens) + " tokens)",
         {255, 255, 255, 0}});
  }
  AddNotes(m, *c.encoding, s, sel.selected_token, f);
  const ViewRange extent = SumsExtent(series, d);
  f.view = {sel.windows[ViewKind::kSums].x0, sel.windows[ViewKind::kSums].x1, extent.y0, extent.y1};
  f.hlines.push_back(0.0);
  const PixelSize px = PlotPixels(c, f);
  const double bar = 0.8 / static_cast<double>(series.size());
  const double px_per_dim = px.width / (f.view.x1 - f.view.x0);
  const auto j0 = static_cast<int64_t>(std::max(0.0, std::floor(f.view.x0)));
  const auto j1 = static_cast<int64_t>(std::min(static_cast<double>(d - 1), std::ceil(f.view.x1)));
  for (size_t k = 0; k < series.size(); ++k) {
    if (px_per_dim * bar >= 2.0) {
      for (int64_t j = j0; j <= j1; ++j) {
        const double x = static_cast<double>(j) - 0.4 + bar * static_cast<double>(k);
        f.rects.push_back(
            {x, 0.0, x + bar * 0.9, series[k][j], SeriesRgba(static_cast<int>(k)), true, 1});
      }
    } else {
      FigureSeries line;
      line.color = SeriesRgba(static_cast<int>(k));
      line.line_width = 1.0;
      for (int64_t j = j0; j <= j1; ++j) {
        line.xs.push_back(static_cast<double>(j));
        line.ys.push_back(series[k][j]);
      }
      f.series.push_back(std::move(line));
    }
  }
  return f;
}

namespace {
// Every row of the batch (one for text), as the table writes them.
Result<std::vector<SentenceResult>> Batch(const ViewContext& c) {
  Result<std::vector<SentenceResult>> b =
      ComputeBatch(c.params.example, *c.encoding, c.params.input, c.params.cap);
  // No tokens writes a table of no rows (the header alone; NPY shape (0, 4, d)).
  return b;
}
}  // namespace

Status CheckSumsTable(const ViewContext& c) {
  return Batch(c).status();
}

Status WriteSumsView(std::ostream& out, TableFormat format, const ViewContext& c,
                     const Progress& progress) {
  Result<std::vector<SentenceResult>> b = Batch(c);
  if (!b.ok()) return b.error();
  if (c.params.example.ids.size() > 1) {
    return WriteBatchSumTable(out, format, b.value(), c.params.pe, progress);
  }
  return WriteSumTable(out, format, b.value().front(), c.params.pe, progress);
}

// The sentence's four (T, d) parts, and one bar or point per dimension and series.
uint64_t SumsEstimate(const EstimateContext& c) {
  const auto d = static_cast<uint64_t>(c.params.pe.d_model);
  const auto tokens = static_cast<uint64_t>(ExampleTokenCount(c.params.example));
  const uint64_t series = c.sel.selected_token >= 0 ? 4 : std::min<uint64_t>(tokens, 32);
  return 4 * sizeof(float) * tokens * d + kFigureBytesPerSumItem * series * d;
}

std::string SumsTitle(const ModelParams& m, const Encoding&) {
  return std::string("Token embedding") +
         (m.input.scale ? " \xc3\x97 \xe2\x88\x9a"
                          "d"
                        : "") +
         " + positional vector (d_model = " + std::to_string(m.pe.d_model) + ")";
}

void SumsMetadata(const ModelParams& m, const ViewSelection& sel, MetadataList& out) {
  if (m.example.ids.size() > 1) out.push_back({"batch_row", std::to_string(sel.batch_row)});
  AddPresetMetadata(m, out);
}

ViewRange SumsWhole(const ModelParams& m, const Encoding&) {
  return {-0.5, static_cast<double>(m.pe.d_model) - 0.5, -1, 1};
}

}  // namespace pe
