// ts_host_entry.hpp: how the CPU backend starts a CUDA thread of a user kernel compiled for the
// host: as a fiber, with its built-ins, on the kernel (TS_KERNEL's ts_kernel) and the problem.
// Relies on the API in front of it (ts::Problem).
extern "C" void ts_host_thread(ts::host::Thread* thread, void (*kernel)(ts::Problem),
                               const ts::Problem* problem) {
  ts::host::current = thread;
  kernel(*problem);
}

#ifdef TS_SANITIZE
// A sanitized build gives the numbers of __shared__ arrays as ts::host::Element: the accessors
// take them too, and check the access themselves.
namespace ts {
template <typename Word>
inline Word readShared(const Problem& p, Tile tile, host::Element<Word> word) {
  return readShared(p, tile, *&word);
}
template <typename Word>
inline void writeShared(const Problem& p, Tile tile, host::Element<Word> word, Word value) {
  writeShared(p, tile, *&word, value);
}
inline float4 readShared4(const Problem& p, Tile tile, host::Element<float> first) {
  return readShared4(p, tile, *&first);
}
inline void writeShared4(const Problem& p, Tile tile, host::Element<float> first, float4 value) {
  writeShared4(p, tile, *&first, value);
}
}  // namespace ts
#endif
