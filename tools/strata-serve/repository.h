// repository.h - a model repository on disk: <dir>/<model>/<version>/
// model.vmfb (or model.onnx, compiled at load), with an optional
// <dir>/<model>/config.json (ModelConfig). Versions are positive integers;
// the newest is served.
//
// Threading: pure functions of the file system.
#ifndef STRATA_TOOLS_STRATA_SERVE_REPOSITORY_H_
#define STRATA_TOOLS_STRATA_SERVE_REPOSITORY_H_

#include <string>
#include <vector>

#include "model_registry.h"

namespace strata::service {

/// One model of a repository as found on disk.
struct RepositoryModel {
  std::string name;
  /// The newest version with a model.vmfb or a model.onnx ("" when none).
  std::string version;
  /// <dir>/<name>/<version>/model.vmfb, or its model.onnx when it has no
  /// model.vmfb.
  std::string path;
  bool onnx = false;  // path is the model.onnx
  ModelConfig config;
  /// Whether <dir>/<name> is a directory at all.
  bool exists = false;
  /// Why the model cannot be loaded ("" when it can be tried).
  std::string error;
};

/// The models of dir (its subdirectories), sorted by name. False with
/// *error when dir cannot be read.
bool scanRepository(const std::string& dir, std::vector<RepositoryModel>* out,
                    std::string* error);

/// Model name of dir, read again; its error says why when it is absent or
/// unusable.
RepositoryModel findInRepository(const std::string& dir,
                                 const std::string& name);

}  // namespace strata::service

#endif  // STRATA_TOOLS_STRATA_SERVE_REPOSITORY_H_
