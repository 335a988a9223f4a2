#include "window/gl_texture_store.h"

#define GL_GLEXT_PROTOTYPES
#include <GL/gl.h>

#include <cstdint>
#include <utility>

namespace pe {

GlTexture::GlTexture() {
  glGenTextures(1, &name_);
}

GlTexture::~GlTexture() {
  if (name_) glDeleteTextures(1, &name_);
}

GlTexture::GlTexture(GlTexture&& other) noexcept : name_(std::exchange(other.name_, 0)) {}

GlTexture& GlTexture::operator=(GlTexture&& other) noexcept {
  if (this != &other) {
    if (name_) glDeleteTextures(1, &name_);
    name_ = std::exchange(other.name_, 0);
  }
  return *this;
}

void GlTexture::Upload(int w, int h, const unsigned char* rgba) {
  glBindTexture(GL_TEXTURE_2D, name_);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
}

ImTextureID GlTexture::id() const {
  return reinterpret_cast<ImTextureID>(static_cast<intptr_t>(name_));
}

ImTextureID GlTextureStore::Upload(int slot, int w, int h, const unsigned char* rgba) {
  while (static_cast<int>(textures_.size()) <= slot) textures_.emplace_back();
  GlTexture& t = textures_[static_cast<size_t>(slot)];
  t.Upload(w, h, rgba);
  return t.id();
}

}  // namespace pe
