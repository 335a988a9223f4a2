// `export --from FIGURE` and the copied command, run as a user runs them: for every view of the
// registry and every scheme it applies to, a figure exported in-process (as the window does)
// with a non-default window, token, size and title is drawn again from its own metadata, and by
// the command ExportCommandLine gives, byte for byte, as PNG, SVG and PDF. Bad files are
// refused with a message naming the file, and nothing is written.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <span>
#include <sstream>

#include "cli/export_command.h"
#include "io/figure_metadata_reader.h"
#include "model/param_fields.h"
#include "session/figure_session.h"
#include "test_support.h"
#include "views/figure_command.h"
#include "views/figure_export.h"
#include "views/view_registry.h"

namespace pe {
namespace {

using pe::testing::ReadFile;

struct ShellRun {
  int code = -1;
  std::string output;
};

// `args` is shell text (already quoted), run by bash with the real binary.
ShellRun Shell(const std::string& args) {
  const std::string script = std::string(PE_EXPLORER_EXE) + " " + args + " 2>&1";
  std::string quoted;
  for (char c : script) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  ShellRun r;
  FILE* p = ::popen(("bash -c '" + quoted + "'").c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, n);
  const int status = ::pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

bool Exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// Every window the view reads pulled in from the default by a fifth of its span at the start
// and a tenth at the end: a panned and zoomed panel, numbers that %.10g would not keep.
ViewSelection Zoomed(const ModelParams& p, ViewKind view) {
  ViewSelection sel = DefaultViews(p);
  for (ViewKind k : ViewWindowKeys(view)) {
    ViewRange& w = sel.windows[k];
    const double dx = w.x1 - w.x0, dy = w.y1 - w.y0;
    w = {w.x0 + dx / 5.0, w.x1 - dx / 10.0 + 1.0 / 3.0, w.y0 + dy / 5.0, w.y1 - dy / 10.0};
  }
  sel.selected_token = 1;
  sel.highlight = view == ViewKind::kCurves;  // the heatmap gets --token without highlight
  sel.markers = false;
  sel.rotation_position = p.pe.offset + 5;
  if (view == ViewKind::kWalkthrough) sel.walkthrough_step = 2;
  return sel;
}

ModelParams Small(Scheme s) {
  ModelParams p;
  SetScheme(p, s);
  p.pe.d_model = 16;
  p.pe.max_len = 24;
  // An image, so the views of a patch (mrope-neighbours) have one to show.
  if (s == Scheme::kMrope) p.pe.mrope().images = {{3, 1, 3, 4}};
  return p;
}

using FigureFrom = pe::testing::TempDirTest;

TEST_F(FigureFrom, EveryViewAndSchemeRedrawsByteForByte) {
  const FigureSize size{430, 290, 1.5};
  int figures = 0;
  for (const ViewEntry& v : Views()) {
    for (Scheme s : kAllSchemeKinds) {
      if (!(v.schemes & SchemeBit(s))) continue;
      const ModelParams p = Small(s);
      if (!ViewApplies(v.kind, p.pe)) continue;
      // The layers view draws a built-in model's schedule (test_model_cli.cpp redraws one).
      if (v.kind == ViewKind::kLayers) continue;
      const ViewSelection sel = Zoomed(p, v.kind);
      const std::string what = std::string(v.name) + " / " + std::string(SchemeName(s));
      // The custom title on one format in three, the default title on the others.
      int k = 0;
      for (const char* ext : {"png", "svg", "pdf"}) {
        ExportRequestOptions options;
        options.size = size;
        if (k++ == 1) options.title = "It's \"quoted\" & <odd> (" + what + ")";
        const std::string a = Path(std::string(v.name) + "_a." + ext);
        const std::string b = Path(std::string(v.name) + "_b." + ext);
        const std::string c = Path(std::string(v.name) + "_c." + ext);
        ASSERT_TRUE(ExportView(v.kind, p, sel, a, options).ok()) << what << " " << ext;
        const std::string original = ReadFile(a);
        ASSERT_FALSE(original.empty()) << what;
        ShellRun r = Shell("export --from " + ShellQuote(a) + " -o " + ShellQuote(b));
        ASSERT_EQ(r.code, 0) << what << " " << ext << ": " << r.output;
        EXPECT_TRUE(ReadFile(b) == original) << what << " " << ext << ": --from differs";
        // The copied command writes the same bytes.
        std::string line = ExportCommandLine(v.kind, p, sel, size, options.title, c);
        ASSERT_EQ(line.rfind("pe-explorer export ", 0), 0u) << line;
        r = Shell(line.substr(std::string("pe-explorer ").size()));
        ASSERT_EQ(r.code, 0) << what << " " << ext << ": " << line << "\n" << r.output;
        EXPECT_TRUE(ReadFile(c) == original)
            << what << " " << ext << ": the command differs: " << line;
        ++figures;
      }
    }
  }
  EXPECT_GT(figures, 60);
}

TEST_F(FigureFrom, FlagsOverrideTheFileAndTheExtensionPicksTheFormat) {
  ModelParams p = Small(Scheme::kRope);
  ExportRequestOptions options;
  options.size = {400, 260, 1};
  ASSERT_TRUE(ExportView(ViewKind::kHeatmap, p, DefaultViews(p), Path("a.png"), options).ok());
  // --d-model 64 over the file's 16: the same figure as exporting with 64 directly.
  p.pe.d_model = 64;
  ASSERT_TRUE(ExportView(ViewKind::kHeatmap, p, DefaultViews(p), Path("want.svg"), options).ok());
  ShellRun r = Shell("export --from " + Path("a.png") + " --d-model 64 -o " + Path("got.svg"));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(ReadFile(Path("got.svg")) == ReadFile(Path("want.svg")));
  // Another scheme drops the file's rope parameters.
  r = Shell("export --from " + Path("a.png") + " --scheme alibi --view bias -o " + Path("b.png"));
  EXPECT_EQ(r.code, 0) << r.output;
  // A table from a figure: the figure flags are left out.
  r = Shell("export --from " + Path("a.png") + " -o " + Path("t.npy"));
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(Exists(Path("t.npy")));
}

TEST_F(FigureFrom, TheCommandHasOnlyWhatDiffersFromTheDefaults) {
  ModelParams p;
  const ViewSelection sel = DefaultViews(p);
  EXPECT_EQ(ExportCommandLine(ViewKind::kHeatmap, p, sel, FigureSize{}, "", "pe.png"),
            "pe-explorer export --view heatmap -o pe.png");
  SetScheme(p, Scheme::kRope);
  p.pe.d_model = 64;
  EXPECT_EQ(ExportCommandLine(ViewKind::kScore, p, DefaultViews(p), FigureSize{800, 540, 2},
                              "it's mine", "my figure.png"),
            "pe-explorer export --view score --scheme rope --d-model 64 --width 800 --scale 2 "
            "--title 'it'\"'\"'s mine' -o 'my figure.png'");
  // A scaling's own parameters at their defaults are not named; one changed is.
  p.pe.rope().scaling = RopeScaling::kYarn;
  EXPECT_EQ(ExportCommandLine(ViewKind::kHeatmap, p, DefaultViews(p), FigureSize{}, "", "y.png"),
            "pe-explorer export --view heatmap --scheme rope --d-model 64 --rope-scaling yarn "
            "-o y.png");
  p.pe.rope().beta_fast = 16;
  EXPECT_EQ(ExportCommandLine(ViewKind::kHeatmap, p, DefaultViews(p), FigureSize{}, "", "y.png"),
            "pe-explorer export --view heatmap --scheme rope --d-model 64 --rope-scaling yarn "
            "--beta-fast 16 -o y.png");
}

// A text of several lines stays one command line ($'...' quoting), and the command run by bash
// gives the text back exactly.
TEST_F(FigureFrom, AMultiLineTextIsOneCommandLineThatRunsBack) {
  ModelParams p;
  p.example.text = "it's\n\tan \\ odd\r\n poem";
  p.example.tokenizer = TokenizerKind::kChar;
  const std::string line =
      ExportCommandLine(ViewKind::kSums, p, DefaultViews(p), FigureSize{}, "", Path("a.csv"));
  EXPECT_EQ(line.find('\n'), std::string::npos) << line;
  EXPECT_NE(line.find("--text $'it\\'s\\n\\tan \\\\ odd\\r\\n poem'"), std::string::npos) << line;
  const std::string args = line.substr(std::string("pe-explorer ").size());
  ShellRun r = Shell(args);
  ASSERT_EQ(r.code, 0) << r.output;
  // One row per character of the text: 23 code points, 23 tokens.
  r = Shell("export --view sum --tokenizer char --text $'it\\'s\\n\\tan \\\\ odd\\r\\n poem' -o " +
            Path("b.csv"));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(pe::testing::ReadFile(Path("a.csv")), pe::testing::ReadFile(Path("b.csv")));
}

// A --versus typed for another scheme (kept in the window's state, where the compare view says it
// does not apply), or a query past a shortened table, is no part of another view's figure: its
// metadata and command leave it out, and a figure written before that still opens.
TEST_F(FigureFrom, AStaleVersusOrQueryStaysOutOfOtherViewsFigures) {
  ModelParams p;
  p.versus = "rope_theta=500000";  // as left by the window after a switch from rope
  p.compare_of = CompareOf::kTable;
  ASSERT_FALSE(ApplyVersus(p, p.versus).ok());
  const ViewSelection sel = DefaultViews(p);
  auto has = [](const std::vector<std::pair<std::string, std::string>>& md, const char* key) {
    return std::any_of(md.begin(), md.end(), [&](const auto& kv) { return kv.first == key; });
  };
  p.query = 500;  // a query past the 100 positions, as left after max_len was shortened
  const auto heat = FigureMetadata(ViewKind::kHeatmap, p, sel, FigureSize{}, "", nullptr);
  EXPECT_FALSE(has(heat, "versus"));
  EXPECT_FALSE(has(heat, "compare_of"));
  EXPECT_FALSE(has(heat, "query"));
  p.query = 7;
  EXPECT_TRUE(
      has(FigureMetadata(ViewKind::kAttention, p, sel, FigureSize{}, "", nullptr), "query"));
  p.query = 500;
  EXPECT_EQ(ExportCommandLine(ViewKind::kHeatmap, p, sel, FigureSize{}, "", "pe.png"),
            "pe-explorer export --view heatmap -o pe.png");
  const auto cmp = FigureMetadata(ViewKind::kCompare, p, sel, FigureSize{}, "", nullptr);
  EXPECT_TRUE(has(cmp, "versus"));
  EXPECT_TRUE(has(cmp, "compare_of"));
  // An older heatmap figure that recorded it: the flags read from it leave it out.
  auto old = heat;
  old.push_back({"versus", p.versus});
  old.push_back({"compare_of", "table"});
  old.push_back({"query", "500"});
  old.push_back({"app_version", PE_VERSION});
  Result<std::vector<CommandFlag>> flags = FlagsFromMetadata(old, PE_VERSION);
  ASSERT_TRUE(flags.ok()) << flags.message();
  for (const CommandFlag& f : flags.value()) {
    EXPECT_NE(f.flag, "--versus");
    EXPECT_NE(f.flag, "--compare-of");
    EXPECT_NE(f.flag, "--query");
  }
  // The compare view's own figure keeps reading them.
  auto old_cmp = old;
  old_cmp[0].second = "compare";
  flags = FlagsFromMetadata(old_cmp, PE_VERSION);
  ASSERT_TRUE(flags.ok());
  EXPECT_TRUE(std::any_of(flags.value().begin(), flags.value().end(),
                          [](const CommandFlag& f) { return f.flag == "--versus"; }));
}

TEST_F(FigureFrom, BadFilesAreRefusedNamingTheFileAndNothingIsWritten) {
  ModelParams p = Small(Scheme::kSinusoidal);
  ExportRequestOptions options;
  options.size = {300, 200, 1};
  ASSERT_TRUE(ExportView(ViewKind::kCurves, p, DefaultViews(p), Path("ok.png"), options).ok());
  ASSERT_TRUE(ExportView(ViewKind::kCurves, p, DefaultViews(p), Path("ok.svg"), options).ok());
  ASSERT_TRUE(ExportView(ViewKind::kCurves, p, DefaultViews(p), Path("ok.pdf"), options).ok());
  const std::string png = ReadFile(Path("ok.png"));
  const std::string svg = ReadFile(Path("ok.svg"));
  const std::string pdf = ReadFile(Path("ok.pdf"));
  auto replaced = [](std::string s, const std::string& from, const std::string& to) {
    const size_t at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) s.replace(at, from.size(), to);
    return s;
  };
  WriteBytes(Path("cut.png"), png.substr(0, png.size() / 2));
  WriteBytes(Path("cut.svg"), svg.substr(0, svg.size() - 20));
  WriteBytes(Path("cut.pdf"), pdf.substr(0, pdf.size() - 30));
  WriteBytes(Path("text.png"), "hello, world\n");
  WriteBytes(Path("empty.png"), "");
  WriteBytes(Path("newer.svg"), replaced(svg, "name=\"app_version\" value=\"" PE_VERSION "\"",
                                         "name=\"app_version\" value=\"999.0\""));
  WriteBytes(Path("unknown.svg"), replaced(svg, "name=\"d_model\"", "name=\"d_mode1\""));
  // A PNG with the app's text chunks renamed away (as an editor that drops them would).
  std::string foreign = png;
  for (size_t at = foreign.find("tEXtpe:"); at != std::string::npos;
       at = foreign.find("tEXtpe:", at)) {
    foreign[at + 4] = 'x';
  }
  WriteBytes(Path("foreign.png"), foreign);
  ::mkdir(Path("folder.png").c_str(), 0755);
  const std::pair<const char*, const char*> cases[] = {
      {"cut.png", "cut short"},
      {"cut.svg", "cut short"},
      {"cut.pdf", "cut short"},
      {"text.png", "not a PNG, SVG or PDF"},
      {"empty.png", "is empty"},
      {"newer.svg", "999.0, newer than this"},
      {"unknown.svg", "unknown metadata key \"d_mode1\""},
      {"foreign.png", "checksum"},
      {"folder.png", "is a directory"},
      {"missing.png", "No such file"},
  };
  for (const auto& [name, says] : cases) {
    const std::string out = Path(std::string("out_") + name + ".png");
    ShellRun r = Shell("export --from " + Path(name) + " -o " + out);
    EXPECT_NE(r.code, 0) << name;
    EXPECT_NE(r.output.find(Path(name)), std::string::npos) << name << ": " << r.output;
    EXPECT_NE(r.output.find(says), std::string::npos) << name << ": " << r.output;
    EXPECT_FALSE(Exists(out)) << name;
  }
}

// The PNG CRC-32 (ISO 3309) of `bytes`, to write a tEXt chunk by hand.
uint32_t Crc32(const std::string& bytes) {
  uint32_t c = 0xffffffffu;
  for (unsigned char b : bytes) {
    c ^= b;
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
  }
  return c ^ 0xffffffffu;
}

// `png` with the text of its "pe:KEY" tEXt chunk replaced by `value` (length and CRC rewritten).
std::string WithPngText(const std::string& png, const std::string& key, const std::string& value) {
  const std::string type_and_key = "tEXtpe:" + key + std::string(1, '\0');
  const size_t at = png.find(type_and_key);
  EXPECT_NE(at, std::string::npos) << key;
  if (at == std::string::npos || at < 4) return png;
  auto be32 = [](uint32_t v) {
    return std::string{static_cast<char>(v >> 24), static_cast<char>(v >> 16),
                       static_cast<char>(v >> 8), static_cast<char>(v)};
  };
  const size_t start = at - 4;
  const uint32_t length = (uint32_t{static_cast<unsigned char>(png[start])} << 24) |
                          (uint32_t{static_cast<unsigned char>(png[start + 1])} << 16) |
                          (uint32_t{static_cast<unsigned char>(png[start + 2])} << 8) |
                          uint32_t{static_cast<unsigned char>(png[start + 3])};
  const std::string data = type_and_key.substr(4) + value;
  const std::string chunk =
      be32(static_cast<uint32_t>(data.size())) + "tEXt" + data + be32(Crc32("tEXt" + data));
  return png.substr(0, start) + chunk + png.substr(start + 12 + length);
}

// A bad value in a figure's metadata is said of the file and its key, not of a flag nobody typed,
// by export --from and when the window opens the figure; a NaN window is one of them.
TEST_F(FigureFrom, BadMetadataValuesNameTheFileAndTheKey) {
  ModelParams p = Small(Scheme::kSinusoidal);
  ExportRequestOptions options;
  options.size = {300, 200, 1};
  const ViewSelection sel = Zoomed(p, ViewKind::kHeatmap);
  ASSERT_TRUE(ExportView(ViewKind::kHeatmap, p, sel, Path("ok.svg"), options).ok());
  ASSERT_TRUE(ExportView(ViewKind::kHeatmap, p, sel, Path("ok.png"), options).ok());
  const std::string svg = ReadFile(Path("ok.svg"));
  const std::string png = ReadFile(Path("ok.png"));
  struct Case {
    std::string key, value, says;
  };
  const Case cases[] = {
      {"view", "heatmapx", "must be one of"},
      {"scheme", "ropex", "must be one of"},
      {"d_model", "0", "must be an integer in [1, 65536], got \"0\""},
      {"max_len", "0", "must be an integer in [1, 2147483648], got \"0\""},
      {"base", "1", "must be a finite number greater than 1, got \"1\""},
      {"width", "1e3", "must be an integer in [120, 10000], got \"1e3\""},
      {"height", "50", "must be an integer in [90, 10000], got \"50\""},
      {"scale", "99", "must be a number in [0.25, 8], got \"99\""},
      {"token", "99", "must be all or a token index"},
      {"heatmap_window", "nan:nan:nan:nan", "must be X0:X1:Y0:Y1"},
      {"heatmap_window", "0:1e308:0:1e308", "must be X0:X1:Y0:Y1"},
  };
  int k = 0;
  for (Case c : cases) {
    for (const char* ext : {"svg", "png"}) {
      const std::string name = Path("bad" + std::to_string(k++) + "." + ext);
      if (std::string(ext) == "svg") {
        const std::string from = "name=\"" + c.key + "\" value=\"";
        const size_t at = svg.find(from);
        ASSERT_NE(at, std::string::npos) << c.key;
        const size_t end = svg.find('"', at + from.size());
        WriteBytes(name, svg.substr(0, at + from.size()) + c.value + svg.substr(end));
      } else {
        WriteBytes(name, WithPngText(png, c.key, c.value));
      }
      const std::string said =
          name + ": metadata " + (std::string(ext) == "png" ? "pe:" : "") + c.key + ": " + c.says;
      const std::string out = Path("out.png");
      ShellRun r = Shell("export --from " + name + " -o " + out);
      EXPECT_EQ(r.code, 2) << c.key << " " << ext << ": " << r.output;
      EXPECT_NE(r.output.find(said), std::string::npos) << said << "\n" << r.output;
      EXPECT_EQ(r.output.find("pe-explorer: --"), std::string::npos) << r.output;
      EXPECT_FALSE(Exists(out)) << c.key;
      // The window opens a figure through the same reading.
      Result<FigureSession> opened = ReadFigureSession(name);
      ASSERT_FALSE(opened.ok()) << c.key << " " << ext;
      EXPECT_NE(opened.message().find(said), std::string::npos) << opened.message();
    }
  }
  // The drawn range is not read back, but a NaN there is no figure this app wrote.
  {
    const std::string from = "name=\"x_range\" value=\"";
    const size_t at = svg.find(from);
    ASSERT_NE(at, std::string::npos);
    const size_t end = svg.find('"', at + from.size());
    WriteBytes(Path("nan_range.svg"), svg.substr(0, at + from.size()) + "nan:3" + svg.substr(end));
    ShellRun r = Shell("export --from " + Path("nan_range.svg") + " -o " + Path("out.png"));
    EXPECT_EQ(r.code, 2) << r.output;
    EXPECT_NE(r.output.find(Path("nan_range.svg")), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("x_range \"nan:3\""), std::string::npos) << r.output;
    EXPECT_FALSE(Exists(Path("out.png")));
  }
  // A flag typed beside the file is still named as the flag.
  ShellRun r = Shell("export --from " + Path("ok.svg") + " --d-model 0 -o " + Path("out.png"));
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("--d-model must be an integer in [1, 65536], got \"0\""),
            std::string::npos)
      << r.output;
}

// Parameters only other views read are no part of a figure: a heatmap's metadata and command
// leave out the curves' dims and the similarity measure, so the command runs and redraws it.
TEST_F(FigureFrom, WhatOnlyOtherViewsReadStaysOutOfTheCommand) {
  ModelParams p = Small(Scheme::kSinusoidal);
  p.curve_dims = {0, 1};
  p.measure = SimilarityMeasure::kCosine;
  const ViewSelection sel = DefaultViews(p);
  const FigureSize size{300, 200, 1};
  const std::string line = ExportCommandLine(ViewKind::kHeatmap, p, sel, size, "", Path("c.png"));
  EXPECT_EQ(line.find("--dims"), std::string::npos) << line;
  EXPECT_EQ(line.find("--measure"), std::string::npos) << line;
  ExportRequestOptions options;
  options.size = size;
  ASSERT_TRUE(ExportView(ViewKind::kHeatmap, p, sel, Path("a.png"), options).ok());
  ShellRun r = Shell(line.substr(std::string("pe-explorer ").size()));
  ASSERT_EQ(r.code, 0) << line << "\n" << r.output;
  EXPECT_TRUE(ReadFile(Path("c.png")) == ReadFile(Path("a.png")));
  // The curves keep theirs.
  const std::string curves = ExportCommandLine(ViewKind::kCurves, p, sel, size, "", Path("d.png"));
  EXPECT_NE(curves.find("--dims 0,1"), std::string::npos) << curves;
}

TEST(FigureMetadataReader, ReadsBackWhatEachFormatWrites) {
  ModelParams p;
  ViewSelection sel = DefaultViews(p);
  sel.windows[ViewKind::kHeatmap].x0 = 1.0 / 3.0;
  const FigureSize size{333, 222, 2};
  const auto want = FigureMetadata(ViewKind::kHeatmap, p, sel, size, "T (1) & \xc3\xa9", nullptr);
  for (FigureFormat format : {FigureFormat::kPng, FigureFormat::kSvg, FigureFormat::kPdf}) {
    Result<Figure> f =
        BuildViewFigure(ViewKind::kHeatmap, p, sel, size, format, "T (1) & \xc3\xa9");
    ASSERT_TRUE(f.ok());
    std::ostringstream out;
    ASSERT_TRUE(RenderFigure(f.value(), format, size, out).ok());
    const std::string bytes = out.str();
    Result<FigureFileMetadata> m = ParseFigureMetadata(std::as_bytes(std::span(bytes)));
    ASSERT_TRUE(m.ok()) << m.message();
    // The figure's own list: the one above plus the range it shows.
    EXPECT_EQ(m.value().entries, f.value().metadata);
    for (const auto& kv : want) {
      EXPECT_NE(std::find(m.value().entries.begin(), m.value().entries.end(), kv),
                m.value().entries.end())
          << kv.first;
    }
  }
}

// M-RoPE's position-ids view: text 0, 1, 2; the 1 x 2 x 2 image at token 3 takes t0 = 3 and
// (3, 3 + b, 3 + c) for its patch (0, b, c) in row-major order; the text after it resumes at
// 3 + max(1, 2, 2) = 5 (HF transformers, modeling_qwen2_vl.py, Qwen2VLModel.get_rope_index;
// worked by hand as in Mrope.PositionIdsOfTextImageTextWorkedByHand).
constexpr int32_t kHandIds[9][3] = {{0, 0, 0}, {1, 1, 1}, {2, 2, 2}, {3, 3, 3}, {3, 3, 4},
                                    {3, 4, 3}, {3, 4, 4}, {5, 5, 5}, {6, 6, 6}};
constexpr const char* kPositionIdsFlags =
    "export --scheme mrope --view position-ids --mrope-image \"at=3,grid=1x2x2\" --max-len 9";

TEST_F(FigureFrom, PositionIdsTablesAreTheHandWorkedIds) {
  ShellRun r = Shell(std::string(kPositionIdsFlags) + " -o " + Path("ids.csv"));
  ASSERT_EQ(r.code, 0) << r.output;
  std::string want = "token,t,h,w\n";
  for (int k = 0; k < 9; ++k) {
    want += std::to_string(k) + "," + std::to_string(kHandIds[k][0]) + "," +
            std::to_string(kHandIds[k][1]) + "," + std::to_string(kHandIds[k][2]) + "\n";
  }
  EXPECT_EQ(ReadFile(Path("ids.csv")), want);

  r = Shell(std::string(kPositionIdsFlags) + " -o " + Path("ids.npy"));
  ASSERT_EQ(r.code, 0) << r.output;
  const std::string npy = ReadFile(Path("ids.npy"));
  ASSERT_GT(npy.size(), 10u + 9 * 3 * 4);
  const size_t header = 10 + (static_cast<size_t>(static_cast<uint8_t>(npy[8])) |
                              static_cast<size_t>(static_cast<uint8_t>(npy[9])) << 8);
  const std::string dict = npy.substr(10, header - 10);
  EXPECT_NE(dict.find("'descr': '<i4'"), std::string::npos) << dict;
  EXPECT_NE(dict.find("'shape': (9, 3)"), std::string::npos) << dict;
  ASSERT_EQ(npy.size(), header + 9 * 3 * 4);
  for (size_t k = 0; k < 27; ++k) {
    uint32_t v = 0;
    for (size_t b = 0; b < 4; ++b) {
      v |= static_cast<uint32_t>(static_cast<uint8_t>(npy[header + 4 * k + b])) << (8 * b);
    }
    EXPECT_EQ(static_cast<int32_t>(v), kHandIds[k / 3][k % 3]) << "value " << k;
  }
}

TEST_F(FigureFrom, PositionIdsFigureRedrawsFromItsPngAndOtherSchemesAreRefused) {
  ShellRun r = Shell(std::string(kPositionIdsFlags) + " -o " + Path("ids.png"));
  ASSERT_EQ(r.code, 0) << r.output;
  r = Shell("export --from " + Path("ids.png") + " -o " + Path("again.png"));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(ReadFile(Path("again.png")) == ReadFile(Path("ids.png")));

  for (const char* scheme : {"rope", "sinusoidal", "alibi"}) {
    r = Shell(std::string("export --scheme ") + scheme + " --view position-ids -o " +
              Path(std::string(scheme) + ".csv"));
    EXPECT_NE(r.code, 0) << scheme;
    EXPECT_NE(r.output.find("the position-ids view needs three position ids per token (the "
                            "mrope scheme); the " +
                            std::string(scheme) + " scheme has no such view"),
              std::string::npos)
        << r.output;
    EXPECT_FALSE(Exists(Path(std::string(scheme) + ".csv"))) << scheme;
  }
}

}  // namespace
}  // namespace pe
