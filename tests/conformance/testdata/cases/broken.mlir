// Does not compile: both cases fail.
func.func @first() {
  %0 = "unknown.op"() : () -> i32
  return
}
func.func @second() {
  return
}
