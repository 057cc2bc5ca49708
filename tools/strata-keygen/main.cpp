// strata-keygen - makes an Ed25519 key pair for signing modules
// (docs/security.md): PREFIX.key (the secret key for strata-compile
// --sign-key, mode 0600) and PREFIX.pub (the public key for
// --require-signature), each as hexadecimal text.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include <fcntl.h>
#include <sodium.h>
#include <unistd.h>

namespace {

constexpr const char kUsage[] =
    "usage: strata-keygen PREFIX\n"
    "\n"
    "Writes a new Ed25519 key pair: PREFIX.key, the secret key (mode 0600;\n"
    "strata-compile --sign-key=PREFIX.key), and PREFIX.pub, the public key\n"
    "(--require-signature=PREFIX.pub of strata-run, strata-benchmark and\n"
    "strata-serve). Existing files are not overwritten.\n";

std::string toHex(const unsigned char* bytes, size_t size) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < size; ++i) {
    out.push_back(kDigits[bytes[i] >> 4]);
    out.push_back(kDigits[bytes[i] & 15]);
  }
  out.push_back('\n');
  return out;
}

bool writeNew(const std::string& path, const std::string& text, int mode) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0) {
    std::fprintf(stderr, "strata-keygen: cannot create '%s': %s\n",
                 path.c_str(), std::strerror(errno));
    return false;
  }
  bool ok = ::write(fd, text.data(), text.size()) ==
            static_cast<ssize_t>(text.size());
  ok = ::close(fd) == 0 && ok;
  if (!ok) {
    std::fprintf(stderr, "strata-keygen: cannot write '%s'\n", path.c_str());
  }
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 || argv[1][0] == '-') {
    bool help = argc == 2 && (std::strcmp(argv[1], "--help") == 0 ||
                              std::strcmp(argv[1], "-h") == 0);
    std::fputs(kUsage, help ? stdout : stderr);
    return help ? 0 : 2;
  }
  if (sodium_init() < 0) {
    std::fprintf(stderr, "strata-keygen: libsodium failed to initialize\n");
    return 1;
  }
  unsigned char public_key[crypto_sign_PUBLICKEYBYTES];
  unsigned char secret_key[crypto_sign_SECRETKEYBYTES];
  crypto_sign_keypair(public_key, secret_key);
  std::string prefix = argv[1];
  bool ok = writeNew(prefix + ".key", toHex(secret_key, sizeof(secret_key)),
                     0600) &&
            writeNew(prefix + ".pub", toHex(public_key, sizeof(public_key)),
                     0644);
  sodium_memzero(secret_key, sizeof(secret_key));
  if (!ok) {
    return 1;
  }
  std::printf("wrote %s.key (secret) and %s.pub (public)\n", prefix.c_str(),
              prefix.c_str());
  return 0;
}
