// State in, pictures out: random sequences of edits through the real widgets (numeric fields
// typed whole, half-typed, invalid, confirmed with Enter, a click elsewhere or cancelled with
// Escape; quick picks, the dimension list, the sentence, the typed-vectors editor, Reset) and
// between frames (layout, colormap, tokenizer), in random order. After every frame, what each
// panel drew must equal a fresh derivation from the state as it is after that frame.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "headless_ui.h"
#include "model/param_fields.h"
#include "panels/panels.h"
#include "views/view_registry.h"

namespace pe {
namespace {

class StateConsistency : public HeadlessUi {
 protected:
  // Every picture of the last frame against a fresh derivation from `state_`.
  void ExpectPicturesMatchState(const std::string& context) {
    SCOPED_TRACE(context);
    const DrawnRecord& drawn = caches_.drawn;
    const EncodingParams& pe = state_.params.pe;
    Result<EncodingPtr> made = MakeEncoding(pe, state_.params.cap);
    if (!made.ok()) {
      EXPECT_FALSE(drawn.heatmap_image.has_value());
      EXPECT_TRUE(drawn.picker_rows.empty());
      return;
    }
    const Encoding& e = *made.value();
    const auto waves = e.waves();
    if (drawn.heatmap_image) {
      ASSERT_EQ(*drawn.heatmap_image, pe) << "the heatmap shows another table";
    }
    for (const WaveColumn& c : drawn.picker_rows) {
      ASSERT_GE(c.dim, 0);
      ASSERT_LT(c.dim, e.cols()) << "the dimension list shows a row the table does not have";
      if (waves.empty()) continue;
      const WaveColumn& fresh = waves[static_cast<size_t>(c.dim)];
      ASSERT_EQ(c.pair, fresh.pair);
      ASSERT_EQ(c.wave, fresh.wave);
      ASSERT_EQ(c.frequency, fresh.frequency);
    }
    const std::vector<int64_t>& dims = state_.params.curve_dims;
    ASSERT_EQ(drawn.legend.size(), std::min<size_t>(dims.size(), 64));
    for (size_t k = 0; k < drawn.legend.size(); ++k) {
      ASSERT_EQ(drawn.legend[k].dim, dims[k]);
      if (!waves.empty()) {
        ASSERT_EQ(drawn.legend[k].frequency, waves[static_cast<size_t>(dims[k])].frequency);
      }
    }
    const CurvesCache& curves = caches_.curves;
    if (curves.key && !dims.empty()) {
      ASSERT_EQ(std::get<0>(*curves.key), pe) << "the curves were sampled from another table";
      ASSERT_EQ(std::get<1>(*curves.key), dims);
      for (size_t k = 0; k < std::min<size_t>(dims.size(), 64); ++k) {
        const CurveTrace& t = curves.traces[k];
        for (size_t s = 0; s < t.xs.size(); s += 97) {
          ASSERT_EQ(t.ys[s], e.ValueAt(dims[k], t.xs[s])) << "column " << dims[k];
        }
        for (size_t s = 0; s < t.lo.size(); s += 97) {
          WaveSpan span;
          if (!waves.empty()) {
            span = WaveRangeOver(waves[static_cast<size_t>(dims[k])], t.edges[s], t.edges[s + 1]);
          } else {
            // A table's band: the polyline's range, its edges and every row inside.
            const double a = e.ValueAt(dims[k], t.edges[s]), b = e.ValueAt(dims[k], t.edges[s + 1]);
            span = {std::min(a, b), std::max(a, b)};
            for (double x = std::ceil(t.edges[s]); x <= std::floor(t.edges[s + 1]); x += 1.0) {
              span.lo = std::min(span.lo, e.ValueAt(dims[k], x));
              span.hi = std::max(span.hi, e.ValueAt(dims[k], x));
            }
          }
          ASSERT_EQ(t.lo[s], span.lo) << "column " << dims[k];
          ASSERT_EQ(t.hi[s], span.hi) << "column " << dims[k];
        }
      }
    }
    for (const auto& [view, figure] : drawn.figures) {
      ASSERT_TRUE(ViewApplies(view, pe))
          << ViewName(view) << " drawn for " << SchemeName(pe.kind());
    }
    if (e.family() != Family::kAdded) {
      ASSERT_TRUE(drawn.sum_rows.empty()) << "a sum drawn for a scheme that adds nothing";
    }
    if (!drawn.sum_rows.empty()) {
      Result<SentenceResult> fresh =
          ComputeSentence(state_.params.example, e, state_.params.input, state_.params.cap);
      ASSERT_TRUE(fresh.ok()) << fresh.message();
      const Matrix& sum = fresh.value().parts.sum;
      ASSERT_EQ(static_cast<int64_t>(drawn.sum_rows.size()), sum.rows);
      ASSERT_EQ(drawn.sum_width, sum.cols);
      for (int64_t t = 0; t < sum.rows; ++t) {
        ASSERT_TRUE(std::equal(sum.row(t), sum.row(t) + sum.cols, drawn.sum_rows[t]))
            << "token " << t << " shows another sum";
      }
      if (drawn.heatmap_image) {
        ASSERT_LE(drawn.heatmap_outlined_rows, sum.rows);
      }
    }
    if (drawn.manual_sum) {
      const ManualVectors& m = state_.manual;
      InputLayerParams input = state_.params.input;
      input.scale = m.scale;
      Result<InputParts> fresh =
          CombineInputParts(MatrixFromValues(m.tokens, m.dims, m.embedding).value(),
                            MatrixFromValues(m.tokens, m.dims, m.positional).value(), input);
      ASSERT_TRUE(fresh.ok());
      ASSERT_EQ(drawn.manual_sum->rows, m.tokens);
      ASSERT_EQ(drawn.manual_sum->cols, m.dims);
      ASSERT_EQ(drawn.manual_sum->data, fresh.value().sum.data);
    }
  }

