// npy.cpp - .npy reading (a small parser for the header's Python dict
// literal) and writing.
#include "npy.h"

#include <cstring>

namespace strata::tools {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;
constexpr size_t kAlignment = 64;

// The subset of Python literals an .npy header holds: strings, names
// (True/False/None), integers, and tuples or lists of these.
struct Literal {
  enum Kind { String, Name, Integer, Sequence } kind = Name;
  std::string text;  // String and Name
  int64_t integer = 0;
  std::vector<Literal> items;
};

class HeaderParser {
 public:
  explicit HeaderParser(const std::string& text) : text_(text) {}

  // Parses "{'key': value, ...}" into keys and values.
  bool parseDict(std::vector<std::pair<std::string, Literal>>* out,
                 std::string* error) {
    skipSpace();
    if (!eat('{')) {
      return fail("expected '{'", error);
    }
    for (;;) {
      skipSpace();
      if (eat('}')) {
        break;
      }
      Literal key;
      if (!parseValue(&key, 0, error)) {
        return false;
      }
      if (key.kind != Literal::String) {
        return fail("dict keys must be strings", error);
      }
      skipSpace();
      if (!eat(':')) {
        return fail("expected ':' after '" + key.text + "'", error);
      }
      Literal value;
      if (!parseValue(&value, 0, error)) {
        return false;
      }
      out->emplace_back(key.text, std::move(value));
      skipSpace();
      if (eat('}')) {
        break;
      }
      if (!eat(',')) {
        return fail("expected ',' or '}'", error);
      }
    }
    skipSpace();
    if (pos_ != text_.size()) {
      return fail("unexpected text after the dict", error);
    }
    return true;
  }

 private:
  bool fail(const std::string& message, std::string* error) {
    *error =
        "malformed header: " + message + " at offset " + std::to_string(pos_);
    return false;
  }

  void skipSpace() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' ||
            text_[pos_] == '\r')) {
      ++pos_;
    }
  }

  bool eat(char c) {
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  bool parseValue(Literal* out, int depth, std::string* error) {
    skipSpace();
    if (pos_ >= text_.size()) {
      return fail("unexpected end", error);
    }
    char c = text_[pos_];
    if (c == '\'' || c == '"') {
      ++pos_;
      size_t end = text_.find(c, pos_);
      if (end == std::string::npos) {
        return fail("unterminated string", error);
      }
      out->kind = Literal::String;
      out->text = text_.substr(pos_, end - pos_);
      pos_ = end + 1;
      return true;
    }
    if (c == '(' || c == '[') {
      if (depth >= 8) {
        return fail("nested too deeply", error);
      }
      char close = c == '(' ? ')' : ']';
      ++pos_;
      out->kind = Literal::Sequence;
      for (;;) {
        skipSpace();
        if (eat(close)) {
          return true;
        }
        Literal item;
        if (!parseValue(&item, depth + 1, error)) {
          return false;
        }
        out->items.push_back(std::move(item));
        skipSpace();
        if (eat(close)) {
          return true;
        }
        if (!eat(',')) {
          return fail(std::string("expected ',' or '") + close + "'", error);
        }
      }
    }
    if ((c >= '0' && c <= '9') || c == '-') {
      bool negative = eat('-');
      int64_t v = 0;
      size_t start = pos_;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
        int digit = text_[pos_] - '0';
        if (v > (INT64_MAX - digit) / 10) {
          return fail("integer too large", error);
        }
        v = v * 10 + digit;
        ++pos_;
      }
      if (pos_ == start) {
        return fail("expected digits", error);
      }
      eat('L');  // Python 2 longs
      out->kind = Literal::Integer;
      out->integer = negative ? -v : v;
      return true;
    }
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_') {
      size_t start = pos_;
      while (pos_ < text_.size() &&
             ((text_[pos_] >= 'A' && text_[pos_] <= 'Z') ||
              (text_[pos_] >= 'a' && text_[pos_] <= 'z') ||
              (text_[pos_] >= '0' && text_[pos_] <= '9') ||
              text_[pos_] == '_')) {
        ++pos_;
      }
      out->kind = Literal::Name;
      out->text = text_.substr(start, pos_ - start);
      return true;
    }
    return fail(std::string("unexpected character '") + c + "'", error);
  }

  const std::string& text_;
  size_t pos_ = 0;
};

