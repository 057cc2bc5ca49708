// npz.cpp - NumPy .npz archives (zip files of .npy members) for the tools:
// a bounds-checked reader of stored members (zip64 fields included) and a
// writer of stored members.
#include "npz.h"

#include <array>
#include <cstring>

#include "cli.h"
#include "npy.h"

namespace strata::tools {
namespace {

constexpr uint32_t kLocalHeader = 0x04034b50;
constexpr uint32_t kCentralHeader = 0x02014b50;
constexpr uint32_t kEndRecord = 0x06054b50;
constexpr uint32_t kZip64EndRecord = 0x06064b50;
constexpr uint32_t kZip64Locator = 0x07064b50;
constexpr size_t kEndRecordSize = 22;
constexpr size_t kCentralHeaderSize = 46;
constexpr size_t kLocalHeaderSize = 30;

uint16_t read16(const uint8_t* p) {
  return static_cast<uint16_t>(p[0] | (p[1] << 8));
}
uint32_t read32(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
         (static_cast<uint32_t>(p[2]) << 16) |
         (static_cast<uint32_t>(p[3]) << 24);
}
uint64_t read64(const uint8_t* p) {
  return read32(p) | (static_cast<uint64_t>(read32(p + 4)) << 32);
}

void put16(std::vector<uint8_t>* out, uint32_t v) {
  out->push_back(static_cast<uint8_t>(v));
  out->push_back(static_cast<uint8_t>(v >> 8));
}
void put32(std::vector<uint8_t>* out, uint32_t v) {
  put16(out, v & 0xFFFF);
  put16(out, v >> 16);
}

uint32_t crc32(const uint8_t* data, size_t size) {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) {
        c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      }
      t[i] = c;
    }
    return t;
  }();
  uint32_t crc = 0xFFFFFFFFu;
  for (size_t i = 0; i < size; ++i) {
    crc = table[(crc ^ data[i]) & 0xFF] ^ (crc >> 8);
  }
  return crc ^ 0xFFFFFFFFu;
}

// The end record: searched backwards over the largest comment a zip may
// carry (65535 bytes).
bool findEndRecord(const uint8_t* data, size_t size, size_t* at) {
  if (size < kEndRecordSize) {
    return false;
  }
  size_t lowest =
      size - kEndRecordSize > 0xFFFF ? size - kEndRecordSize - 0xFFFF : 0;
  for (size_t i = size - kEndRecordSize + 1; i-- > lowest;) {
    if (read32(data + i) == kEndRecord &&
        i + kEndRecordSize + read16(data + i + 20) == size) {
      *at = i;
      return true;
    }
  }
  return false;
}

}  // namespace

bool looksLikeNpz(const uint8_t* data, size_t size) {
  return size >= 4 &&
         (read32(data) == kLocalHeader || read32(data) == kEndRecord);
}