  void CheckedFrame(const std::string& context) {
    Frame();
    ExpectPicturesMatchState(context);
  }

  // Where item `label` of panel `panel` is: cached, checked by hovering, searched when moved.
  bool Locate(const char* panel, const char* label, ImVec2* at, int under = INT32_MIN) {
    ImGuiWindow* w = Child(panel);
    if (!w) return false;
    const ImGuiID id = under == INT32_MIN ? Id(w, label) : IdUnderInt(w, under, label);
    auto it = where_.find(id);
    if (it != where_.end()) {
      ImGui::GetIO().MousePos = it->second;
      CheckedFrame(std::string("hover ") + label);
      if (GImGui->HoveredId == id) {
        *at = it->second;
        return true;
      }
    }
    for (float x : {w->Pos.x + 25, w->Pos.x + w->Size.x * 0.3f, w->Pos.x + w->Size.x * 0.6f}) {
      if (Find(w, id, ImVec2(x, w->Pos.y), false, at)) {
        where_[id] = *at;
        return true;
      }
    }
    return false;
  }

  void Key(int key) {
    ImGuiIO& io = ImGui::GetIO();
    io.KeysDown[key] = true;
    CheckedFrame("key down");
    io.KeysDown[key] = false;
    CheckedFrame("key up");
  }

  // Types `text` into a field a few characters per frame, then ends the edit one of four ways.
  void TypeInto(const char* panel, const char* label, const std::string& text, std::mt19937& rng) {
    ImVec2 at;
    if (!Locate(panel, label, &at)) return;
    Click(at);
    ExpectPicturesMatchState("clicked a field");
    ImGuiIO& io = ImGui::GetIO();
    io.KeyCtrl = true;
    Key('A');
    io.KeyCtrl = false;
    for (size_t k = 0; k < text.size();) {
      const size_t n = std::uniform_int_distribution<size_t>(1, 3)(rng);
      io.AddInputCharactersUTF8(text.substr(k, n).c_str());
      CheckedFrame(std::string("typing into ") + label);
      k += n;
    }
    switch (std::uniform_int_distribution<int>(0, 3)(rng)) {
      case 0:
      case 1:
        Key(13);  // Enter
        break;
      case 2:
        Key(27);  // Escape
        break;
      default:
        Click(ImVec2(2, 2));  // focus elsewhere
        ExpectPicturesMatchState("clicked elsewhere");
    }
    CheckedFrame(std::string("after typing into ") + label);
  }