// "<f4" -> FLOAT_32; NONE when unsupported (and *why set).
strata_hal_element_type_t typeFromDescr(const std::string& descr,
                                        std::string* why) {
  *why = "unsupported dtype '" + descr +
         "'; expected b1, i1, i2, i4, i8, u1, u2, u4, u8, f2, f4 or f8 "
         "(little-endian)";
  if (descr.size() != 3) {
    return STRATA_HAL_ELEMENT_TYPE_NONE;
  }
  char order = descr[0];
  char kind = descr[1];
  char size = descr[2];
  if (order != '<' && order != '|' && order != '=' && order != '>') {
    return STRATA_HAL_ELEMENT_TYPE_NONE;
  }
  if (order == '>' && size != '1') {
    *why = "unsupported dtype '" + descr +
           "' (big-endian); save the array as little-endian ('<')";
    return STRATA_HAL_ELEMENT_TYPE_NONE;
  }
  switch (kind) {
    case 'b':
      // Whatever the HAL calls i1, so text and .npy booleans compare equal.
      return size == '1' ? strata_hal_element_type_parse("i1", 2)
                         : STRATA_HAL_ELEMENT_TYPE_NONE;
    case 'i':
      switch (size) {
        case '1':
          return STRATA_HAL_ELEMENT_TYPE_INT_8;
        case '2':
          return STRATA_HAL_ELEMENT_TYPE_INT_16;
        case '4':
          return STRATA_HAL_ELEMENT_TYPE_INT_32;
        case '8':
          return STRATA_HAL_ELEMENT_TYPE_INT_64;
      }
      break;
    case 'u':
      switch (size) {
        case '1':
          return STRATA_HAL_ELEMENT_TYPE_UINT_8;
        case '2':
          return STRATA_HAL_ELEMENT_TYPE_UINT_16;
        case '4':
          return STRATA_HAL_ELEMENT_TYPE_UINT_32;
        case '8':
          return STRATA_HAL_ELEMENT_TYPE_UINT_64;
      }
      break;
    case 'f':
      switch (size) {
        case '2':
          return STRATA_HAL_ELEMENT_TYPE_FLOAT_16;
        case '4':
          return STRATA_HAL_ELEMENT_TYPE_FLOAT_32;
        case '8':
          return STRATA_HAL_ELEMENT_TYPE_FLOAT_64;
      }
      break;
  }
  return STRATA_HAL_ELEMENT_TYPE_NONE;
}

uint32_t loadLe(const uint8_t* p, size_t bytes) {
  uint32_t v = 0;
  for (size_t i = 0; i < bytes; ++i) {
    v |= uint32_t{p[i]} << (8 * i);
  }
  return v;
}

}  // namespace

bool checkNpyMagic(const uint8_t* data, size_t size, std::string* error) {
  if (size < kMagicSize || std::memcmp(data, kMagic, kMagicSize) != 0) {
    *error = "not a .npy file (bad magic; expected \\x93NUMPY)";
    return false;
  }
  return true;
}

bool parseNpy(const uint8_t* data, size_t size, HostTensor* out,
              std::string* error) {
  if (!checkNpyMagic(data, size, error)) {
    return false;
  }
  if (size < kMagicSize + 2) {
    *error = "truncated header: the file ends after the magic";
    return false;
  }
  uint8_t major = data[6];
  uint8_t minor = data[7];
  if (major < 1 || major > 3) {
    *error = "unsupported .npy format version " + std::to_string(major) + "." +
             std::to_string(minor) + "; expected 1.0, 2.0 or 3.0";
    return false;
  }
  size_t length_bytes = major == 1 ? 2 : 4;
  size_t header_start = 8 + length_bytes;
  if (size < header_start) {
    *error = "truncated header: the file ends inside the header length";
    return false;
  }
  size_t header_length = loadLe(data + 8, length_bytes);
  if (header_length > size - header_start) {
    *error = "truncated header: it declares " + std::to_string(header_length) +
             " bytes but the file has " + std::to_string(size - header_start) +
             " after the preamble";
    return false;
  }
  std::string header(reinterpret_cast<const char*>(data + header_start),
                     header_length);

  std::vector<std::pair<std::string, Literal>> dict;
  HeaderParser parser(header);
  if (!parser.parseDict(&dict, error)) {
    return false;
  }
  const Literal* descr = nullptr;
  const Literal* fortran = nullptr;
  const Literal* shape = nullptr;
  for (const auto& [key, value] : dict) {
    if (key == "descr") {
      descr = &value;
    } else if (key == "fortran_order") {
      fortran = &value;
    } else if (key == "shape") {
      shape = &value;
    }
  }
  for (auto [name, value] :
       {std::pair<const char*, const Literal*>{"descr", descr},
        {"fortran_order", fortran},
        {"shape", shape}}) {
    if (!value) {
      *error = std::string("malformed header: no '") + name + "' key";
      return false;
    }
  }
  if (descr->kind != Literal::String) {
    *error = "unsupported dtype: structured arrays (a list 'descr') are not "
             "supported";
    return false;
  }
  if (fortran->kind != Literal::Name ||
      (fortran->text != "True" && fortran->text != "False")) {
    *error = "malformed header: 'fortran_order' must be True or False";
    return false;
  }
  if (fortran->text == "True") {
    *error =
        "fortran_order arrays are not supported; save a C-contiguous array "
        "(numpy.ascontiguousarray)";
    return false;
  }
  if (shape->kind != Literal::Sequence) {
    *error = "malformed header: 'shape' must be a tuple of integers";
    return false;
  }
  out->shape.clear();
  for (const Literal& dim : shape->items) {
    if (dim.kind != Literal::Integer || dim.integer < 0) {
      *error = "malformed header: 'shape' must be a tuple of non-negative "
               "integers";
      return false;
    }
    out->shape.push_back(dim.integer);
  }
  if (out->shape.size() > STRATA_HAL_MAX_RANK) {
    *error = "rank " + std::to_string(out->shape.size()) +
             " exceeds the maximum of " + std::to_string(STRATA_HAL_MAX_RANK);
    return false;
  }
  std::string why;
  out->element_type = typeFromDescr(descr->text, &why);
  if (out->element_type == STRATA_HAL_ELEMENT_TYPE_NONE) {
    *error = why;
    return false;
  }

  size_t element_size = out->elementSize();
  uint64_t count = 0;
  if (!shapeElementCount(out->shape, element_size, &count)) {
    *error = "malformed header: shape too large";
    return false;
  }
  uint64_t expected = count * element_size;
  size_t data_start = header_start + header_length;
  uint64_t available = size - data_start;
  if (available < expected) {
    *error = "truncated: expected " + std::to_string(expected) +
             " bytes of data, found " + std::to_string(available);
    return false;
  }
  if (available > expected) {
    *error = std::to_string(available - expected) +
             " unexpected bytes after the array data (one array per file)";
    return false;
  }
  out->data.assign(data + data_start, data + size);
  if (descr->text[1] == 'b') {
    for (uint8_t& b : out->data) {
      b = b != 0;
    }
  }
  return true;
}

