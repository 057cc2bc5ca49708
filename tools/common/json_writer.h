// json_writer.h - a small streaming JSON emitter for the tools' --format=json
// output: correct escaping, valid output for any input bytes, no library.
#ifndef STRATA_TOOLS_COMMON_JSON_WRITER_H_
#define STRATA_TOOLS_COMMON_JSON_WRITER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace strata::tools {

// Builds one JSON document in memory, pretty-printed with two-space indents.
// Calls must nest properly (an object's members are key() then one value);
// misuse is a programming error caught by assertions in debug builds.
//
//   JsonWriter json;
//   json.beginObject();
//   json.key("name").value("add");
//   json.key("args").beginArray().value(1).value(2).endArray();
//   json.endObject();
//   std::string text = json.take();
class JsonWriter {
 public:
  JsonWriter& beginObject();
  JsonWriter& endObject();
  JsonWriter& beginArray();
  JsonWriter& endArray();
  JsonWriter& key(std::string_view name);

  JsonWriter& value(std::string_view text);
  JsonWriter& value(const char* text);  // nullptr writes null
  JsonWriter& value(int64_t number);
  JsonWriter& value(uint64_t number);
  JsonWriter& value(int32_t number) { return value(int64_t{number}); }
  JsonWriter& value(uint32_t number) { return value(uint64_t{number}); }
  // Non-finite numbers have no JSON form and are written as null.
  JsonWriter& value(double number);
  JsonWriter& value(bool flag);
  JsonWriter& null();

  // The document so far, with a trailing newline once it is complete.
  std::string take();

  // A JSON string literal for text. Valid UTF-8 passes through; control
  // characters are \u escaped; a byte that is not valid UTF-8 becomes the
  // code point of the same value (\u00XX), so the output is always valid.
  static std::string quote(std::string_view text);

 private:
  void beforeValue();
  void newline();

  std::string out_;
  // One entry per open container: true for objects. The count says whether
  // a comma is needed before the next member.
  struct Frame {
    bool object;
    size_t members;
  };
  std::vector<Frame> stack_;
  bool after_key_ = false;
};

}  // namespace strata::tools

#endif  // STRATA_TOOLS_COMMON_JSON_WRITER_H_
