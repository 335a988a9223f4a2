#include "model/model_schedule.h"

#include "base/format_text.h"

namespace pe {

int64_t FirstPositionalLayer(const ModelSchedule& s) {
  for (size_t i = 0; i < s.layers.size(); ++i) {
    if (s.layers[i].pe.kind() != Scheme::kNope) return static_cast<int64_t>(i);
  }
  return 0;
}

Status ApplyLayer(const ModelSchedule& s, int64_t layer, ModelParams& m) {
  const auto n = static_cast<int64_t>(s.layers.size());
  if (n == 0) return InvalidArgument(Fmt("--layer: model %s has no layers", s.name.c_str()));
  if (layer < 0 || layer >= n) {
    return InvalidArgument(
        Fmt("--layer must be an integer in [0, %lld] for %s (%lld layers), got %lld",
            static_cast<long long>(n - 1), s.name.c_str(), static_cast<long long>(n),
            static_cast<long long>(layer)));
  }
  const LayerPosition& l = s.layers[static_cast<size_t>(layer)];
  const int64_t rows = m.pe.max_len, offset = m.pe.offset;
  m.pe = l.pe;
  m.pe.max_len = rows;
  m.pe.offset = offset;
  m.causal_mask = l.window.kind == AttentionWindowKind::kCausal;
  m.attention_window = m.causal_mask ? AttentionWindow{} : l.window;
  m.temperature = l.temperature;
  m.softmax_scale = l.softmax_scale;
  m.input.scale = s.embedding_scale != 1;
  m.example.init = s.embedding_init_std == 1 ? EmbeddingInit::kNormal1 : EmbeddingInit::kNormal002;
  return {};
}

}  // namespace pe