std::string npyDescr(strata_hal_element_type_t type) {
  uint32_t numerical = type >> 24;
  uint32_t bits = type & 0xFFu;
  size_t bytes = strata_hal_element_byte_size(type);
  char kind;
  switch (numerical) {
    case STRATA_HAL_NUMERICAL_TYPE_BOOLEAN:
      return bits == 8 || bits == 1 ? "|b1" : "";
    case STRATA_HAL_NUMERICAL_TYPE_INTEGER:
      if (bits == 1) {
        return "|b1";
      }
      kind = 'i';
      break;
    case STRATA_HAL_NUMERICAL_TYPE_INTEGER_SIGNED:
      kind = 'i';
      break;
    case STRATA_HAL_NUMERICAL_TYPE_INTEGER_UNSIGNED:
      kind = 'u';
      break;
    case STRATA_HAL_NUMERICAL_TYPE_FLOAT_IEEE:
      if (bits != 16 && bits != 32 && bits != 64) {
        return "";
      }
      kind = 'f';
      break;
    default:
      return "";
  }
  if (kind != 'f' && bits != 8 && bits != 16 && bits != 32 && bits != 64) {
    return "";
  }
  std::string out;
  out += bytes == 1 ? '|' : '<';
  out += kind;
  out += static_cast<char>('0' + bytes);
  return out;
}

bool writeNpy(const HostTensor& tensor, std::vector<uint8_t>* out,
              std::string* error) {
  std::string descr = npyDescr(tensor.element_type);
  if (descr.empty()) {
    *error = "element type " + elementTypeName(tensor.element_type) +
             " has no .npy dtype";
    return false;
  }
  std::string dict =
      "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < tensor.shape.size(); ++i) {
    dict += i ? ", " : "";
    dict += std::to_string(tensor.shape[i]);
  }
  dict += tensor.shape.size() == 1 ? ",), }" : "), }";

  // Pad with spaces and end with '\n' so the data starts aligned.
  size_t preamble = kMagicSize + 2 + 2;
  size_t total = preamble + dict.size() + 1;
  if (total - preamble > 0xFFFF) {
    preamble = kMagicSize + 2 + 4;
    total = preamble + dict.size() + 1;
  }
  total = (total + kAlignment - 1) / kAlignment * kAlignment;
  size_t header_length = total - preamble;
  dict.append(header_length - dict.size() - 1, ' ');
  dict += '\n';

  out->clear();
  out->reserve(total + tensor.data.size());
  out->insert(out->end(), kMagic, kMagic + kMagicSize);
  out->push_back(preamble == 10 ? 1 : 2);
  out->push_back(0);
  for (size_t i = 0; i < preamble - 8; ++i) {
    out->push_back(static_cast<uint8_t>(header_length >> (8 * i)));
  }
  out->insert(out->end(), dict.begin(), dict.end());
  out->insert(out->end(), tensor.data.begin(), tensor.data.end());
  return true;
}

}  // namespace strata::tools
