// Sessions: the .pexs format (round trips of random states drawn through the parameter field
// table, newer and broken files, the committed version-1 file, the migration table), the
// window's session (ui settings, the last session and its .broken copy, the recent list),
// undo / redo, and figure -> session -> figure, byte for byte, for every view and format.
#include <gtest/gtest.h>
#include <imgui.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <random>
#include <thread>

#include "headless_ui.h"
#include "io/loaded_table.h"
#include "io/session_file.h"
#include "jobs/table_load_job.h"
#include "model/param_fields.h"
#include "panels/panels.h"
#include "session/session.h"
#include "test_support.h"
#include "ui/session.h"
#include "views/view_registry.h"

namespace pe {
namespace {

using pe::testing::ReadFile;

void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

bool Exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

std::string Source(const std::string& rel) {
  return std::string(PE_SOURCE_DIR) + "/tests/" + rel;
}

// ---- FNV-1a 64: the test vectors of Fowler, Noll and Vo's reference page (isthe.com/chongo).
TEST(SessionHash, Fnv1a64MatchesTheReferenceVectors) {
  auto h = [](const std::string& s) {
    return Fnv1a64(std::as_bytes(std::span(s.data(), s.size())));
  };
  EXPECT_EQ(h(""), 0xcbf29ce484222325ull);
  EXPECT_EQ(h("a"), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(h("foobar"), 0x85944171f73967e8ull);
  EXPECT_EQ(SessionHashText(0xaf63dc4c8601ec8cull), "af63dc4c8601ec8c");
}

// ---- random states through the field table
// Texts tried for every field; a field keeps the ones its own parser accepts, so fields added
// to the table later are drawn too.
const std::vector<std::string>& Candidates() {
  static const std::vector<std::string> c = {"0",
                                             "1",
                                             "2",
                                             "3",
                                             "5",
                                             "7",
                                             "16",
                                             "24",
                                             "32",
                                             "64",
                                             "100",
                                             "1000",
                                             "-1",
                                             "-5",
                                             "0.25",
                                             "0.5",
                                             "1.5",
                                             "2",
                                             "4",
                                             "8",
                                             "2.5",
                                             "10000",
                                             "500000",
                                             "1e-3",
                                             "sinusoidal",
                                             "learned",
                                             "rope",
                                             "alibi",
                                             "t5",
                                             "xpos",
                                             "paper",
                                             "t2t",
                                             "tf-text",
                                             "sin-first",
                                             "cos-first",
                                             "normal-1",
                                             "normal-scaled",
                                             "normal-0.02",
                                             "truncated-normal",
                                             "half",
                                             "interleaved",
                                             "none",
                                             "linear",
                                             "ntk",
                                             "dynamic-ntk",
                                             "yarn",
                                             "llama3",
                                             "cos",
                                             "sin",
                                             "angle",
                                             "bf16",
                                             "fp16",
                                             "causal",
                                             "symmetric",
                                             "bidirectional",
                                             "absolute",
                                             "centred",
                                             "query",
                                             "key",
                                             "word",
                                             "char",
                                             "dot",
                                             "cosine",
                                             "random",
                                             "ones",
                                             "tokens:0,1",
                                             "tokens:2,1",
                                             "score",
                                             "table",
                                             "rdbu",
                                             "viridis",
                                             "train",
                                             "eval",
                                             "off",
                                             "sqrt(d_model)",
                                             "true",
                                             "false",
                                             "rope,alibi",
                                             "t5",
                                             "d_model=32",
                                             "scheme=alibi",
                                             "4,5,6,7",
                                             "0-3",
                                             "1,3,5",
                                             "The cat sits on the mat",
                                             "I love NLP.",
                                             "2,5,0,9",
                                             "23,37,3;97,61,19",
                                             "12",
                                             "40"};
  return c;
}

ModelParams RandomParams(std::mt19937_64& rng) {
  ModelParams m;
  SetScheme(m, kAllSchemeKinds[rng() % std::size(kAllSchemeKinds)]);
  // In table order, so a field that decides another's applicability (the scaling) comes first.
  for (const ParamField& f : ParamFields()) {
    if (f.key.empty() || f.key == "scheme" || !f.WhyNotApplicable(m).empty()) continue;
    if (rng() % 3 == 0) continue;  // leave some at their defaults
    std::vector<std::string> ok;
    for (const std::string& text : Candidates()) {
      ModelParams trial = m;
      if (f.set(trial, text).ok() && LoadParamFiles(trial).ok() &&
          ValidateEncodingParams(trial.pe).ok() && ValidateInputLayerParams(trial.input).ok()) {
        ok.push_back(text);
      }
    }
    if (!ok.empty()) {
      (void)f.set(m, ok[rng() % ok.size()]);
      (void)LoadParamFiles(m);
    }
  }
  return m;
}

ViewSelection RandomViews(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1e6, 1e6);
  ViewSelection v;
  for (ViewKind k : WindowOwners()) v.windows[k] = {u(rng), u(rng), u(rng), u(rng)};
  v.selected_token = static_cast<int>(rng() % 9) - 1;
  v.batch_row = static_cast<int64_t>(rng() % 4);
  v.highlight = rng() % 2 == 0;
  v.markers = rng() % 2 == 0;
  v.rotation_position = static_cast<int64_t>(rng() % 500) - 1;
  v.walkthrough_step = static_cast<int>(rng() % 9) - 1;
  return v;
}

TEST(SessionFormat, RandomStatesRoundTripExactly) {
  std::mt19937_64 rng(20261122);
  int changed_fields = 0;
  for (int trial = 0; trial < 150; ++trial) {
    SessionContent c{
        RandomParams(rng), RandomViews(rng), {{"panel.curves", "false"}, {"x", "é\"\\"}}};
    changed_fields += static_cast<int>(ParamValues(c.params).size());
    const SessionDocument doc = MakeSessionDocument(c);
    const std::string text = WriteSessionText(doc);
    Result<SessionDocument> parsed = ParseSessionText(text);
    ASSERT_TRUE(parsed.ok()) << parsed.message() << "\n" << text;
    EXPECT_TRUE(parsed.value() == doc) << text;
    Result<LoadedSession> back = SessionFromDocument(parsed.value(), ModelParams{});
    ASSERT_TRUE(back.ok()) << back.message() << "\n" << text;
    EXPECT_TRUE(back.value().content.params == c.params) << text;
    EXPECT_TRUE(back.value().content.views == c.views) << text;
    EXPECT_EQ(back.value().content.ui, c.ui);
    EXPECT_TRUE(back.value().warnings.empty());
  }
  EXPECT_GT(changed_fields, 150 * 10);  // the states really vary
}

TEST(SessionFormat, EveryRecordedFieldIsInTheFile) {
  ModelParams m;
  for (Scheme s : kAllSchemeKinds) {
    SetScheme(m, s);
    const SessionDocument doc = MakeSessionDocument({m, DefaultViews(m), {}});
    for (const auto& [key, value] : ParamValues(m)) {
      auto it = std::find_if(doc.params.begin(), doc.params.end(),
                             [&](const auto& kv) { return kv.first == key; });
      ASSERT_NE(it, doc.params.end()) << key;
      EXPECT_EQ(it->second, value);
    }
  }
}

// Loads `text` and returns the error (empty when it loads).
std::string LoadError(const std::string& text) {
  Result<SessionDocument> d = ParseSessionText(text);
  if (!d.ok()) return d.message();
  Result<LoadedSession> s = SessionFromDocument(d.value(), ModelParams{});
  return s.ok() ? std::string() : s.message();
}

std::string Valid() {
  return WriteSessionText(MakeSessionDocument({ModelParams{}, DefaultViews(ModelParams{}), {}}));
}

std::string Replace(std::string s, const std::string& from, const std::string& to) {
  const size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

TEST(SessionFormat, NewerAndBrokenFilesAreRefusedSayingWhereAndWhy) {
  ASSERT_EQ(LoadError(Valid()), "");
  const std::pair<std::string, std::string> cases[] = {
      {Replace(Valid(), "\"version\": 1", "\"version\": 2"),
       "newer PE Explorer (0.1.0): session format version 2, and this version reads up to 1"},
      {Replace(Valid(), "\"version\": 1", "\"version\": \"1\""), "\"version\": \"1\""},
      {Replace(Valid(), "\"version\": 1", "\"version\": 0"), "expected a whole number from 1 to 1"},
      {"{\n  \"format\": \"pe-explorer-session\",\n  \"version\": 1,\n  \"params\": {\"d_model\" "
       "64}\n}",
       "line 4, column 25"},
      {"", "line 1, column 1"},
      {"[1, 2]", "a session file is a JSON object"},
      {"{\"version\": 1}", "not a PE Explorer session"},
      {Replace(Valid(), "\"d_model\": \"128\"", "\"d_model\": 128"), "params.d_model is a number"},
      {Replace(Valid(), "\"d_model\": \"128\"", "\"d_model\": \"0\""),
       "params.d_model: --d-model must be an integer in [1, 65536], got \"0\""},
      {Replace(Valid(), "\"d_model\": \"128\"", "\"d_modle\": \"128\""),
       "params.d_modle is not a parameter"},
      {Replace(Valid(), "\"d_model\": \"128\"", "\"d_model\": \"128\", \"d_model\": \"64\""),
       "the key \"d_model\" twice"},
      {Replace(Valid(), "\"d_model\": \"128\"", "\"d_model\": \"128\", \"rope_theta\": \"5\""),
       "params.rope_theta does not apply: --rope-theta applies to the rope or xpos or mrope "
       "scheme, not "
       "to sinusoidal"},
      {Replace(Valid(), "\"heatmap_window\": \"0:128:0:100\"", "\"heatmap_window\": \"1:2:3\""),
       "views.heatmap_window must be x0:x1:y0:y1"},
      {Replace(Valid(), "\"views\": {", "\"views\": {\"zoom\": \"1\","),
       "views.zoom is not a view key"},
      {Replace(Valid(), "\"ui\": {", "\"extra\": 1, \"ui\": {"), "unknown key \"extra\""},
      {Replace(Valid(), "\"files\": {}", "\"files\": {\"text\": {\"path\": \"a\"}}"),
       "files.text needs both"},
  };
  for (const auto& [text, want] : cases) {
    const std::string got = LoadError(text);
    EXPECT_NE(got.find(want), std::string::npos) << "got: " << got << "\nwant: " << want;
  }
  // Too large: refused before parsing, naming the limit.
  EXPECT_NE(LoadError(std::string(kMaxSessionFileBytes + 1, ' ')).find("at most 16777216 bytes"),
            std::string::npos);
}

TEST(SessionFormat, TheCommittedVersion1FileLoads) {
  Result<LoadedSession> s = LoadSessionFile(Source("reference/session_v1.pexs"), ModelParams{});
  ASSERT_TRUE(s.ok()) << s.message();
  const ModelParams& m = s.value().content.params;
  ASSERT_EQ(m.pe.kind(), Scheme::kRope);
  EXPECT_EQ(m.pe.d_model, 64);
  EXPECT_EQ(m.pe.max_len, 200);
  EXPECT_EQ(m.pe.offset, 3);
  EXPECT_EQ(m.example.init, EmbeddingInit::kNormalScaled);
  EXPECT_EQ(m.pe.rope().theta, 500000.0);
  EXPECT_EQ(m.pe.rope().pairing, RopePairing::kInterleaved);
  EXPECT_EQ(m.pe.rope().scaling, RopeScaling::kLinear);
  EXPECT_EQ(m.pe.rope().factor, 4.0);
  EXPECT_EQ(m.pe.rope().part, RopePart::kSin);
  EXPECT_EQ(m.curve_dims, (std::vector<int64_t>{0, 1, 10}));
  EXPECT_EQ(m.example.text, "I love NLP");
  EXPECT_EQ(m.example.seed, 7u);
  EXPECT_EQ(m.colormap, ColormapId::kViridis);
  const ViewSelection& v = s.value().content.views;
  EXPECT_TRUE(v.windows[ViewKind::kHeatmap] == (ViewRange{2, 40, 10, 90}));
  EXPECT_TRUE(v.windows[ViewKind::kCurves] == (ViewRange{3, 150, -1.5, 1.5}));
  EXPECT_EQ(v.selected_token, 2);
  EXPECT_TRUE(v.highlight);
  EXPECT_FALSE(v.markers);
  EXPECT_EQ(v.rotation_position, 12);
  // Keys the file leaves out keep the default of its table.
  EXPECT_TRUE(v.windows[ViewKind::kScore] == DefaultViews(m).windows[ViewKind::kScore]);
  AppState state;
  std::vector<std::string> warnings;
  RestoreSession(state, s.value().content, warnings);
  EXPECT_TRUE(warnings.empty());
  EXPECT_FALSE(state.show.curves);
  EXPECT_EQ(state.select_tab, ViewKind::kRotation);
  EXPECT_EQ(state.session.window_width, 1400);
  EXPECT_EQ(state.export_dialog.title, "Saved by version 1");
}

// How a version 2 would read a version-1 file: one step per version, the current version's
// entry unchanged. Here v2 renames the sinusoid's "base" to "max_timescale".
TEST(SessionFormat, MigrationsRunFromTheFilesVersionToTheCurrentOne) {
  static constexpr SessionMigration kV2Table[] = {
      {1, "base is called max_timescale",
       [](SessionDocument& d) -> Status {
         for (auto& kv : d.params) {
           if (kv.first == "base") kv.first = "max_timescale";
         }
         d.version = 2;
         return {};
       }},
      {2, "the current format", [](SessionDocument&) -> Status { return {}; }},
  };
  Result<SessionDocument> doc = ParseSessionText(Valid());
  ASSERT_TRUE(doc.ok());
  ASSERT_EQ(doc.value().version, 1);
  SessionDocument d = doc.value();
  ASSERT_TRUE(MigrateSession(d, 2, kV2Table).ok());
  EXPECT_EQ(d.version, 2);
  EXPECT_TRUE(std::any_of(d.params.begin(), d.params.end(),
                          [](const auto& kv) { return kv.first == "max_timescale"; }));
  EXPECT_FALSE(std::any_of(d.params.begin(), d.params.end(),
                           [](const auto& kv) { return kv.first == "base"; }));
  // A version with no entry is refused, naming it.
  SessionDocument old = doc.value();
  old.version = 0;
  Status s = MigrateSession(old, 2, kV2Table);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("version 0"), std::string::npos);
  // Today's table: version 1 is current and unchanged.
  ASSERT_EQ(SessionMigrations().size(), 1u);
  EXPECT_EQ(SessionMigrations()[0].from_version, kSessionFormatVersion);
}

using SessionFiles = pe::testing::TempDirTest;

// A session saved with a --versus typed for another scheme opens, without it, and says so.
TEST_F(SessionFiles, AStaleVersusIsAWarningNotAFailure) {
  ModelParams m;
  m.versus = "rope_theta=500000";  // the window keeps it after a switch from rope
  m.pe.d_model = 48;
  SessionDocument doc = MakeSessionDocument({m, DefaultViews(m), {}});
  ASSERT_TRUE(SaveSessionFile(Path("s.pexs"), doc).ok());
  Result<LoadedSession> s = LoadSessionFile(Path("s.pexs"), ModelParams{});
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(s.value().warnings.size(), 1u);
  EXPECT_EQ(s.value().warnings[0].rfind("params.versus was left out: --versus: ", 0), 0u)
      << s.value().warnings[0];
  EXPECT_EQ(s.value().content.params.versus, "");
  EXPECT_EQ(s.value().content.params.pe.d_model, 48);
}

// A text of several lines (a poem, code with tabs) comes back exactly, as does an empty one.
TEST_F(SessionFiles, MultiLineAndEmptyTextsRoundTrip) {
  for (const std::string& text : {std::string("for i in range(3):\n\tprint(i)\r\n\n"),
                                  std::string(""), std::string(1000, ' ')}) {
    ModelParams m;
    m.example.text = text;
    m.example.tokenizer = TokenizerKind::kChar;
    ASSERT_TRUE(
        SaveSessionFile(Path("s.pexs"), MakeSessionDocument({m, DefaultViews(m), {}})).ok());
    Result<LoadedSession> s = LoadSessionFile(Path("s.pexs"), ModelParams{});
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_TRUE(s.value().warnings.empty());
    EXPECT_EQ(s.value().content.params.example.text, text);
  }
}

TEST_F(SessionFiles, AChangedOrMissingFileIsAWarningNotAFailure) {
  const std::string path = Path("table.txt");
  WriteBytes(path, "a");
  ModelParams m;
  m.example.text = path;  // any parameter holding a path shows the check
  SessionDocument doc = MakeSessionDocument({m, DefaultViews(m), {}});
  doc.files.push_back({"text", path, 0xaf63dc4c8601ec8cull});  // FNV-1a of "a"
  ASSERT_TRUE(SaveSessionFile(Path("s.pexs"), doc).ok());
  Result<LoadedSession> s = LoadSessionFile(Path("s.pexs"), ModelParams{});
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_TRUE(s.value().warnings.empty());
  WriteBytes(path, "b");
  s = LoadSessionFile(Path("s.pexs"), ModelParams{});
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(s.value().warnings.size(), 1u);
  EXPECT_NE(s.value().warnings[0].find("changed since the session was saved (FNV-1a 64 was "
                                       "af63dc4c8601ec8c, now af63df4c8601f1a5)"),
            std::string::npos)
      << s.value().warnings[0];
  ::unlink(path.c_str());
  s = LoadSessionFile(Path("s.pexs"), ModelParams{});
  ASSERT_TRUE(s.ok());
  ASSERT_EQ(s.value().warnings.size(), 1u);
  EXPECT_NE(s.value().warnings[0].find("No such file"), std::string::npos);
}

// Opening a session in the window reads nothing on the UI thread: the request goes to the
// loading job, the state stays as it was until the job has read the session, loaded its table
// and hashed it, and a cancelled open leaves the state as it was and says so.
TEST_F(SessionFiles, TheWindowOpensASessionOnTheLoadingJob) {
  const std::string table = Path("wte.npy");
  ASSERT_TRUE(pe::testing::WriteSinusoidNpyWithAWrongCell(table, 512, 48, 3, 4));
  SharedTableCache().Clear();
  SessionDocument doc;
  doc.params = {{"embeddings", table}};
  ASSERT_TRUE(SaveSessionFile(Path("s.pexs"), doc).ok());
  TableLoadJob job(/*synchronous=*/false);
  AppState a;
  a.params = WindowDefaultParams();
  const ModelParams before = a.params;
  for (bool cancel : {true, false}) {
    job.Hold(true);
    a.session.open_requests = {Path("s.pexs")};
    HandleSessionRequests(a, nullptr, &job);
    EXPECT_TRUE(a.session.open_requests.empty());
    EXPECT_EQ(a.params, before);  // nothing opened yet
    EXPECT_EQ(SharedTableCache().Peek({table, ""}, TableUse::kEmbeddings), nullptr);
    if (cancel) job.Cancel();
    job.Hold(false);
    while (job.busy()) std::this_thread::yield();
    HandleSessionRequests(a, nullptr, &job);
    if (cancel) {
      EXPECT_EQ(a.params, before);
      EXPECT_NE(a.session.notice.find("cancelled"), std::string::npos) << a.session.notice;
      EXPECT_TRUE(a.session.notice_error);
    }
  }
  ASSERT_TRUE(a.params.example.embeddings.loaded()) << a.session.notice;
  EXPECT_EQ(a.params.pe.d_model, 48);  // d_model followed the table when it loaded
  EXPECT_EQ(a.session.path, Path("s.pexs"));
}

TEST_F(SessionFiles, TheLastSessionIsRestoredAndABrokenOneKeptAside) {
  SessionKeeper keeper(Path("config"));
  AppState a;
  a.params.pe.d_model = 48;
  a.show.curves = false;
  a.session.window_width = 1000;
  a.session.window_height = 700;
  ASSERT_TRUE(keeper.SaveNow(a).ok());
  ASSERT_TRUE(Exists(Path("config/last.pexs")));
  AppState b;
  std::vector<std::string> warnings;
  ASSERT_TRUE(SessionKeeper(Path("config")).RestoreLast(b, warnings).ok());
  EXPECT_EQ(b.params.pe.d_model, 48);
  EXPECT_TRUE(b.params.example.truncate);  // the window's own default
  EXPECT_FALSE(b.show.curves);
  EXPECT_EQ(b.session.window_width, 1000);
  // A broken last session: a clear message, the file moved aside, the state untouched.
  const std::string broken =
      "{\n  \"format\": \"pe-explorer-session\",\n  \"version\": 1,\n  oops\n}\n";
  WriteBytes(Path("config/last.pexs"), broken);
  AppState c;
  Status s = SessionKeeper(Path("config")).RestoreLast(c, warnings);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("last.pexs\" is not valid JSON at line 4, column 3"),
            std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("kept as"), std::string::npos);
  EXPECT_FALSE(Exists(Path("config/last.pexs")));
  EXPECT_EQ(ReadFile(Path("config/last.pexs.broken")), broken);
  EXPECT_EQ(c.params, ModelParams{});
  // A second broken one does not replace the first copy.
  WriteBytes(Path("config/last.pexs"), "{}");
  EXPECT_FALSE(SessionKeeper(Path("config")).RestoreLast(c, warnings).ok());
  EXPECT_EQ(ReadFile(Path("config/last.pexs.broken")), broken);
  EXPECT_EQ(ReadFile(Path("config/last.pexs.broken.1")), "{}");
}

TEST_F(SessionFiles, AutosaveWritesOnlyChangesAndNotMoreOftenThanItsInterval) {
  SessionKeeper keeper(Path("config"));
  AppState a;
  keeper.Tick(a, 100.0);
  const std::string first = ReadFile(Path("config/last.pexs"));
  ASSERT_FALSE(first.empty());
  a.params.pe.max_len = 77;
  keeper.Tick(a, 101.0);  // within the interval: not yet
  EXPECT_EQ(ReadFile(Path("config/last.pexs")), first);
  keeper.Tick(a, 100.0 + SessionKeeper::kAutosaveSeconds);
  EXPECT_NE(ReadFile(Path("config/last.pexs")).find("\"max_len\": \"77\""), std::string::npos);
}

TEST_F(SessionFiles, TheRecentListKeepsTheLastEightNewestFirst) {
  {
    SessionKeeper keeper(Path("config"));
    for (int k = 0; k < 10; ++k) {
      std::string name = "s";
      name += std::to_string(k);
      keeper.AddRecent(Path(name + ".pexs"));
    }
    keeper.AddRecent(Path("s5.pexs"));
  }
  SessionKeeper again(Path("config"));
  ASSERT_EQ(again.recent().size(), 8u);
  EXPECT_EQ(again.recent()[0], Path("s5.pexs"));
  EXPECT_EQ(again.recent()[1], Path("s9.pexs"));
  EXPECT_EQ(again.recent()[7], Path("s2.pexs"));
}

TEST(SessionConfig, TheConfigFolderFollowsTheEnvironment) {
  const char* saved = std::getenv("PE_EXPLORER_CONFIG_DIR");
  const std::string keep = saved ? saved : "";
  ::setenv("PE_EXPLORER_CONFIG_DIR", "/tmp/pe-config-test", 1);
  EXPECT_EQ(DefaultConfigDir(), "/tmp/pe-config-test");
  ::unsetenv("PE_EXPLORER_CONFIG_DIR");
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  const std::string keep_xdg = xdg ? xdg : "";
  ::setenv("XDG_CONFIG_HOME", "/tmp/xdg", 1);
  EXPECT_EQ(DefaultConfigDir(), "/tmp/xdg/pe-explorer");
  if (keep_xdg.empty())
    ::unsetenv("XDG_CONFIG_HOME");
  else
    ::setenv("XDG_CONFIG_HOME", keep_xdg.c_str(), 1);
  if (!keep.empty()) ::setenv("PE_EXPLORER_CONFIG_DIR", keep.c_str(), 1);
}

TEST(SessionUi, TheWindowsSettingsRoundTrip) {
  AppState a;
  a.params.pe.d_model = 20;
  a.show.controls = false;
  a.show.sums = false;
  a.session.shown_tab = ViewKind::kScore;
  a.session.window_width = 1500;
  a.session.window_height = 950;
  a.focused_view = ViewKind::kCurves;
  a.sums.manual = true;
  a.curves.search = "i=3";
  a.ui.scale = 1.75f;
  a.ui.theme = UiTheme::kLight;
  a.export_dialog.format = 2;
  a.export_dialog.size_preset = 2;
  a.export_dialog.width = 777.5f;
  a.export_dialog.title = "T, with a comma";
  a.manual.tokens = 2;
  a.manual.dims = 2;
  a.manual.labels = {"a,b", "%c"};
  a.manual.embedding = {0.1f, -2.5f, 1e-7f, 3.0f};
  a.manual.positional = {1, 2, 3, 4};
  const std::string text = WriteSessionText(MakeSessionDocument(SessionOf(a)));
  Result<SessionDocument> d = ParseSessionText(text);
  ASSERT_TRUE(d.ok());
  Result<LoadedSession> s = SessionFromDocument(d.value(), ModelParams{});
  ASSERT_TRUE(s.ok()) << s.message();
  AppState b;
  std::vector<std::string> warnings;
  RestoreSession(b, s.value().content, warnings);
  EXPECT_TRUE(warnings.empty()) << warnings.front();
  EXPECT_TRUE(b.show == a.show);
  EXPECT_EQ(b.select_tab, ViewKind::kScore);
  EXPECT_EQ(b.session.window_width, 1500);
  EXPECT_EQ(b.session.window_height, 950);
  EXPECT_EQ(b.focused_view, ViewKind::kCurves);
  EXPECT_TRUE(b.sums.manual);
  EXPECT_EQ(b.curves.search, "i=3");
  // The UI scale and theme are preferences (settings.txt), not the session's.
  EXPECT_EQ(text.find("look."), std::string::npos) << text;
  EXPECT_EQ(b.ui.scale, 1.0f);
  EXPECT_EQ(b.ui.theme, UiTheme::kDark);
  EXPECT_EQ(b.export_dialog.format, 2);
  EXPECT_EQ(b.export_dialog.width, 777.5f);
  EXPECT_EQ(b.export_dialog.title, "T, with a comma");
  EXPECT_TRUE(b.manual == a.manual);
  // Settings this version cannot use are warnings; the rest of the session opens.
  RestoreSession(b, {a.params, ViewsOf(a), {{"panel.heatmap", "maybe"}, {"future", "1"}}},
                 warnings);
  EXPECT_EQ(warnings.size(), 2u);
  // An older session's look is read without a warning and changes nothing.
  warnings.clear();
  b.ui.scale = 1.25f;
  RestoreSession(b, {a.params, ViewsOf(a), {{"look.scale", "2"}, {"look.theme", "light"}}},
                 warnings);
  EXPECT_TRUE(warnings.empty()) << warnings.front();
  EXPECT_EQ(b.ui.scale, 1.25f);
  EXPECT_EQ(b.ui.theme, UiTheme::kDark);
}

// The UI scale and theme are preferences: kept in the config folder's settings.txt when changed
// in the window, back at the next start whatever it opens, and kept by New session.
TEST_F(SessionFiles, TheLookIsAPreferenceThatNewSessionAndAFreshStartKeep) {
  {
    SessionKeeper keeper(Path("config"));
    AppState a;
    keeper.Tick(a, 100.0);  // the look the run started with: nothing to write
    EXPECT_FALSE(Exists(Path("config/settings.txt")));
    a.ui.scale = 1.5f;
    a.ui.theme = UiTheme::kLight;
    keeper.Tick(a, 100.0 + SessionKeeper::kAutosaveSeconds);
    EXPECT_EQ(ReadFile(Path("config/settings.txt")), "ui_scale=1.5\ntheme=light\n");
    // New session: the parameters go back to the example, the look stays.
    a.params.pe.d_model = 48;
    a.session.new_requested = true;
    HandleSessionRequests(a, &keeper);
    EXPECT_EQ(a.params.pe.d_model, WindowDefaultParams().pe.d_model);
    EXPECT_EQ(a.ui.scale, 1.5f);
    EXPECT_EQ(a.ui.theme, UiTheme::kLight);
    ASSERT_TRUE(keeper.SaveNow(a).ok());
  }
  // The next start, --fresh or not (no session restored): the preferences.
  SessionKeeper keeper(Path("config"));
  std::vector<std::string> warnings;
  AppState fresh;
  ApplyStartLook(fresh, &keeper, std::nullopt, std::nullopt, warnings);
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(fresh.ui.scale, 1.5f);
  EXPECT_EQ(fresh.ui.theme, UiTheme::kLight);
  // The command line wins for its run, and that run does not write its flags as preferences.
  AppState flagged;
  ApplyStartLook(flagged, &keeper, 2.0f, UiTheme::kDark, warnings);
  EXPECT_EQ(flagged.ui.scale, 2.0f);
  EXPECT_EQ(flagged.ui.theme, UiTheme::kDark);
  ASSERT_TRUE(keeper.SaveNow(flagged).ok());
  EXPECT_EQ(ReadFile(Path("config/settings.txt")), "ui_scale=1.5\ntheme=light\n");
  // A value that cannot be used is named and left at what it was.
  WriteBytes(Path("config/settings.txt"), "ui_scale=9\ntheme=sepia\n");
  AppState bad;
  SessionKeeper(Path("config")).LoadSettings(bad.ui, warnings);
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_NE(warnings[0].find("ui_scale = \"9\" is not a UI scale from 0.5 to 3"), std::string::npos)
      << warnings[0];
  EXPECT_EQ(bad.ui.scale, 1.0f);
  EXPECT_EQ(bad.ui.theme, UiTheme::kDark);
}

// ---- undo / redo
TEST(SessionUndo, ADragIsOneStepAndRedoIsClearedByANewChange) {
  AppState s;
  RecordUndo(s, false);                 // the first frame: nothing to undo
  for (int64_t d : {10, 11, 12, 13}) {  // a slider held over four frames
    s.params.pe.d_model = d;
    RecordUndo(s, true);
  }
  RecordUndo(s, false);  // released
  s.params.pe.max_len = 50;
  RecordUndo(s, false);
  ASSERT_EQ(s.history.undo.size(), 2u);
  auto apply = [&] {
    for (StateEdit& e : s.pending_edits) e(s);
    s.pending_edits.clear();
    RecordUndo(s, false);
  };
  Undo(s);
  apply();
  EXPECT_EQ(s.params.pe.max_len, 100);
  EXPECT_EQ(s.params.pe.d_model, 13);
  Undo(s);
  apply();
  EXPECT_EQ(s.params.pe.d_model, 128);  // the whole drag at once
  Undo(s);                              // nothing more to undo
  apply();
  EXPECT_EQ(s.params, ModelParams{});
  Redo(s);
  apply();
  EXPECT_EQ(s.params.pe.d_model, 13);
  s.params.pe.offset = 4;  // a new change: the redo branch is gone
  RecordUndo(s, false);
  EXPECT_TRUE(s.history.redo.empty());
  Redo(s);
  apply();
  EXPECT_EQ(s.params.pe.max_len, 100);
  EXPECT_EQ(s.params.pe.offset, 4);
}

class SessionKeys : public HeadlessUi {
 protected:
  void Chord(int key, bool shift) {
    ImGuiIO& io = ImGui::GetIO();
    io.KeyCtrl = true;
    io.KeyShift = shift;
    io.KeysDown[key] = true;
    Frame();
    io.KeysDown[key] = false;
    io.KeyCtrl = false;
    io.KeyShift = false;
    Frames(2);
  }
};

TEST_F(SessionKeys, CtrlZAndCtrlShiftZUndoAndRedoInTheWindow) {
  Frames(2);
  Edit(state_, [](AppState& s) { s.params.pe.d_model = 32; });
  Frames(2);
  Edit(state_, [](AppState& s) { SetScheme(s.params, Scheme::kRope); });
  Frames(2);
  ASSERT_EQ(state_.params.pe.kind(), Scheme::kRope);
  Chord('Z', false);
  EXPECT_EQ(state_.params.pe.kind(), Scheme::kSinusoidal);
  EXPECT_EQ(state_.params.pe.d_model, 32);
  Chord('Z', false);
  EXPECT_EQ(state_.params.pe.d_model, 128);
  Chord('Z', true);
  EXPECT_EQ(state_.params.pe.d_model, 32);
  Chord('Y', false);
  EXPECT_EQ(state_.params.pe.kind(), Scheme::kRope);
}

TEST_F(SessionKeys, CtrlSSavesTheSessionToItsFile) {
  char tmpl[] = "/tmp/pe-session-XXXXXX";
  const std::string dir = ::mkdtemp(tmpl);
  Frames(2);
  state_.session.path = dir + "/mine.pexs";
  Edit(state_, [](AppState& s) { s.params.pe.max_len = 64; });
  Frames(2);
  Chord('S', false);
  Result<LoadedSession> s = LoadSessionFile(dir + "/mine.pexs", WindowDefaultParams());
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(s.value().content.params.pe.max_len, 64);
  // Without a file, Ctrl+S asks for a name.
  state_.session.path.clear();
  Chord('S', false);
  ImGuiWindow* dialog = ImGui::FindWindowByName("Save the session as");
  EXPECT_TRUE(dialog != nullptr && dialog->WasActive);
  std::system(("rm -rf " + dir).c_str());
}

// ---- a figure is a session
ModelParams Small(Scheme s) {
  ModelParams p;
  SetScheme(p, s);
  p.pe.d_model = 16;
  p.pe.max_len = 24;
  // An image, so the views of a patch (mrope-neighbours) have one to show.
  if (s == Scheme::kMrope) p.pe.mrope().images = {{3, 1, 3, 4}};
  return p;
}

ViewSelection Zoomed(const ModelParams& p, ViewKind view) {
  ViewSelection sel = DefaultViews(p);
  for (ViewKind k : ViewWindowKeys(view)) {
    ViewRange& w = sel.windows[k];
    const double dx = w.x1 - w.x0, dy = w.y1 - w.y0;
    w = {w.x0 + dx / 5.0, w.x1 - dx / 10.0 + 1.0 / 3.0, w.y0 + dy / 5.0, w.y1 - dy / 10.0};
  }
  sel.selected_token = 1;
  sel.highlight = view == ViewKind::kCurves;
  sel.markers = false;
  sel.rotation_position = p.pe.offset + 5;
  if (view == ViewKind::kWalkthrough) sel.walkthrough_step = 2;
  return sel;
}

using FigureSessions = pe::testing::TempDirTest;

TEST_F(FigureSessions, FigureToSessionToFigureIsByteIdenticalForEveryViewAndFormat) {
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
      int k = 0;
      for (const char* ext : {"png", "svg", "pdf"}) {
        ExportRequestOptions options;
        options.size = {430, 290, k == 0 ? 1.5 : 1.0};
        if (k++ == 1) options.title = "Titled (" + what + ")";
        const std::string a = Path(std::string(v.name) + "_a." + ext);
        const std::string b = Path(std::string(v.name) + "_b." + ext);
        ASSERT_TRUE(ExportView(v.kind, p, sel, a, options).ok()) << what << " " << ext;
        // Opened in the window, saved as a session file, opened again, exported.
        AppState opened;
        ASSERT_TRUE(OpenSessionPath(opened, a, nullptr).ok())
            << what << ": " << opened.session.notice;
        ASSERT_TRUE(SaveSessionAs(opened, Path("s.pexs"), nullptr).ok());
        AppState again;
        ASSERT_TRUE(OpenSessionPath(again, Path("s.pexs"), nullptr).ok()) << again.session.notice;
        const ExportDialogState& d = again.export_dialog;
        EXPECT_EQ(d.view, v.kind);
        Status s2 = ExportView(d.view, again.params, ViewsOf(again), b,
                               {ExportDialogSize(d), d.title, {}, {}});
        ASSERT_TRUE(s2.ok()) << what << " " << ext << ": " << s2.message();
        EXPECT_TRUE(ReadFile(a) == ReadFile(b)) << what << " " << ext << " differs";
        ++figures;
      }
    }
  }
  EXPECT_GT(figures, 60);
}

TEST_F(FigureSessions, AFileThatIsNotAFigureOfThisAppLeavesTheStateAsItWas) {
  WriteBytes(Path("text.png"), "hello");
  AppState s;
  s.params.pe.d_model = 40;
  Status r = OpenSessionPath(s, Path("text.png"), nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.message().find("text.png"), std::string::npos) << r.message();
  EXPECT_EQ(s.params.pe.d_model, 40);
  EXPECT_TRUE(s.session.notice_error);
}

}  // namespace
}  // namespace pe
