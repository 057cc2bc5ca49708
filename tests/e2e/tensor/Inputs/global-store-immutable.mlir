// A store to an immutable util.global (globals.mlir checks the error).
util.global private @limit = 3 : index
func.func @set(%v: index) {
  util.global.store %v, @limit : index
  return
}
