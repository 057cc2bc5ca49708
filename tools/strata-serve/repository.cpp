// repository.cpp - scanning a model repository; see repository.h.
#include "repository.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

namespace strata::service {

namespace fs = std::filesystem;

namespace {

bool isVersion(const std::string& text) {
  return !text.empty() && text.size() <= 18 && text[0] != '0' &&
         text.find_first_not_of("0123456789") == std::string::npos;
}

}  // namespace

RepositoryModel findInRepository(const std::string& dir,
                                 const std::string& name) {
  RepositoryModel model;
  model.name = name;
  std::error_code ec;
  fs::path root = fs::path(dir) / name;
  if (name.empty() || name.find('/') != std::string::npos || name == "." ||
      name == ".." || !fs::is_directory(root, ec)) {
    model.error = "no directory '" + name + "' in the repository " + dir;
    return model;
  }
  model.exists = true;
  uint64_t newest = 0;
  for (fs::directory_iterator it(root, ec), end; !ec && it != end;
       it.increment(ec)) {
    std::string entry = it->path().filename().string();
    if (!isVersion(entry) ||
        (!fs::is_regular_file(it->path() / "model.vmfb", ec) &&
         !fs::is_regular_file(it->path() / "model.onnx", ec))) {
      continue;
    }
    uint64_t version = std::stoull(entry);
    if (version > newest) {
      newest = version;
    }
  }
  if (ec) {
    model.error = "cannot read " + root.string() + ": " + ec.message();
    return model;
  }
  if (newest == 0) {
    model.error = "no version of '" + name +
                  "' holds a model.vmfb or a model.onnx (" + root.string() +
                  "/<version>/model.vmfb)";
    return model;
  }
  model.version = std::to_string(newest);
  model.path = (root / model.version / "model.vmfb").string();
  if (!fs::is_regular_file(model.path, ec)) {
    model.path = (root / model.version / "model.onnx").string();
    model.onnx = true;
  }
  fs::path config_path = root / "config.json";
  if (fs::exists(config_path, ec)) {
    std::ifstream in(config_path);
    std::stringstream text;
    text << in.rdbuf();
    std::string why;
    if (!in || !parseModelConfig(text.str(), &model.config, &why)) {
      model.error = config_path.string() + ": " +
                    (why.empty() ? std::string("cannot be read") : why);
    }
  }
  return model;
}

bool scanRepository(const std::string& dir, std::vector<RepositoryModel>* out,
                    std::string* error) {
  out->clear();
  std::error_code ec;
  std::vector<std::string> names;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end;
       it.increment(ec)) {
    if (it->is_directory(ec)) {
      names.push_back(it->path().filename().string());
    }
  }
  if (ec) {
    *error = "cannot read the model repository " + dir + ": " + ec.message();
    return false;
  }
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    out->push_back(findInRepository(dir, name));
  }
  return true;
}

}  // namespace strata::service
