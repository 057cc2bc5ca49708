// portable_interpreter.cpp - runs a verified portable-bytecode export
// (portable_program.cpp proved every access in bounds): the loop nests of
// generic instructions, their bodies on chunks of up to kernel::kChunk lanes
// (plain loops the C++ compiler vectorizes), and the matmul primitive. It
// checks only what the verifier could not know: the bytes of the bindings
// and the local memory the dispatch was given.
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "kernel_bytecode.h"
#include "portable_program.h"

namespace strata::hal {
namespace {

using kernel::Op;
using kernel::OpKind;
using kernel::Type;

constexpr uint32_t kChunk = kernel::kChunk;

template <typename T>
inline T* lanes(uint8_t* regs, uint32_t r) {
  return reinterpret_cast<T*>(regs + size_t(r) * kernel::kRegisterBytes);
}

inline int64_t read64(const uint32_t* p) {
  return static_cast<int64_t>(uint64_t(p[0]) | (uint64_t(p[1]) << 32));
}

// Calls f with a value of the C++ type of `type` (I1 is uint8_t).
template <typename F>
inline void withType(uint32_t type, F&& f) {
  switch (static_cast<Type>(type)) {
    case Type::F32: f(float{}); break;
    case Type::F64: f(double{}); break;
    case Type::I1: f(uint8_t{}); break;
    case Type::I8: f(int8_t{}); break;
    case Type::I16: f(int16_t{}); break;
    case Type::I32: f(int32_t{}); break;
    case Type::I64: f(int64_t{}); break;
    case Type::F16:
    case Type::BF16: break;  // memory only: never a register's type
  }
}

// f16 and bf16 (memory-only types) to and from f32, rounding to nearest
// even; NaN stays NaN.
inline float halfToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000u) << 16;
  uint32_t exponent = (h >> 10) & 0x1Fu;
  uint32_t mantissa = h & 0x3FFu;
  uint32_t bits = 0;
  if (exponent == 0x1F) {
    bits = sign | 0x7F800000u | (mantissa << 13);
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa != 0) {
    // Subnormal: normalize.
    int shift = 0;
    while (!(mantissa & 0x400u)) {
      mantissa <<= 1;
      ++shift;
    }
    bits = sign | (uint32_t(113 - shift) << 23) | ((mantissa & 0x3FFu) << 13);
  } else {
    bits = sign;
  }
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

inline uint16_t floatToHalf(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  uint32_t sign = (bits >> 16) & 0x8000u;
  uint32_t magnitude = bits & 0x7FFFFFFFu;
  if (magnitude > 0x7F800000u) {
    return static_cast<uint16_t>(sign | 0x7E00u);  // NaN
  }
  if (magnitude >= 0x477FF000u) {
    return static_cast<uint16_t>(sign | 0x7C00u);  // rounds to infinity
  }
  if (magnitude < 0x38800000u) {
    // Subnormal or zero in f16: magnitude * 2^24, rounded to nearest even.
    float scaled;
    std::memcpy(&scaled, &magnitude, sizeof(scaled));
    scaled *= 16777216.0f;
    return static_cast<uint16_t>(sign | uint32_t(std::nearbyint(scaled)));
  }
  uint32_t rounded = magnitude + 0xFFFu + ((magnitude >> 13) & 1u);
  return static_cast<uint16_t>(sign | ((rounded - 0x38000000u) >> 13));
}

inline float bfloatToFloat(uint16_t h) {
  uint32_t bits = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

inline uint16_t floatToBfloat(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) {
    return static_cast<uint16_t>((bits >> 16) | 0x40u);  // quiet NaN
  }
  return static_cast<uint16_t>((bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16);
}

// n f32 lanes from f16/bf16 (`memory`) elements `stride` apart.
void loadWidened(float* out, const uint8_t* base, int64_t stride, uint32_t n,
                 uint32_t memory) {
  bool half = memory == static_cast<uint32_t>(Type::F16);
  for (uint32_t j = 0; j < n; ++j) {
    uint16_t h;
    std::memcpy(&h, base + j * stride * 2, sizeof(h));
    out[j] = half ? halfToFloat(h) : bfloatToFloat(h);
  }
}

void storeNarrowed(const float* in, uint8_t* base, int64_t stride, uint32_t n,
                   uint32_t memory) {
  bool half = memory == static_cast<uint32_t>(Type::F16);
  // A stride of 0: the last lane's write wins, as in order.
  for (uint32_t j = stride == 0 ? n - 1 : 0; j < n; ++j) {
    uint16_t h = half ? floatToHalf(in[j]) : floatToBfloat(in[j]);
    std::memcpy(base + j * stride * 2, &h, sizeof(h));
  }
}

template <typename T>
void loadLanes(T* out, const uint8_t* base, int64_t stride, uint32_t n,
               bool is_bool) {
  const T* src = reinterpret_cast<const T*>(base);
  if (stride == 1) {
    std::memcpy(out, src, n * sizeof(T));
  } else if (stride == 0) {
    T value;
    std::memcpy(&value, src, sizeof(T));
    for (uint32_t j = 0; j < n; ++j) {
      out[j] = value;
    }
  } else {
    for (uint32_t j = 0; j < n; ++j) {
      std::memcpy(&out[j], src + j * stride, sizeof(T));
    }
  }
  if (is_bool) {
    for (uint32_t j = 0; j < n; ++j) {
      out[j] = out[j] != 0;
    }
  }
}

template <typename T>
void storeLanes(const T* in, uint8_t* base, int64_t stride, uint32_t n) {
  T* dst = reinterpret_cast<T*>(base);
  if (stride == 1) {
    std::memcpy(dst, in, n * sizeof(T));
  } else if (stride == 0) {
    // Every lane writes one element: the last write wins, as in order.
    std::memcpy(dst, &in[n - 1], sizeof(T));
  } else {
    for (uint32_t j = 0; j < n; ++j) {
      std::memcpy(dst + j * stride, &in[j], sizeof(T));
    }
  }
}

template <typename T, typename F>
inline void map1(T* d, const T* a, uint32_t n, F f) {
  for (uint32_t j = 0; j < n; ++j) {
    d[j] = f(a[j]);
  }
}
template <typename T, typename F>
inline void map2(T* d, const T* a, const T* b, uint32_t n, F f) {
  for (uint32_t j = 0; j < n; ++j) {
    d[j] = f(a[j], b[j]);
  }
}

template <typename T>
void floatUnary(Op op, T* d, const T* a, uint32_t n) {
  switch (op) {
    case Op::NegF: return map1(d, a, n, [](T x) { return -x; });
    case Op::AbsF: return map1(d, a, n, [](T x) { return std::fabs(x); });
    case Op::Exp: return map1(d, a, n, [](T x) { return std::exp(x); });
    case Op::Exp2: return map1(d, a, n, [](T x) { return std::exp2(x); });
    case Op::ExpM1: return map1(d, a, n, [](T x) { return std::expm1(x); });
    case Op::Log: return map1(d, a, n, [](T x) { return std::log(x); });
    case Op::Log2: return map1(d, a, n, [](T x) { return std::log2(x); });
    case Op::Log10: return map1(d, a, n, [](T x) { return std::log10(x); });
    case Op::Log1p: return map1(d, a, n, [](T x) { return std::log1p(x); });
    case Op::Sqrt: return map1(d, a, n, [](T x) { return std::sqrt(x); });
    case Op::Rsqrt:
      return map1(d, a, n, [](T x) { return T(1) / std::sqrt(x); });
    case Op::Tanh: return map1(d, a, n, [](T x) { return std::tanh(x); });
    case Op::Sin: return map1(d, a, n, [](T x) { return std::sin(x); });
    case Op::Cos: return map1(d, a, n, [](T x) { return std::cos(x); });
    case Op::Tan: return map1(d, a, n, [](T x) { return std::tan(x); });
    case Op::Atan: return map1(d, a, n, [](T x) { return std::atan(x); });
    case Op::Asin: return map1(d, a, n, [](T x) { return std::asin(x); });
    case Op::Acos: return map1(d, a, n, [](T x) { return std::acos(x); });
    case Op::Sinh: return map1(d, a, n, [](T x) { return std::sinh(x); });
    case Op::Cosh: return map1(d, a, n, [](T x) { return std::cosh(x); });
    case Op::Asinh: return map1(d, a, n, [](T x) { return std::asinh(x); });
    case Op::Acosh: return map1(d, a, n, [](T x) { return std::acosh(x); });
    case Op::Atanh: return map1(d, a, n, [](T x) { return std::atanh(x); });
    case Op::Erf: return map1(d, a, n, [](T x) { return std::erf(x); });
    case Op::Floor: return map1(d, a, n, [](T x) { return std::floor(x); });
    case Op::Ceil: return map1(d, a, n, [](T x) { return std::ceil(x); });
    case Op::Round: return map1(d, a, n, [](T x) { return std::round(x); });
    case Op::RoundEven:
      return map1(d, a, n, [](T x) { return std::nearbyint(x); });
    case Op::Trunc: return map1(d, a, n, [](T x) { return std::trunc(x); });
    case Op::RoundF16:
      return map1(d, a, n, [](T x) {
        return T(halfToFloat(floatToHalf(static_cast<float>(x))));
      });
    case Op::RoundBF16:
      return map1(d, a, n, [](T x) {
        return T(bfloatToFloat(floatToBfloat(static_cast<float>(x))));
      });
    default: return;
  }
}

template <typename T>
void floatBinary(Op op, T* d, const T* a, const T* b, uint32_t n) {
  switch (op) {
    case Op::AddF: return map2(d, a, b, n, [](T x, T y) { return x + y; });
    case Op::SubF: return map2(d, a, b, n, [](T x, T y) { return x - y; });
    case Op::MulF: return map2(d, a, b, n, [](T x, T y) { return x * y; });
    case Op::DivF: return map2(d, a, b, n, [](T x, T y) { return x / y; });
    case Op::RemF:
      return map2(d, a, b, n, [](T x, T y) { return std::fmod(x, y); });
    case Op::MaximumF:
      return map2(d, a, b, n, [](T x, T y) {
        if (x != x || y != y) {
          return std::numeric_limits<T>::quiet_NaN();
        }
        if (x == y) {  // +0 > -0
          return std::signbit(x) ? y : x;
        }
        return x > y ? x : y;
      });
    case Op::MinimumF:
      return map2(d, a, b, n, [](T x, T y) {
        if (x != x || y != y) {
          return std::numeric_limits<T>::quiet_NaN();
        }
        if (x == y) {
          return std::signbit(x) ? x : y;
        }
        return x < y ? x : y;
      });
    case Op::MaxNumF:
      return map2(d, a, b, n, [](T x, T y) { return std::fmax(x, y); });
    case Op::MinNumF:
      return map2(d, a, b, n, [](T x, T y) { return std::fmin(x, y); });
    case Op::PowF:
      return map2(d, a, b, n, [](T x, T y) { return std::pow(x, y); });
    case Op::Atan2:
      return map2(d, a, b, n, [](T x, T y) { return std::atan2(x, y); });
    case Op::CopySign:
      return map2(d, a, b, n, [](T x, T y) { return std::copysign(x, y); });
    default: return;
  }
}

template <typename T>
void intUnary(Op op, T* d, const T* a, uint32_t n) {
  using U = std::make_unsigned_t<T>;
  constexpr int kBits = sizeof(T) * 8;
  switch (op) {
    case Op::AbsI:
      return map1(d, a, n, [](T x) { return x < 0 ? T(U(0) - U(x)) : x; });
    case Op::CtLz:
      return map1(d, a, n, [](T x) {
        int count = 0;
        for (int bit = kBits - 1; bit >= 0 && !((U(x) >> bit) & 1); --bit) {
          ++count;
        }
        return T(count);
      });
    case Op::CtTz:
      return map1(d, a, n, [](T x) {
        int count = 0;
        for (int bit = 0; bit < kBits && !((U(x) >> bit) & 1); ++bit) {
          ++count;
        }
        return T(count);
      });
    case Op::CtPop:
      return map1(d, a, n, [](T x) {
        int count = 0;
        for (int bit = 0; bit < kBits; ++bit) {
          count += (U(x) >> bit) & 1;
        }
        return T(count);
      });
    default: return;
  }
}

template <typename T>
void intBinary(Op op, T* d, const T* a, const T* b, uint32_t n) {
  using U = std::make_unsigned_t<T>;
  constexpr int kBits = sizeof(T) * 8;
  constexpr T kMin = std::numeric_limits<T>::min();
  switch (op) {
    case Op::AddI:
      return map2(d, a, b, n, [](T x, T y) { return T(U(x) + U(y)); });
    case Op::SubI:
      return map2(d, a, b, n, [](T x, T y) { return T(U(x) - U(y)); });
    case Op::MulI:
      return map2(d, a, b, n, [](T x, T y) { return T(U(x) * U(y)); });
    case Op::DivSI:
      return map2(d, a, b, n, [](T x, T y) {
        return (y == 0 || (std::is_signed_v<T> && x == kMin && y == T(-1)))
                   ? T(0)
                   : T(x / y);
      });
    case Op::DivUI:
      return map2(d, a, b, n,
                  [](T x, T y) { return y == 0 ? T(0) : T(U(x) / U(y)); });
    case Op::RemSI:
      return map2(d, a, b, n, [](T x, T y) {
        return (y == 0 || (std::is_signed_v<T> && x == kMin && y == T(-1)))
                   ? T(0)
                   : T(x % y);
      });
    case Op::RemUI:
      return map2(d, a, b, n,
                  [](T x, T y) { return y == 0 ? T(0) : T(U(x) % U(y)); });
    case Op::FloorDivSI:
      return map2(d, a, b, n, [](T x, T y) {
        if (y == 0 || (std::is_signed_v<T> && x == kMin && y == T(-1))) {
          return T(0);
        }
        T q = T(x / y);
        return (x % y != 0 && ((x < 0) != (y < 0))) ? T(q - 1) : q;
      });
    case Op::CeilDivSI:
      return map2(d, a, b, n, [](T x, T y) {
        if (y == 0 || (std::is_signed_v<T> && x == kMin && y == T(-1))) {
          return T(0);
        }
        T q = T(x / y);
        return (x % y != 0 && ((x < 0) == (y < 0))) ? T(q + 1) : q;
      });
    case Op::AndI: return map2(d, a, b, n, [](T x, T y) { return T(x & y); });
    case Op::OrI: return map2(d, a, b, n, [](T x, T y) { return T(x | y); });
    case Op::XOrI: return map2(d, a, b, n, [](T x, T y) { return T(x ^ y); });
    case Op::ShLI:
      return map2(d, a, b, n, [](T x, T y) {
        return U(y) >= U(kBits) ? T(0) : T(U(x) << U(y));
      });
    case Op::ShRUI:
      return map2(d, a, b, n, [](T x, T y) {
        return U(y) >= U(kBits) ? T(0) : T(U(x) >> U(y));
      });
    case Op::ShRSI:
      return map2(d, a, b, n, [](T x, T y) {
        return U(y) >= U(kBits) ? T(x < 0 ? -1 : 0) : T(x >> U(y));
      });
    case Op::MaxSI:
      return map2(d, a, b, n, [](T x, T y) { return x > y ? x : y; });
    case Op::MinSI:
      return map2(d, a, b, n, [](T x, T y) { return x < y ? x : y; });
    case Op::MaxUI:
      return map2(d, a, b, n, [](T x, T y) { return U(x) > U(y) ? x : y; });
    case Op::MinUI:
      return map2(d, a, b, n, [](T x, T y) { return U(x) < U(y) ? x : y; });
    default: return;
  }
}

// i1 lanes hold 0 or 1, and i1 arithmetic is modulo 2; its signed view is
// 0 or -1.
void boolBinary(Op op, uint8_t* d, const uint8_t* a, const uint8_t* b,
                uint32_t n) {
  int8_t sa[kChunk];
  int8_t sb[kChunk];
  int8_t sd[kChunk];
  for (uint32_t j = 0; j < n; ++j) {
    sa[j] = static_cast<int8_t>(-a[j]);
    sb[j] = static_cast<int8_t>(-b[j]);
  }
  bool unsigned_op = op == Op::DivUI || op == Op::RemUI || op == Op::MaxUI ||
                     op == Op::MinUI || op == Op::ShRUI;
  if (unsigned_op) {
    intBinary<int8_t>(op, sd, reinterpret_cast<const int8_t*>(a),
                      reinterpret_cast<const int8_t*>(b), n);
  } else {
    intBinary<int8_t>(op, sd, sa, sb, n);
  }
  for (uint32_t j = 0; j < n; ++j) {
    d[j] = static_cast<uint8_t>(sd[j] & 1);
  }
}

template <typename T>
void compare(uint32_t pred, uint8_t* d, const T* a, const T* b, uint32_t n) {
  if constexpr (std::is_floating_point_v<T>) {
    for (uint32_t j = 0; j < n; ++j) {
      T x = a[j];
      T y = b[j];
      bool unordered = x != x || y != y;
      bool r = false;
      switch (pred) {
        case 0: r = false; break;
        case 1: r = !unordered && x == y; break;
        case 2: r = !unordered && x > y; break;
        case 3: r = !unordered && x >= y; break;
        case 4: r = !unordered && x < y; break;
        case 5: r = !unordered && x <= y; break;
        case 6: r = !unordered && x != y; break;
        case 7: r = !unordered; break;
        case 8: r = unordered || x == y; break;
        case 9: r = unordered || x > y; break;
        case 10: r = unordered || x >= y; break;
        case 11: r = unordered || x < y; break;
        case 12: r = unordered || x <= y; break;
        case 13: r = unordered || x != y; break;
        case 14: r = unordered; break;
        default: r = true; break;
      }
      d[j] = r;
    }
  } else {
    using S = std::make_signed_t<T>;
    using U = std::make_unsigned_t<T>;
    for (uint32_t j = 0; j < n; ++j) {
      // i1's signed view: true is -1.
      S x = std::is_same_v<T, uint8_t> ? S(-S(a[j])) : S(a[j]);
      S y = std::is_same_v<T, uint8_t> ? S(-S(b[j])) : S(b[j]);
      U ux = U(a[j]);
      U uy = U(b[j]);
      bool r = false;
      switch (pred) {
        case 0: r = ux == uy; break;
        case 1: r = ux != uy; break;
        case 2: r = x < y; break;
        case 3: r = x <= y; break;
        case 4: r = x > y; break;
        case 5: r = x >= y; break;
        case 6: r = ux < uy; break;
        case 7: r = ux <= uy; break;
        case 8: r = ux > uy; break;
        default: r = ux >= uy; break;
      }
      d[j] = r;
    }
  }
}

template <typename To, typename From>
To saturate(From x) {
  if (x != x) {
    return To(0);
  }
  if (x <= From(std::numeric_limits<To>::min())) {
    return std::numeric_limits<To>::min();
  }
  if (x >= From(std::numeric_limits<To>::max())) {
    return std::numeric_limits<To>::max();
  }
  return To(x);
}

template <typename From, typename To>
void castLanes(Op op, To* d, const From* a, uint32_t n) {
  constexpr bool kToBool = std::is_same_v<To, uint8_t>;
  constexpr bool kFromBool = std::is_same_v<From, uint8_t>;
  if constexpr (std::is_floating_point_v<From>) {
    if constexpr (std::is_floating_point_v<To>) {
      for (uint32_t j = 0; j < n; ++j) {
        d[j] = To(a[j]);
      }
    } else if constexpr (kToBool) {
      for (uint32_t j = 0; j < n; ++j) {
        d[j] = a[j] != From(0);
      }
    } else {
      using U = std::make_unsigned_t<To>;
      for (uint32_t j = 0; j < n; ++j) {
        d[j] = op == Op::FPToUI ? To(saturate<U>(a[j])) : saturate<To>(a[j]);
      }
    }
  } else {
    using UF = std::make_unsigned_t<From>;
    using SF = std::make_signed_t<From>;
    for (uint32_t j = 0; j < n; ++j) {
      // The source as signed and unsigned 64-bit values (i1 true: -1, 1).
      int64_t s = kFromBool ? -int64_t(a[j]) : int64_t(SF(a[j]));
      uint64_t u = uint64_t(UF(a[j]));
      if constexpr (std::is_floating_point_v<To>) {
        d[j] = op == Op::UIToFP ? To(u) : To(s);
      } else if constexpr (kToBool) {
        d[j] = static_cast<uint8_t>(u & 1);
      } else {
        d[j] = op == Op::ExtUI ? To(u) : To(s);
      }
    }
  }
}

void runCast(Op op, uint32_t from, uint32_t to, uint8_t* regs, uint32_t dr,
             uint32_t ar, uint32_t n) {
  if (op == Op::Bitcast) {
    std::memcpy(regs + size_t(dr) * kernel::kRegisterBytes,
                regs + size_t(ar) * kernel::kRegisterBytes,
                size_t(n) * kernel::typeBytes(to));
    return;
  }
  withType(from, [&](auto f) {
    using From = decltype(f);
    withType(to, [&](auto t) {
      using To = decltype(t);
      castLanes<From, To>(op, lanes<To>(regs, dr), lanes<From>(regs, ar), n);
    });
  });
}

struct Operand {
  uint8_t* base;  // element at offset
  uint32_t type;
  uint32_t bytes;
  const uint32_t* strides;  // rank x i64 words
};

// Runs one generic instruction at code[*at]; advances *at past it. Returns
// 0, or INDEX_OUT_OF_RANGE (with *detail) when a gather's index is outside
// its extent.
int runGeneric(const uint32_t* code, size_t* at, uint8_t* const* slots,
               uint8_t* regs, const uint32_t* constants, uint32_t part,
               uint32_t parts, int64_t* out_index, int64_t* out_bound) {
  const uint32_t* p = code + *at + 1;
  uint32_t rank = *p++;
  const uint32_t* sizes = p;
  p += rank;
  const uint32_t* loops = p;
  p += rank;
  bool vector = *p++ != 0;
  uint32_t operand_count = *p++;
  uint32_t output_count = *p++;
  Operand operands[kernel::kMaxOperands];
  bool empty = false;
  for (uint32_t d = 0; d < rank; ++d) {
    empty |= sizes[d] == 0;
  }
  for (uint32_t i = 0; i < operand_count; ++i) {
    Operand& o = operands[i];
    uint32_t slot = p[0];
    o.type = p[1];
    o.bytes = kernel::typeBytes(o.type);
    // An empty iteration space touches nothing: its offsets were not
    // verified, so no pointer is formed from them.
    o.base = empty ? nullptr : slots[slot] + read64(p + 2) * o.bytes;
    o.strides = p + 4;
    p += 4 + 2 * rank;
  }
  uint32_t body_count = *p++;
  const uint32_t* body = p;
  p += body_count * kernel::kBodyWords;
  const uint32_t* yields = p;
  p += output_count;
  *at = static_cast<size_t>(p - code);
  if (empty) {
    return STRATA_HAL_EXECUTABLE_DISPATCH_OK;
  }

  uint32_t vd = loops[rank - 1];
  uint32_t vsize = sizes[vd];
  uint32_t step = vector ? kChunk : 1;
  int64_t index[kernel::kMaxRank] = {};
  // Workgroup `part` of `parts` runs its share of the outermost loop (the
  // compiler splits only parallel ones); with one loop, workgroup 0 runs
  // it all.
  int64_t outer_end = rank >= 2 ? sizes[loops[0]] : 0;
  if (parts > 1) {
    if (rank < 2) {
      if (part != 0) {
        return STRATA_HAL_EXECUTABLE_DISPATCH_OK;
      }
    } else {
      int64_t size = sizes[loops[0]];
      int64_t begin = size * part / parts;
      outer_end = size * (part + 1) / parts;
      if (begin >= outer_end) {
        return STRATA_HAL_EXECUTABLE_DISPATCH_OK;
      }
      index[loops[0]] = begin;
    }
  }
  // Iterates the outer loops as an odometer, innermost of them fastest.
  for (;;) {
    for (uint32_t c0 = 0; c0 < vsize; c0 += step) {
      uint32_t n = vsize - c0 < step ? vsize - c0 : step;
      index[vd] = c0;
      for (uint32_t i = 0; i < body_count; ++i) {
        const uint32_t* w = body + i * kernel::kBodyWords;
        uint32_t number = w[0] & 0xFF;
        uint32_t type = (w[0] >> 8) & 0xFF;
        uint32_t aux = w[0] >> 16;
        uint32_t dr = w[1];
        uint32_t ar = w[2];
        uint32_t br = w[3];
        uint32_t cr = w[4];
        Op op = static_cast<Op>(number);
        switch (kernel::opInfo(number).kind) {
          case OpKind::Load: {
            const Operand& o = operands[ar];
            int64_t offset = 0;
            for (uint32_t d = 0; d < rank; ++d) {
              offset += index[d] * read64(o.strides + 2 * d);
            }
            int64_t lane_stride = read64(o.strides + 2 * vd);
            const uint8_t* src = o.base + offset * o.bytes;
            if (kernel::isMemoryOnlyType(o.type)) {
              loadWidened(lanes<float>(regs, dr), src, lane_stride, n, o.type);
              break;
            }
            withType(type, [&](auto t) {
              using T = decltype(t);
              loadLanes<T>(lanes<T>(regs, dr), src, lane_stride, n,
                           std::is_same_v<T, uint8_t>);
            });
            break;
          }
          case OpKind::Const: {
            uint64_t bits = uint64_t(ar) | (uint64_t(br) << 32);
            withType(type, [&](auto t) {
              using T = decltype(t);
              T value;
              std::memcpy(&value, &bits, sizeof(T));
              T* d = lanes<T>(regs, dr);
              for (uint32_t j = 0; j < n; ++j) {
                d[j] = value;
              }
            });
            break;
          }
          case OpKind::Gather: {
            const Operand& o = operands[ar];
            int64_t offset = 0;
            for (uint32_t d = 0; d < rank; ++d) {
              offset += index[d] * read64(o.strides + 2 * d);
            }
            int64_t lane_stride = read64(o.strides + 2 * vd);
            const uint8_t* base = o.base + offset * o.bytes;
            const int64_t* where = lanes<int64_t>(regs, br);
            for (uint32_t j = 0; j < n; ++j) {
              if (where[j] < 0 || where[j] >= int64_t(cr)) {
                *out_index = where[j];
                *out_bound = cr;
                return STRATA_HAL_EXECUTABLE_DISPATCH_INDEX_OUT_OF_RANGE;
              }
            }
            if (kernel::isMemoryOnlyType(o.type)) {
              float* d = lanes<float>(regs, dr);
              for (uint32_t j = 0; j < n; ++j) {
                loadWidened(&d[j], base + (j * lane_stride + where[j]) * 2, 0,
                            1, o.type);
              }
              break;
            }
            withType(type, [&](auto t) {
              using T = decltype(t);
              T* d = lanes<T>(regs, dr);
              for (uint32_t j = 0; j < n; ++j) {
                std::memcpy(&d[j],
                            base + (j * lane_stride + where[j]) * o.bytes,
                            sizeof(T));
                if constexpr (std::is_same_v<T, uint8_t>) {
                  d[j] = d[j] != 0;
                }
              }
            });
            break;
          }
          case OpKind::Push: {
            uint64_t bits = constants[ar];
            if (kernel::typeBytes(type) > 4) {
              bits |= uint64_t(constants[ar + 1]) << 32;
            }
            withType(type, [&](auto t) {
              using T = decltype(t);
              T value;
              std::memcpy(&value, &bits, sizeof(T));
              if constexpr (std::is_same_v<T, uint8_t>) {
                value &= 1;
              }
              T* d = lanes<T>(regs, dr);
              for (uint32_t j = 0; j < n; ++j) {
                d[j] = value;
              }
            });
            break;
          }
          case OpKind::Index: {
            int64_t* d = lanes<int64_t>(regs, dr);
            if (ar == vd) {
              for (uint32_t j = 0; j < n; ++j) {
                d[j] = index[vd] + j;
              }
            } else {
              for (uint32_t j = 0; j < n; ++j) {
                d[j] = index[ar];
              }
            }
            break;
          }
          case OpKind::Unary:
            withType(type, [&](auto t) {
              using T = decltype(t);
              if constexpr (std::is_floating_point_v<T>) {
                floatUnary<T>(op, lanes<T>(regs, dr), lanes<T>(regs, ar), n);
              } else if constexpr (std::is_same_v<T, uint8_t>) {
                // i1: |x| and ctpop are x; ctlz and cttz are 1 - x.
                const uint8_t* x = lanes<uint8_t>(regs, ar);
                uint8_t* y = lanes<uint8_t>(regs, dr);
                bool flip = op == Op::CtLz || op == Op::CtTz;
                for (uint32_t j = 0; j < n; ++j) {
                  y[j] = static_cast<uint8_t>(flip ? 1 - x[j] : x[j]);
                }
              } else {
                intUnary<T>(op, lanes<T>(regs, dr), lanes<T>(regs, ar), n);
              }
            });
            break;
          case OpKind::Binary:
            withType(type, [&](auto t) {
              using T = decltype(t);
              if constexpr (std::is_floating_point_v<T>) {
                floatBinary<T>(op, lanes<T>(regs, dr), lanes<T>(regs, ar),
                               lanes<T>(regs, br), n);
              } else if constexpr (std::is_same_v<T, uint8_t>) {
                boolBinary(op, lanes<T>(regs, dr), lanes<T>(regs, ar),
                           lanes<T>(regs, br), n);
              } else {
                intBinary<T>(op, lanes<T>(regs, dr), lanes<T>(regs, ar),
                             lanes<T>(regs, br), n);
              }
            });
            break;
          case OpKind::Compare:
            withType(type, [&](auto t) {
              using T = decltype(t);
              compare<T>(aux, lanes<uint8_t>(regs, dr), lanes<T>(regs, ar),
                         lanes<T>(regs, br), n);
            });
            break;
          case OpKind::Select:
            withType(type, [&](auto t) {
              using T = decltype(t);
              const uint8_t* c = lanes<uint8_t>(regs, ar);
              const T* x = lanes<T>(regs, br);
              const T* y = lanes<T>(regs, cr);
              T* d = lanes<T>(regs, dr);
              for (uint32_t j = 0; j < n; ++j) {
                d[j] = c[j] ? x[j] : y[j];
              }
            });
            break;
          case OpKind::Cast: runCast(op, aux, type, regs, dr, ar, n); break;
        }
      }
      for (uint32_t k = 0; k < output_count; ++k) {
        const Operand& o = operands[operand_count - output_count + k];
        int64_t offset = 0;
        for (uint32_t d = 0; d < rank; ++d) {
          offset += index[d] * read64(o.strides + 2 * d);
        }
        int64_t lane_stride = read64(o.strides + 2 * vd);
        uint8_t* dst = o.base + offset * o.bytes;
        if (kernel::isMemoryOnlyType(o.type)) {
          storeNarrowed(lanes<float>(regs, yields[k]), dst, lane_stride, n,
                        o.type);
          continue;
        }
        withType(o.type, [&](auto t) {
          using T = decltype(t);
          storeLanes<T>(lanes<T>(regs, yields[k]), dst, lane_stride, n);
        });
      }
    }
    // Next outer iteration.
    int level = static_cast<int>(rank) - 2;
    for (; level >= 0; --level) {
      uint32_t d = loops[level];
      if (++index[d] < (level == 0 ? outer_end : int64_t(sizes[d]))) {
        break;
      }
      index[d] = 0;
    }
    if (level < 0) {
      return STRATA_HAL_EXECUTABLE_DISPATCH_OK;
    }
  }
}

// C[b] += A[b] * B[b], f32. Blocks of kRows rows of C by up to kCols
// columns accumulate in registers (a local array the compiler keeps in
// vector registers) over the whole depth, reading a row of B per depth step
// for kRows rows of A: the inner loops are plain, vectorizable C++.
constexpr uint32_t kRows = 4;
constexpr uint32_t kCols = 64;

template <uint32_t Rows>
__attribute__((always_inline)) inline void matmulBlockImpl(
    const float* a, int64_t a_row, int64_t a_col, const float* b, int64_t b_row,
    int64_t b_col, float* c, int64_t c_row, int64_t c_col, uint32_t cols,
    uint32_t depth) {
  alignas(64) float acc[Rows][kCols];
  for (uint32_t r = 0; r < Rows; ++r) {
    for (uint32_t j = 0; j < cols; ++j) {
      acc[r][j] = c[r * c_row + j * c_col];
    }
  }
  alignas(64) float row[kCols];
  for (uint32_t k = 0; k < depth; ++k) {
    const float* b_k = b + k * b_row;
    const float* src = b_k;
    if (b_col != 1) {
      for (uint32_t j = 0; j < cols; ++j) {
        row[j] = b_k[j * b_col];
      }
      src = row;
    }
    for (uint32_t r = 0; r < Rows; ++r) {
      float x = a[r * a_row + k * a_col];
      float* __restrict out = acc[r];
      if (cols == kCols) {
        for (uint32_t j = 0; j < kCols; ++j) {
          out[j] += x * src[j];
        }
      } else {
        for (uint32_t j = 0; j < cols; ++j) {
          out[j] += x * src[j];
        }
      }
    }
  }
  for (uint32_t r = 0; r < Rows; ++r) {
    for (uint32_t j = 0; j < cols; ++j) {
      c[r * c_row + j * c_col] = acc[r][j];
    }
  }
}

// x rounded to the nearest f16 (Half) or bf16 value, kept as f32; NaN stays
// NaN. The same results as floatToHalf/floatToBfloat and back, written with
// selects only so that the loops calling it vectorize.
template <bool Half>
__attribute__((always_inline)) inline float roundNarrow(float x) {
  uint32_t u;
  std::memcpy(&u, &x, sizeof(u));
  uint32_t sign = u & 0x80000000u;
  uint32_t a = u ^ sign;
  uint32_t r;
  if (Half) {
    uint32_t normal = (a + 0xFFFu + ((a >> 13) & 1u)) & ~0x1FFFu;
    // Below f16's smallest normal: multiples of 2^-24 (0.5's f32 ulp).
    float ax;
    std::memcpy(&ax, &a, sizeof(ax));
    float tiny = (ax + 0.5f) - 0.5f;
    uint32_t tiny_bits;
    std::memcpy(&tiny_bits, &tiny, sizeof(tiny_bits));
    r = a < 0x38800000u ? tiny_bits : normal;
    r = a >= 0x477FF000u ? 0x7F800000u : r;
  } else {
    r = (a + 0x7FFFu + ((a >> 16) & 1u)) & 0xFFFF0000u;
  }
  r = a > 0x7F800000u ? ((a | 0x00400000u) & 0xFFFFE000u) : r;
  r |= sign;
  float out;
  std::memcpy(&out, &r, sizeof(out));
  return out;
}

// The block kernel of an f16 (Half) or bf16 matmul: A, B and C already in
// f32 (exactly), each product and each sum rounded to the type as the
// f16/bf16 linalg body computes them, in the same order of k.
template <uint32_t Rows, bool Half>
__attribute__((always_inline)) inline void matmulBlockNarrowImpl(
    const float* a, int64_t a_row, const float* b, int64_t b_row, float* c,
    int64_t c_row, uint32_t cols, uint32_t depth) {
  for (uint32_t k = 0; k < depth; ++k) {
    const float* b_k = b + k * b_row;
    for (uint32_t r = 0; r < Rows; ++r) {
      float x = a[r * a_row + k];
      float* __restrict out = c + r * c_row;
      for (uint32_t j = 0; j < cols; ++j) {
        out[j] = roundNarrow<Half>(out[j] + roundNarrow<Half>(x * b_k[j]));
      }
    }
  }
}

// The block kernels, compiled for the baseline ISA and, on x86-64, also for
// AVX2+FMA and AVX-512 (picked once at load by the dynamic loader, from
// what this CPU has): wider vectors for the one hot loop. Not in sanitized
// builds: the clones' IFUNC resolver runs during relocation, before the
// sanitizer's runtime is up (ThreadSanitizer crashes there).
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer) || \
    __has_feature(thread_sanitizer)
#define STRATA_PORTABLE_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define STRATA_PORTABLE_SANITIZED 1
#endif
#if defined(__x86_64__) && defined(__GNUC__) && \
    !defined(STRATA_PORTABLE_SANITIZED)
#define STRATA_PORTABLE_CLONES \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define STRATA_PORTABLE_CLONES
#endif

STRATA_PORTABLE_CLONES
void matmulBlock4(const float* a, int64_t a_row, int64_t a_col, const float* b,
                  int64_t b_row, int64_t b_col, float* c, int64_t c_row,
                  int64_t c_col, uint32_t cols, uint32_t depth) {
  matmulBlockImpl<kRows>(a, a_row, a_col, b, b_row, b_col, c, c_row, c_col,
                         cols, depth);
}

STRATA_PORTABLE_CLONES
void matmulBlock1(const float* a, int64_t a_row, int64_t a_col, const float* b,
                  int64_t b_row, int64_t b_col, float* c, int64_t c_row,
                  int64_t c_col, uint32_t cols, uint32_t depth) {
  matmulBlockImpl<1>(a, a_row, a_col, b, b_row, b_col, c, c_row, c_col, cols,
                     depth);
}

STRATA_PORTABLE_CLONES
void matmulBlockNarrow(bool half, uint32_t rows, const float* a, int64_t a_row,
                       const float* b, int64_t b_row, float* c, int64_t c_row,
                       uint32_t cols, uint32_t depth) {
  if (rows == kRows) {
    if (half) {
      matmulBlockNarrowImpl<kRows, true>(a, a_row, b, b_row, c, c_row, cols,
                                         depth);
    } else {
      matmulBlockNarrowImpl<kRows, false>(a, a_row, b, b_row, c, c_row, cols,
                                          depth);
    }
    return;
  }
  for (uint32_t r = 0; r < rows; ++r) {
    if (half) {
      matmulBlockNarrowImpl<1, true>(a + r * a_row, a_row, b, b_row,
                                     c + r * c_row, c_row, cols, depth);
    } else {
      matmulBlockNarrowImpl<1, false>(a + r * a_row, a_row, b, b_row,
                                      c + r * c_row, c_row, cols, depth);
    }
  }
}

// Depth steps per pass over a column panel: its rows of B (256 x 64 floats,
// 64 KB) stay in cache while every row block of A reads them.
constexpr uint32_t kDepthBlock = 256;

// Element `index` of a matrix of `type` (f32, f16 or bf16) as f32.
inline float matrixElement(const uint8_t* base, uint32_t type, int64_t index) {
  if (type == static_cast<uint32_t>(Type::F32)) {
    float f;
    std::memcpy(&f, base + index * 4, sizeof(f));
    return f;
  }
  uint16_t h;
  std::memcpy(&h, base + index * 2, sizeof(h));
  return type == static_cast<uint32_t>(Type::F16) ? halfToFloat(h)
                                                  : bfloatToFloat(h);
}

// A matmul with an f16 or bf16 matrix: the depth block's panel of B, each
// block of rows of A and the block of C converted to f32 (exactly) and
// back. With C f16/bf16 (A and B then of its type: the verifier checks)
// each product and sum is rounded to that type; with C f32 the f16/bf16
// inputs are widened and the block kernel is the f32 one.
void runMatmulNarrow(const uint8_t* const base[3], const uint32_t types[3],
                     const int64_t strides[3][3], uint32_t batch_begin,
                     uint32_t batch_end, uint32_t row_begin, uint32_t row_end,
                     uint32_t n, uint32_t k) {
  const int64_t* as = strides[0];
  const int64_t* bs = strides[1];
  const int64_t* cs = strides[2];
  bool narrow_c = types[2] != static_cast<uint32_t>(Type::F32);
  bool half = types[2] == static_cast<uint32_t>(Type::F16);
  alignas(64) float panel[kDepthBlock * kCols];
  alignas(64) float a_block[kRows * kDepthBlock];
  alignas(64) float c_block[kRows * kCols];
  for (uint32_t bi = batch_begin; bi < batch_end; ++bi) {
    for (uint32_t k0 = 0; k0 < k; k0 += kDepthBlock) {
      uint32_t depth = k - k0 < kDepthBlock ? k - k0 : kDepthBlock;
      for (uint32_t j0 = 0; j0 < n; j0 += kCols) {
        uint32_t cols = n - j0 < kCols ? n - j0 : kCols;
        for (uint32_t kk = 0; kk < depth; ++kk) {
          int64_t row = bi * bs[0] + (k0 + kk) * bs[1] + j0 * bs[2];
          for (uint32_t j = 0; j < cols; ++j) {
            panel[kk * kCols + j] =
                matrixElement(base[1], types[1], row + j * bs[2]);
          }
        }
        for (uint32_t i = row_begin; i < row_end; i += kRows) {
          uint32_t rows = row_end - i < kRows ? row_end - i : kRows;
          for (uint32_t r = 0; r < rows; ++r) {
            int64_t row = bi * as[0] + (i + r) * as[1] + k0 * as[2];
            for (uint32_t kk = 0; kk < depth; ++kk) {
              a_block[r * kDepthBlock + kk] =
                  matrixElement(base[0], types[0], row + kk * as[2]);
            }
          }
          int64_t c_at = bi * cs[0] + i * cs[1] + j0 * cs[2];
          for (uint32_t r = 0; r < rows; ++r) {
            for (uint32_t j = 0; j < cols; ++j) {
              c_block[r * kCols + j] = matrixElement(
                  base[2], types[2], c_at + r * cs[1] + j * cs[2]);
            }
          }
          if (narrow_c) {
            matmulBlockNarrow(half, rows, a_block, kDepthBlock, panel, kCols,
                              c_block, kCols, cols, depth);
          } else if (rows == kRows) {
            matmulBlock4(a_block, kDepthBlock, 1, panel, kCols, 1, c_block,
                         kCols, 1, cols, depth);
          } else {
            for (uint32_t r = 0; r < rows; ++r) {
              matmulBlock1(a_block + r * kDepthBlock, kDepthBlock, 1, panel,
                           kCols, 1, c_block + r * kCols, kCols, 1, cols,
                           depth);
            }
          }
          uint8_t* c_base = const_cast<uint8_t*>(base[2]);
          for (uint32_t r = 0; r < rows; ++r) {
            int64_t row = c_at + r * cs[1];
            if (!narrow_c) {
              for (uint32_t j = 0; j < cols; ++j) {
                std::memcpy(c_base + (row + j * cs[2]) * 4,
                            &c_block[r * kCols + j], sizeof(float));
              }
              continue;
            }
            for (uint32_t j = 0; j < cols; ++j) {
              uint16_t h = half ? floatToHalf(c_block[r * kCols + j])
                                : floatToBfloat(c_block[r * kCols + j]);
              std::memcpy(c_base + (row + j * cs[2]) * 2, &h, sizeof(h));
            }
          }
        }
      }
    }
  }
}

void runMatmul(const uint32_t* code, size_t* at, uint8_t* const* slots,
               uint32_t part, uint32_t parts) {
  const uint32_t* p = code + *at + 1;
  uint32_t batch = p[0];
  uint32_t m = p[1];
  uint32_t n = p[2];
  uint32_t k = p[3];
  p += 4;
  *at = static_cast<size_t>(p + 30 - code);
  // An empty product touches nothing (a depth of 0 leaves C as it is): its
  // unverified offsets form no pointer.
  if (!batch || !m || !n || !k) {
    return;
  }
  float* base[3];
  const uint8_t* bytes[3];
  uint32_t types[3];
  bool all_f32 = true;
  int64_t strides[3][3];
  for (int i = 0; i < 3; ++i) {
    types[i] = p[1];
    all_f32 &= types[i] == static_cast<uint32_t>(Type::F32);
    bytes[i] = slots[p[0]] + read64(p + 2) * kernel::typeBytes(types[i]);
    base[i] = reinterpret_cast<float*>(const_cast<uint8_t*>(bytes[i]));
    for (int s = 0; s < 3; ++s) {
      strides[i][s] = read64(p + 4 + 2 * s);
    }
    p += 10;
  }
  const int64_t* as = strides[0];
  const int64_t* bs = strides[1];
  const int64_t* cs = strides[2];
  // Workgroup `part` of `parts` runs its share of the batches when there
  // are several, else of the blocks of kRows rows.
  uint32_t batch_begin = 0;
  uint32_t batch_end = batch;
  uint32_t row_begin = 0;
  uint32_t row_end = m;
  if (parts > 1) {
    if (batch > 1) {
      batch_begin = static_cast<uint32_t>(uint64_t(batch) * part / parts);
      batch_end = static_cast<uint32_t>(uint64_t(batch) * (part + 1) / parts);
    } else {
      uint64_t blocks = (m + kRows - 1) / kRows;
      row_begin = static_cast<uint32_t>(blocks * part / parts * kRows);
      uint64_t end = blocks * (part + 1) / parts * kRows;
      row_end = static_cast<uint32_t>(end < m ? end : m);
    }
  }
  if (!all_f32) {
    runMatmulNarrow(bytes, types, strides, batch_begin, batch_end, row_begin,
                    row_end, n, k);
    return;
  }
  for (uint32_t bi = batch_begin; bi < batch_end; ++bi) {
    for (uint32_t k0 = 0; k0 < k; k0 += kDepthBlock) {
      uint32_t depth = k - k0 < kDepthBlock ? k - k0 : kDepthBlock;
      // The depth block's first column of A and first row of B.
      const float* a_mat = base[0] + bi * as[0] + k0 * as[2];
      const float* b_mat = base[1] + bi * bs[0] + k0 * bs[1];
      float* c_mat = base[2] + bi * cs[0];
      for (uint32_t j0 = 0; j0 < n; j0 += kCols) {
        uint32_t cols = n - j0 < kCols ? n - j0 : kCols;
        const float* b = b_mat + j0 * bs[2];
        int64_t b_row = bs[1];
        int64_t b_col = bs[2];
        // B's rows strided (a transposed B: weights as [out, in]): pack the
        // panel once into contiguous rows for every row block of A.
        alignas(64) float panel[kDepthBlock * kCols];
        if (b_col != 1 && row_end - row_begin > kRows) {
          for (uint32_t kk = 0; kk < depth; ++kk) {
            for (uint32_t j = 0; j < cols; ++j) {
              panel[kk * kCols + j] = b[kk * b_row + j * b_col];
            }
          }
          b = panel;
          b_row = kCols;
          b_col = 1;
        }
        uint32_t i = row_begin;
        for (; i + kRows <= row_end; i += kRows) {
          matmulBlock4(a_mat + i * as[1], as[1], as[2], b, b_row, b_col,
                       c_mat + i * cs[1] + j0 * cs[2], cs[1], cs[2], cols,
                       depth);
        }
        for (; i < row_end; ++i) {
          matmulBlock1(a_mat + i * as[1], as[1], as[2], b, b_row, b_col,
                       c_mat + i * cs[1] + j0 * cs[2], cs[1], cs[2], cols,
                       depth);
        }
      }
    }
  }
}

}  // namespace

