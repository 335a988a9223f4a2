// Where panels put images for ImGui to draw: the window backs it with OpenGL textures, headless
// tests with a recorder. Panels never include GL.
#pragma once

#include <imgui.h>

#include <cstdint>
#include <vector>

namespace pe {

class TextureStore {
 public:
  virtual ~TextureStore() = default;
  // Replaces texture `slot` with (w, h) RGBA8 pixels, row 0 first, sampled nearest. The returned
  // id stays valid until the next Upload to the same slot or the store's destruction.
  virtual ImTextureID Upload(int slot, int w, int h, const unsigned char* rgba) = 0;
};

// Keeps the last pixels of each slot in memory: for tests and for running without a GPU.
class MemoryTextureStore : public TextureStore {
 public:
  struct Image {
    int w = 0, h = 0;
    std::vector<unsigned char> rgba;
  };
  ImTextureID Upload(int slot, int w, int h, const unsigned char* rgba) override {
    if (static_cast<int>(images_.size()) <= slot) images_.resize(static_cast<size_t>(slot) + 1);
    images_[static_cast<size_t>(slot)] = {w, h, std::vector<unsigned char>(rgba, rgba + 4 * w * h)};
    ++uploads_;
    return reinterpret_cast<ImTextureID>(static_cast<intptr_t>(slot + 1));
  }
  const Image& image(int slot) const { return images_.at(static_cast<size_t>(slot)); }
  int uploads() const { return uploads_; }

 private:
  std::vector<Image> images_;
  int uploads_ = 0;
};

}  // namespace pe
