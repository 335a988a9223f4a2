#include "model/walkthrough_presets.h"

#include <algorithm>

#include "base/closest_word.h"
#include "model/param_fields.h"

namespace pe {
namespace {

// The blog's worked sum: three tokens, d = 3, its embedding rows E[1], E[2], E[3]
// and its positional rows, typed as the blog prints them.
const TypedVectors kILoveNlp = {
    {"I", "love", "NLP"},
    3,
    {0.1f, 0.3f, 0.4f, 0.2f, 0.6f, 0.5f, 0.7f, 0.9f, 0.8f},
    {0.01f, 0.02f, 0.03f, 0.04f, 0.05f, 0.06f, 0.07f, 0.08f, 0.09f},
};

const WalkthroughPreset kPresets[] = {
    {"the-cat-sits", "\"The cat sits\" -> [0, 1, 2]",
     "The PyTorch notes: the six-word vocabulary The, cat, sits, on, the, mat and the "
     "sentence \"The cat sits\" as ids [0, 1, 2], d_model 512 as its example width",
     0, false, nullptr,
     [](ModelParams& m) {
       m.example.text = "The cat sits";
       m.example.vocabulary = {"The", "cat", "sits", "on", "the", "mat"};
       m.pe.d_model = 512;
     }},
    {"blog-position-2", "Blog: d = 6, position 2",
     "The blog: a sequence of L = 4 tokens, d = 6, position 2 gives sin 2 = 0.909 and "
     "cos 2 = -0.416 in its first two dimensions",
     2, false, nullptr,
     [](ModelParams& m) {
       m.example.text = "I love NLP.";
       m.pe.d_model = 6;
       m.pe.max_len = 4;
       m.input.scale = false;
     }},
    {"i-love-nlp", "Blog: \"I love NLP\" typed sum",
     "The blog: its hand-typed token embeddings and positional rows for \"I love NLP\", "
     "added without scaling",
     0, false, &kILoveNlp,
     [](ModelParams& m) {
       m.example.text = "I love NLP";
       // Its ids 0, 1, 2 (first appearance) take the blog's rows E[1], E[2], E[3] (the blog
       // counts from 1), and its positions 0, 1, 2 the blog's positional rows: both are
       // parameters (--embedding-rows, --positional-rows), so every view and export adds them.
       for (size_t r = 0; r < kILoveNlp.labels.size(); ++r) {
         const auto at = static_cast<std::ptrdiff_t>(r * 3);
         m.example.embedding_rows.emplace_back(kILoveNlp.embedding.begin() + at,
                                               kILoveNlp.embedding.begin() + at + 3);
         m.example.positional_rows.emplace_back(kILoveNlp.positional.begin() + at,
                                                kILoveNlp.positional.begin() + at + 3);
       }
       m.pe.d_model = 3;
       m.pe.max_len = 3;
       m.input.scale = false;
     }},
    {"jax-pitfall", "JAX: the discarded .at[].set()",
     "The JAX/Haiku notebook: d_model 64, embeddings times sqrt(d); its positional table "
     "is built with .at[].set() calls whose results are never kept, so it stays zero",
     2, true, nullptr,
     [](ModelParams& m) {
       m.pe.d_model = 64;
       m.input.dropout = 0.1;
       m.input.pe_discarded = true;  // every view adds the zero table the code adds
     }},
    {"embedding-ids", "PyTorch ids [2, 5, 0, 9], V 10, d 128",
     "The PyTorch notes: nn.Embedding(10, 128) looking up the ids [2, 5, 0, 9]", 0, false, nullptr,
     [](ModelParams& m) {
       m.example.ids = {{2, 5, 0, 9}};
       m.example.vocab_size = 10;
       m.pe.d_model = 128;
     }},
    {"embedding-batch", "Batch (2, 5), V 100, d 4",
     "The Annotated-Transformer-style tutorial: nn.Embedding(100, 4) on a batch of two sequences "
     "of five ids, out[i, j] = W[x[i, j]], shape (2, 5, 4)",
     0, false, nullptr,
     [](ModelParams& m) {
       m.example.ids = {{23, 37, 3, 45, 82}, {97, 61, 19, 73, 53}};
       m.example.vocab_size = 100;
       m.pe.d_model = 4;
     }},
};

}  // namespace

std::span<const WalkthroughPreset> WalkthroughPresets() {
  return kPresets;
}

const WalkthroughPreset* FindWalkthroughPreset(std::string_view name) {
  for (const WalkthroughPreset& p : kPresets) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

Status ApplyWalkthroughPreset(const std::string& name, ModelParams& m) {
  if (name == "none") {
    m.walkthrough_preset.clear();
    m.input.pe_discarded = false;  // the pitfall belongs to its preset
    return {};
  }
  const WalkthroughPreset* p = FindWalkthroughPreset(name);
  if (p == nullptr) {
    std::string names;
    for (const WalkthroughPreset& q : kPresets) {
      names += names.empty() ? "" : ", ";
      names += q.name;
    }
    return InvalidArgument("--walkthrough-preset must be one of " + names + " or none, got \"" +
                           name + "\"" + DidYouMean(name, WordsOfList(names + ", none")));
  }
  ModelParams fresh;
  fresh.cap = m.cap;
  p->apply(fresh);
  // The curves show the first columns of a narrow table (the default 4..7 would not exist).
  if (fresh.pe.d_model < 8) {
    fresh.curve_dims.clear();
    for (int64_t j = 0; j < std::min<int64_t>(fresh.pe.d_model, 4); ++j)
      fresh.curve_dims.push_back(j);
  }
  fresh.walkthrough_preset = std::string(p->name);
  m = std::move(fresh);
  return {};
}

}  // namespace pe