int runPortableExport(
    const strata_hal_executable_environment_v0_t* environment,
    const strata_hal_executable_dispatch_state_v0_t* dispatch_state,
    const strata_hal_executable_workgroup_state_v0_t* workgroup_state) {
  const auto* e =
      static_cast<const PortableExport*>(environment->import_functions[0]);
  // What the verifier could not know: the dispatch's bindings and scratch.
  // Temporaries sized at dispatch take what the devices gave beyond the
  // static part (the preparation checks that they fit).
  uint64_t local_needed = e->dynamic_temporaries ? e->dynamic_temporary_offset
                                                 : e->local_memory_size;
  if (dispatch_state->binding_count != e->binding_count ||
      dispatch_state->constant_count != e->constant_count ||
      workgroup_state->local_memory_size < local_needed ||
      (e->local_memory_size && !workgroup_state->local_memory)) {
    return STRATA_HAL_EXECUTABLE_DISPATCH_BAD_STATE;
  }
  // Version 1 states carry the detail (the devices pass one).
  auto* v1 =
      reinterpret_cast<const strata_hal_executable_workgroup_state_v1_t*>(
          workgroup_state);
  auto failWith = [&](int code,
                      const strata_hal_executable_dispatch_detail_v1_t& d) {
    if (v1->detail) {
      *v1->detail = d;
    }
    return code;
  };
  uint8_t* slots[kernel::kMaxBindings + kernel::kMaxTemporaries +
                 kernel::kMaxConstantData];
  for (uint32_t i = 0; i < e->binding_count; ++i) {
    if (dispatch_state->binding_lengths[i] < e->binding_bytes[i]) {
      strata_hal_executable_dispatch_detail_v1_t d = {};
      d.kind = STRATA_HAL_EXECUTABLE_DISPATCH_DETAIL_BINDING;
      d.index = i;
      d.bound = static_cast<int64_t>(e->binding_bytes[i]);
      return failWith(STRATA_HAL_EXECUTABLE_DISPATCH_BAD_STATE, d);
    }
    slots[i] = static_cast<uint8_t*>(dispatch_state->binding_ptrs[i]);
  }
  auto* local = static_cast<uint8_t*>(workgroup_state->local_memory);
  // Dynamic shapes: the code with this dispatch's sizes, proved in bounds
  // here, once per call, and never again per access.
  const uint32_t* code = e->code;
  const uint64_t* temporary_offsets = e->temporary_offsets;
  uint64_t placed[kernel::kMaxTemporaries];
  size_t at = 0;
  if (e->value_count) {
    auto* copy = reinterpret_cast<uint32_t*>(local + e->code_copy_offset);
    strata_hal_executable_dispatch_detail_v1_t d = {};
    if (int failure = preparePortableDispatch(
            *e, dispatch_state->constants, dispatch_state->binding_lengths,
            workgroup_state->local_memory_size, copy, placed, &d)) {
      return failWith(failure, d);
    }
    code = copy;
    temporary_offsets = placed;
    at = 4 + 3 * size_t(e->value_count) + 2 * size_t(e->requirement_count) +
         2 * size_t(e->patch_count);
  }
  for (uint32_t t = 0; t < e->temporary_count; ++t) {
    slots[e->binding_count + t] = local + temporary_offsets[t];
  }
  // Constant data: the verifier proved no instruction writes it.
  for (uint32_t k = 0; k < e->data_count; ++k) {
    slots[e->binding_count + e->temporary_count + k] =
        const_cast<uint8_t*>(e->data[k]);
  }
  // The grid splits along x only (see the compiler's portable target).
  if (workgroup_state->workgroup_id_y || workgroup_state->workgroup_id_z) {
    return STRATA_HAL_EXECUTABLE_DISPATCH_OK;
  }
  uint32_t part = workgroup_state->workgroup_id_x;
  uint32_t parts = dispatch_state->workgroup_count_x;
  if (parts == 0 || part >= parts) {
    return STRATA_HAL_EXECUTABLE_DISPATCH_BAD_STATE;
  }
  while (at < e->code_words) {
    uint32_t inst = code[at];
    if (inst == static_cast<uint32_t>(kernel::Inst::Generic)) {
      int64_t bad_index = 0;
      int64_t bound = 0;
      int failure =
          runGeneric(code, &at, slots, local, dispatch_state->constants, part,
                     parts, &bad_index, &bound);
      if (failure) {
        strata_hal_executable_dispatch_detail_v1_t d = {};
        d.kind = STRATA_HAL_EXECUTABLE_DISPATCH_DETAIL_INDEX;
        d.index = bad_index;
        d.bound = bound;
        return failWith(failure, d);
      }
    } else {
      runMatmul(code, &at, slots, part, parts);
    }
  }
  return STRATA_HAL_EXECUTABLE_DISPATCH_OK;
}

}  // namespace strata::hal