bool parseNpz(const uint8_t* data, size_t size, std::vector<NpzArray>* out,
              std::string* error) {
  out->clear();
  size_t end = 0;
  if (!findEndRecord(data, size, &end)) {
    *error = "not a .npz file (no zip end record)";
    return false;
  }
  const uint8_t* record = data + end;
  uint64_t entries = read16(record + 10);
  uint64_t directory_size = read32(record + 12);
  uint64_t directory_offset = read32(record + 16);
  if ((read16(record + 4) != 0 && read16(record + 4) != 0xFFFF) ||
      (read16(record + 6) != 0 && read16(record + 6) != 0xFFFF)) {
    *error = "a multi-part zip archive is not a .npz file";
    return false;
  }
  if (entries == 0xFFFF || directory_size == 0xFFFFFFFF ||
      directory_offset == 0xFFFFFFFF) {
    // Zip64: the locator sits just before the end record.
    if (end < 20 || read32(data + end - 20) != kZip64Locator) {
      *error = "malformed .npz: zip64 fields without a zip64 locator";
      return false;
    }
    uint64_t at = read64(data + end - 20 + 8);
    if (at > size || size - at < 56 || read32(data + at) != kZip64EndRecord) {
      *error = "malformed .npz: the zip64 end record is out of bounds";
      return false;
    }
    entries = read64(data + at + 32);
    directory_size = read64(data + at + 40);
    directory_offset = read64(data + at + 48);
  }
  if (directory_offset > size || directory_size > size - directory_offset) {
    *error = "malformed .npz: the central directory is out of bounds";
    return false;
  }
  if (entries > directory_size / kCentralHeaderSize) {
    *error = "malformed .npz: " + std::to_string(entries) +
             " members do not fit in its central directory";
    return false;
  }
  const uint8_t* p = data + directory_offset;
  const uint8_t* directory_end = p + directory_size;
  for (uint64_t e = 0; e < entries; ++e) {
    if (static_cast<size_t>(directory_end - p) < kCentralHeaderSize ||
        read32(p) != kCentralHeader) {
      *error = "malformed .npz: central directory entry " + std::to_string(e) +
               " is truncated or has a bad signature";
      return false;
    }
    uint16_t flags = read16(p + 8);
    uint16_t method = read16(p + 10);
    uint32_t crc = read32(p + 16);
    uint64_t compressed = read32(p + 20);
    uint64_t uncompressed = read32(p + 24);
    size_t name_length = read16(p + 28);
    size_t extra_length = read16(p + 30);
    size_t comment_length = read16(p + 32);
    uint64_t local = read32(p + 42);
    size_t entry_size =
        kCentralHeaderSize + name_length + extra_length + comment_length;
    if (static_cast<size_t>(directory_end - p) < entry_size) {
      *error = "malformed .npz: central directory entry " + std::to_string(e) +
               " is truncated";
      return false;
    }
    std::string name(reinterpret_cast<const char*>(p + kCentralHeaderSize),
                     name_length);
    std::string member = "member '" + name + "'";
    // Zip64 extra field: 64-bit values for the fields that read 0xFFFFFFFF.
    const uint8_t* extra = p + kCentralHeaderSize + name_length;
    for (size_t x = 0; x + 4 <= extra_length;) {
      uint16_t id = read16(extra + x);
      size_t length = read16(extra + x + 2);
      if (x + 4 + length > extra_length) {
        *error = "malformed .npz: " + member + " has a truncated extra field";
        return false;
      }
      if (id == 0x0001) {
        const uint8_t* f = extra + x + 4;
        size_t left = length;
        for (uint64_t* field : {&uncompressed, &compressed, &local}) {
          if (*field != 0xFFFFFFFF) {
            continue;
          }
          if (left < 8) {
            *error = "malformed .npz: " + member + " has a short zip64 field";
            return false;
          }
          *field = read64(f);
          f += 8;
          left -= 8;
        }
      }
      x += 4 + length;
    }
    p += entry_size;
    if (flags & 1) {
      *error = member + " is encrypted";
      return false;
    }
    if (method != 0) {
      *error = member +
               (method == 8
                    ? " is compressed (numpy.savez_compressed); save "
                      "it with numpy.savez"
                    : " uses zip compression method " + std::to_string(method) +
                          "; only stored members are read");
      return false;
    }
    if (compressed != uncompressed) {
      *error = "malformed .npz: " + member + " is stored but its sizes differ";
      return false;
    }
    if (name.size() < 4 || name.compare(name.size() - 4, 4, ".npy") != 0) {
      *error = member + " is not a .npy file";
      return false;
    }
    if (local > size || size - local < kLocalHeaderSize ||
        read32(data + local) != kLocalHeader) {
      *error = "malformed .npz: " + member +
               "'s local header is out of bounds or has a bad signature";
      return false;
    }
    uint64_t start = local + kLocalHeaderSize + read16(data + local + 26) +
                     read16(data + local + 28);
    if (start > size || size - start < compressed) {
      *error = member + ": truncated: expected " + std::to_string(compressed) +
               " bytes of data";
      return false;
    }
    if (crc32(data + start, compressed) != crc) {
      *error = member + ": CRC mismatch (the archive is corrupt)";
      return false;
    }
    NpzArray array;
    array.name = name.substr(0, name.size() - 4);
    std::string npy_error;
    if (!parseNpy(data + start, compressed, &array.tensor, &npy_error)) {
      *error = member + ": " + npy_error;
      return false;
    }
    out->push_back(std::move(array));
  }
  return true;
}

