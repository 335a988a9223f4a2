#include <gtest/gtest.h>

#include <cstdio>

#include "arch/catalogue.h"
#include "arch/hf_config.h"
#include "model/attention_window.h"

namespace pe {
namespace {

TEST(HfConfigDump, DISABLED_All) {
  for (const CatalogueEntry& e : ModelCatalogue()) {
    auto r = CatalogueModel(e.name);
    if (!r.ok()) {
      std::printf("%s: ERROR %s\n", std::string(e.name).c_str(), r.message().c_str());
      continue;
    }
    const ModelSchedule& s = r.value();
    std::printf("== %s %s %s L%lld H%lld kv%lld hd%lld hid%lld ctx%lld orig%lld\n", s.name.c_str(),
                s.model_type.c_str(), s.format.c_str(), (long long)s.shape.layers,
                (long long)s.shape.heads, (long long)s.shape.kv_heads, (long long)s.shape.head_dim,
                (long long)s.shape.hidden, (long long)s.shape.context,
                (long long)s.shape.original_context);
    for (size_t i = 0; i < s.layers.size(); ++i) {
      const LayerPosition& l = s.layers[i];
      std::string extra;
      if (l.pe.kind() == Scheme::kRope) {
        const RopeParams& p = l.pe.rope();
        extra = "theta=" + std::to_string(p.theta) +
                " scal=" + std::string(RopeScalingName(p.scaling)) +
                " f=" + std::to_string(p.factor) +
                " pair=" + std::string(RopePairingName(p.pairing)) +
                " frac=" + std::to_string(p.rotary_fraction);
      }
      std::printf("  %zu %s d=%lld L=%lld %s %s temp=%d sm=%g %s\n", i,
                  std::string(SchemeName(l.pe.kind())).c_str(), (long long)l.pe.d_model,
                  (long long)l.pe.max_len, AttentionWindowText(l.window).c_str(), l.type.c_str(),
                  (int)l.temperature.kind, l.softmax_scale, extra.c_str());
    }
    for (auto& k : s.unknown_keys) std::printf("  unknown: %s\n", k.c_str());
    for (auto& k : s.unsupported) std::printf("  unsupported: %s\n", k.c_str());
    for (auto& k : s.notes) std::printf("  note: %s\n", k.c_str());
  }
}

}  // namespace
}  // namespace pe