  void ClickItem(const char* panel, const char* label, int under = INT32_MIN) {
    ImVec2 at;
    if (!Locate(panel, label, &at, under)) return;
    Click(at);
    ExpectPicturesMatchState(std::string("clicked ") + label);
    CheckedFrame(std::string("after clicking ") + label);
  }

  std::map<ImGuiID, ImVec2> where_;
};

std::string RandomNumberText(std::mt19937& rng, const char* field) {
  const std::string f = field;
  std::uniform_int_distribution<int> pick(0, 9);
  const int kind = pick(rng);
  if (kind == 0) return "";
  if (kind == 1) return "-3";
  if (kind == 2) return "0";
  if (kind == 3) return "99999999999999999999999";
  if (kind == 4) return "1.5";
  if (f == "d_model") return std::to_string(std::uniform_int_distribution<int>(1, 260)(rng));
  if (f == "max_len") return std::to_string(std::uniform_int_distribution<int>(1, 3000)(rng));
  if (f == "base") {
    const char* bases[] = {"10000", "2", "1.0001", "1e9", "100", "1"};
    return bases[std::uniform_int_distribution<int>(0, 5)(rng)];
  }
  if (f == "offset") return std::to_string(std::uniform_int_distribution<int>(-5, 500)(rng));
  return std::to_string(std::uniform_int_distribution<int>(0, 1000)(rng));
}

TEST_F(StateConsistency, EveryPanelDrawsTheCurrentStateAfterEveryFrame) {
  std::mt19937 rng(20261122);
  // Fields of every scheme: the ones the current scheme does not show are skipped.
  const char* fields[] = {"d_model",  "max_len",    "base",   "offset",        "seed",
                          "head dim", "rope_theta", "factor", "min timescale", "output scale"};
  const char* picks[] = {"4,5,6,7", "every 8th i", "one pair", "clear"};
  const char* sentences[] = {"The cat sits on the mat", "I love NLP.",       "",
                             "a b c d e f g h i j k",   "Zażółć gęślą jaźń", "x"};
  Frames(2);
  std::set<Scheme> schemes_seen;
  const int kSteps = 300;
  for (int step = 0; step < kSteps; ++step) {
    const int action = std::uniform_int_distribution<int>(0, 11)(rng);
    SCOPED_TRACE("step " + std::to_string(step) + ", action " + std::to_string(action));
    switch (action) {
      case 0:
      case 1:
      case 2: {
        const char* f = fields[std::uniform_int_distribution<int>(0, 9)(rng)];
        TypeInto("controls", f, RandomNumberText(rng, f), rng);
        break;
      }
      case 3:
        ClickItem("curves", picks[std::uniform_int_distribution<int>(0, 3)(rng)]);
        break;
      case 4: {  // a checkbox of the dimension list (its rows are PushID(dim) in a child)
        ImGuiWindow* list = nullptr;
        for (ImGuiWindow* w : GImGui->Windows) {
          if (std::strstr(w->Name, "/dim_list_")) list = w;
        }
        if (list) {
          ImGuiIO& io = ImGui::GetIO();
          const float y =
              list->Pos.y + 8 + std::uniform_real_distribution<float>(0, list->Size.y - 16)(rng);
          Click(ImVec2(list->Pos.x + 14, y));
          (void)io;
          ExpectPicturesMatchState("clicked the dimension list");
          CheckedFrame("after the dimension list");
        }
        break;
      }
      case 5:
        if (!state_.sums.manual) {
          TypeInto("sums", "##text", sentences[std::uniform_int_distribution<int>(0, 5)(rng)], rng);
        }
        break;
      case 6:
        ClickItem("sums", "type the vectors yourself");
        break;
      case 7:
        if (state_.sums.manual) {
          ClickItem("sums", std::uniform_int_distribution<int>(0, 1)(rng) ? "blog example"
                                                                          : "scale by sqrt(d)");
        }
        break;
      case 8:
        ClickItem("controls", "Reset to defaults");
        break;
      case 9:
        ClickItem("controls", std::uniform_int_distribution<int>(0, 1)(rng)
                                  ? "scale by sqrt(d_model)"
                                  : "train mode");
        break;
      case 10: {  // edits that arrive between frames
        const int which = std::uniform_int_distribution<int>(0, 4)(rng);
        ModelParams& m = state_.params;
        if (which == 0 && m.pe.kind() == Scheme::kSinusoidal) {
          m.pe.sinusoidal().variant =
              static_cast<PeVariant>(std::uniform_int_distribution<int>(0, 2)(rng));
        } else if (which == 3) {
          SetScheme(m, static_cast<Scheme>(std::uniform_int_distribution<int>(0, 2)(rng)));
        } else if (which == 4 && m.pe.kind() == Scheme::kRope) {
          m.pe.rope().part = static_cast<RopePart>(std::uniform_int_distribution<int>(0, 2)(rng));
          m.pe.rope().scaling =
              static_cast<RopeScaling>(std::uniform_int_distribution<int>(0, 5)(rng));
          m.pe.rope().pairing =
              static_cast<RopePairing>(std::uniform_int_distribution<int>(0, 1)(rng));
        } else if (which == 1) {
          state_.params.example.tokenizer =
              static_cast<TokenizerKind>(std::uniform_int_distribution<int>(0, 1)(rng));
        } else {
          state_.params.colormap =
              static_cast<ColormapId>(std::uniform_int_distribution<int>(0, 1)(rng));
        }
        CheckedFrame("after a change between frames");
        break;
      }
      default: {  // wheel over a plot
        ImGuiIO& io = ImGui::GetIO();
        const HeatmapCache& h = caches_.heatmap;
        io.MousePos = ImVec2((h.plot_min.x + h.plot_max.x) / 2, (h.plot_min.y + h.plot_max.y) / 2);
        io.MouseWheel = std::uniform_int_distribution<int>(0, 1)(rng) ? 1.0f : -1.0f;
        CheckedFrame("wheel");
      }
    }
    if (HasFatalFailure()) return;
    schemes_seen.insert(state_.params.pe.kind());
  }
  EXPECT_EQ(schemes_seen.size(), 3u) << "the sequence should visit every scheme";
}

// Every view has one panel entry with its view's title, a draw function and a switch, and no two
// panels draw into one texture slot (the compare panel's A, B and A - B take three).
TEST(PanelEntries, EveryViewHasOnePanelWithItsOwnTextureSlots) {
  std::map<int, std::string> slots;
  std::set<ViewKind> views;
  for (const PanelEntry& p : ViewPanels()) {
    SCOPED_TRACE(p.id);
    EXPECT_TRUE(views.insert(p.view).second) << "two panels show one view";
    // Its title is its view's (ViewEntry::title), which an export's default title says too.
    EXPECT_EQ(p.title, nullptr) << "the panel says another title than its view's";
    EXPECT_NE(GetView(p.view).title, "");
    EXPECT_NE(p.draw, nullptr);
    EXPECT_NE(p.shown, nullptr);
    if (p.texture_slot < 0) continue;
    const int used = p.view == ViewKind::kCompare ? 3 : 1;
    for (int k = 0; k < used; ++k) {
      EXPECT_TRUE(slots.emplace(p.texture_slot + k, p.id).second)
          << "slot " << p.texture_slot + k << " is also " << slots[p.texture_slot + k] << "'s";
    }
  }
  EXPECT_EQ(views.size(), static_cast<size_t>(kViewKinds));
}

}  // namespace
}  // namespace pe