bool readNpzFile(const std::string& path, std::vector<NpzArray>* out,
                 std::string* error) {
  std::vector<uint8_t> bytes;
  std::string reason;
  bool not_npz = false;
  ReadFileOptions options;
  options.prefix_size = 4;
  options.check_prefix = [&](const uint8_t* data, size_t size,
                             std::string* why) {
    not_npz = !looksLikeNpz(data, size);
    if (not_npz) {
      *why = "'" + path + "' is not a .npz file (it does not start like a " +
             "zip archive)";
    }
    return !not_npz;
  };
  if (!readFile(path, &bytes, &reason, options)) {
    *error = not_npz ? reason : "cannot read '" + path + "': " + reason;
    return false;
  }
  try {
    if (!parseNpz(bytes.data(), bytes.size(), out, &reason)) {
      *error = "'" + path + "': " + reason;
      return false;
    }
    return true;
  } catch (const std::bad_alloc&) {
    *error = "out of memory reading '" + path + "'";
    return false;
  }
}

bool writeNpz(const std::vector<HostTensor>& tensors, std::vector<uint8_t>* out,
              std::string* error) {
  out->clear();
  struct Member {
    std::string name;
    uint32_t crc = 0;
    uint64_t size = 0;
    uint64_t offset = 0;
  };
  std::vector<Member> members;
  for (size_t i = 0; i < tensors.size(); ++i) {
    std::vector<uint8_t> npy;
    if (!writeNpy(tensors[i], &npy, error)) {
      *error = "element " + std::to_string(i) + ": " + *error;
      return false;
    }
    Member m;
    m.name = "arr_" + std::to_string(i) + ".npy";
    m.crc = crc32(npy.data(), npy.size());
    m.size = npy.size();
    m.offset = out->size();
    if (m.size >= 0xFFFFFFFFu || m.offset >= 0xFFFFFFFFu) {
      *error = "the archive would need zip64 (4 GiB or more)";
      return false;
    }
    put32(out, kLocalHeader);
    put16(out, 20);    // version needed: 2.0
    put16(out, 0);     // flags
    put16(out, 0);     // stored
    put16(out, 0);     // time
    put16(out, 0x21);  // date: 1980-01-01
    put32(out, m.crc);
    put32(out, static_cast<uint32_t>(m.size));
    put32(out, static_cast<uint32_t>(m.size));
    put16(out, static_cast<uint32_t>(m.name.size()));
    put16(out, 0);
    out->insert(out->end(), m.name.begin(), m.name.end());
    out->insert(out->end(), npy.begin(), npy.end());
    members.push_back(std::move(m));
  }
  uint64_t directory_offset = out->size();
  for (const Member& m : members) {
    put32(out, kCentralHeader);
    put16(out, 20);  // made by: 2.0
    put16(out, 20);
    put16(out, 0);
    put16(out, 0);
    put16(out, 0);
    put16(out, 0x21);
    put32(out, m.crc);
    put32(out, static_cast<uint32_t>(m.size));
    put32(out, static_cast<uint32_t>(m.size));
    put16(out, static_cast<uint32_t>(m.name.size()));
    put16(out, 0);  // extra
    put16(out, 0);  // comment
    put16(out, 0);  // disk
    put16(out, 0);  // internal attributes
    put32(out, 0);  // external attributes
    put32(out, static_cast<uint32_t>(m.offset));
    out->insert(out->end(), m.name.begin(), m.name.end());
  }
  uint64_t directory_size = out->size() - directory_offset;
  if (members.size() >= 0xFFFF || out->size() >= 0xFFFFFFFFu) {
    *error = "the archive would need zip64 (65535 members or 4 GiB)";
    return false;
  }
  put32(out, kEndRecord);
  put16(out, 0);
  put16(out, 0);
  put16(out, static_cast<uint32_t>(members.size()));
  put16(out, static_cast<uint32_t>(members.size()));
  put32(out, static_cast<uint32_t>(directory_size));
  put32(out, static_cast<uint32_t>(directory_offset));
  put16(out, 0);
  return true;
}

}  // namespace strata::tools
