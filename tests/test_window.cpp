// The real window (GLFW + OpenGL 3) on a display: screenshots are written and have the size asked.
#include <gtest/gtest.h>
#include <stb_image.h>

#include <cstdlib>
#include <string>

namespace pe {
namespace {

struct Image {
  int w = 0, h = 0;
  std::vector<unsigned char> rgba;
  const unsigned char* at(int x, int y) const { return &rgba[(static_cast<size_t>(y) * w + x) * 4]; }
};

bool LoadPng(const std::string& path, Image& img) {
  int n = 0;
  unsigned char* data = stbi_load(path.c_str(), &img.w, &img.h, &n, 4);
  if (!data) return false;
  img.rgba.assign(data, data + static_cast<size_t>(img.w) * img.h * 4);
  stbi_image_free(data);
  return true;
}

std::string Shot(const std::string& name, const std::string& args) {
  const std::string dir = PE_TEST_TMP;
  std::system(("mkdir -p " + dir).c_str());
  const std::string path = dir + "/" + name;
  std::remove(path.c_str());
  const std::string cmd = std::string(PE_EXPLORER_EXE) + " --screenshot " + path + " " + args;
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  return path;
}

TEST(Window, ScreenshotHasTheRequestedSizeAndContent) {
  Image img;
  ASSERT_TRUE(LoadPng(Shot("default.png", "--frames 3 --size 1100x700"), img));
  EXPECT_EQ(img.w, 1100);
  EXPECT_EQ(img.h, 700);
  int distinct = 0;
  for (int x = 0; x < img.w; x += 7) distinct += img.at(x, 30)[0] != img.at(0, 0)[0];
  EXPECT_GT(distinct, 5) << "the window looks empty";
}

}  // namespace
}  // namespace pe
