// OpenGL textures for the TextureStore: move-only RAII wrappers, created after the GL context
// and destroyed before it goes (the store must not outlive the context).
#pragma once

#include <vector>

#include "ui/texture_store.h"

namespace pe {

class GlTexture {
 public:
  GlTexture();
  ~GlTexture();
  GlTexture(GlTexture&& other) noexcept;
  GlTexture& operator=(GlTexture&& other) noexcept;
  GlTexture(const GlTexture&) = delete;
  GlTexture& operator=(const GlTexture&) = delete;
  void Upload(int w, int h, const unsigned char* rgba);
  ImTextureID id() const;

 private:
  unsigned int name_ = 0;
};

class GlTextureStore : public TextureStore {
 public:
  ImTextureID Upload(int slot, int w, int h, const unsigned char* rgba) override;

 private:
  std::vector<GlTexture> textures_;
};

}  // namespace pe
