// libFuzzer target for the session file reader (.pexs): any bytes either parse as a session
// document of the current version, which writes back to text that parses to the same
// document, or are refused with a message.
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "io/session_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pe;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto r = ParseSessionText(text);
  if (!r.ok()) {
    PE_FUZZ_CHECK(!r.message().empty());
    return 0;
  }
  PE_FUZZ_CHECK(r.value().version == kSessionFormatVersion);
  for (const auto& [k, v] : r.value().params) PE_FUZZ_CHECK(!k.empty());
  // Written back and read again: the same document (when its text is valid UTF-8, which the
  // writer keeps as it is).
  const std::string again = WriteSessionText(r.value());
  auto back = ParseSessionText(again);
  PE_FUZZ_CHECK(back.ok());
  if (again.find("\xef\xbf\xbd") == std::string::npos) PE_FUZZ_CHECK(back.value() == r.value());
  return 0;
}
