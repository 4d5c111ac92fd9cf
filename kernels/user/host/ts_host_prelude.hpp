// ts_host_prelude.hpp: what NVRTC builds in, for a user kernel compiled by the host's C++
// compiler and run on the CPU (the CPU backend): the CUDA keywords, vector types, built-in
// variables, barriers, atomics and intrinsics the SIMT part of the ts:: API and its kernels use.
// Each CUDA thread is a fiber; `current` is the one running on this system thread.
// Relies on ts_host_abi.hpp in front of it.
#include <source_location>
#include <type_traits>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline __attribute__((always_inline))
// Defined after the system headers above, some of which spell the attribute __noinline__.
#define __noinline__ __attribute__((noinline))
#define __grid_constant__
#define __launch_bounds__(...)
#define __align__(bytes) alignas(bytes)
#define __restrict__ __restrict

typedef ts::host::Dim3 uint3;
typedef ts::host::Dim3 dim3;
struct alignas(8) float2 {
  float x, y;
};
struct alignas(16) float4 {
  float x, y, z, w;
};
struct alignas(16) uint4 {
  unsigned x, y, z, w;
};
inline float2 make_float2(float x, float y) {
  return {x, y};
}
inline float4 make_float4(float x, float y, float z, float w) {
  return {x, y, z, w};
}
inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) {
  return {x, y, z, w};
}

namespace ts::host {
// The fiber running on this system thread: set as it starts, and again after each barrier.
static thread_local Thread* current;
}  // namespace ts::host

#define threadIdx (::ts::host::current->threadIdx)
#define blockIdx (::ts::host::current->blockIdx)
#define blockDim (::ts::host::current->blockDim)
#define gridDim (::ts::host::current->gridDim)

inline void __syncthreads(std::source_location at = std::source_location::current()) {
  ts::host::Thread* const me = ts::host::current;
  me->runtime->barrier(me, int(at.line()));
  ts::host::current = me;
}

// Blocks run on several system threads at once: atomics are the host's.
template <typename T>
inline T atomicAdd(T* at, T value) {
  return __atomic_fetch_add(at, value, __ATOMIC_RELAXED);
}
inline float atomicAdd(float* at, float value) {
  float seen, sum;
  __atomic_load(at, &seen, __ATOMIC_RELAXED);
  do {
    sum = seen + value;
  } while (!__atomic_compare_exchange(at, &seen, &sum, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
  return seen;
}
template <typename T>
inline T atomicMax(T* at, T value) {
  T seen;
  __atomic_load(at, &seen, __ATOMIC_RELAXED);
  while (seen < value &&
         !__atomic_compare_exchange(at, &seen, &value, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
  return seen;
}
template <typename T>
inline T min(T a, T b) {
  return b < a ? b : a;
}
template <typename T>
inline T max(T a, T b) {
  return a < b ? b : a;
}

inline float __uint_as_float(unsigned bits) {
  return __builtin_bit_cast(float, bits);
}
inline unsigned __float_as_uint(float value) {
  return __builtin_bit_cast(unsigned, value);
}
inline float __int_as_float(int bits) {
  return __builtin_bit_cast(float, bits);
}
inline int __float_as_int(float value) {
  return __builtin_bit_cast(int, value);
}
template <typename T>
inline void __stwb(T* at, T value) {
  *at = value;
}
// An address in the block's shared-memory window, as an H100's (or any sm_80 on) gives it: the
// first 1 KiB of the window is the system's, a block's own shared memory starts past it.
inline unsigned long __cvta_generic_to_shared(const void* at) {
  constexpr unsigned long kSystemReservedBytes = 1024;
  return kSystemReservedBytes +
         (unsigned long)(static_cast<const unsigned char*>(at) - ts::host::current->shared);
}

namespace ts::host {

// A __shared__ declaration, rewritten by the CPU backend into one of these (on the same line):
//   __shared__ __align__(16) float a[8][8];  ->  decltype(auto) a = ts::host::shared<float[8][8],
//   16>(0, "a"); extern __shared__ float s[];             ->  decltype(auto) s =
//   ts::host::dynamicShared<float, 4>("s");
// The storage is the block's; under TS_SANITIZE a static array comes as a Checked one, whose
// indices are checked against its extents (it does not decay to a pointer: an index of a
// built-in array would be ambiguous with its own).
template <typename T>
inline T& rawShared(int site, unsigned long align) {
  Thread* const me = current;
  return *reinterpret_cast<T*>(me->runtime->staticShared(me, site, sizeof(T), align));
}

#ifdef TS_SANITIZE
// An index into a __shared__ array, with the user's line where it is made.
struct Index {
  Index(long long value, std::source_location at = std::source_location::current())
      : value(value), line(int(at.line())) {}
  long long value;
  int line;
};
inline long long checkedIndex(const char* name, Index index, long long extent) {
  Thread* const me = current;
  me->line = index.line;
  if (index.value >= 0 && index.value < extent) return index.value;
  me->runtime->outOfBounds(me, name, index.value, extent, index.line);
  return 0;  // the run stops at the block's next barrier; until then the access stays inside
}

inline void checkShared(const void* at, int bytes, bool write) {
  Thread* const me = current;
  me->runtime->checkShared(me, at, bytes, write);
}

// One number of a __shared__ array: each read and write of it is checked as the accessors' are
// (races, words no thread wrote). Its address is the element's, unchecked from there on.
template <typename T>
class Element {
 public:
  explicit Element(T& at) : at_(at) {}
  operator T() const {
    checkShared(&at_, int(sizeof(T)), false);
    return at_;
  }
  const Element& operator=(T value) const {
    checkShared(&at_, int(sizeof(T)), true);
    at_ = value;
    return *this;
  }
  const Element& operator=(const Element& other) const { return *this = T(other); }
  const Element& operator+=(T value) const { return *this = T(*this) + value; }
  const Element& operator-=(T value) const { return *this = T(*this) - value; }
  const Element& operator*=(T value) const { return *this = T(*this) * value; }
  const Element& operator/=(T value) const { return *this = T(*this) / value; }
  T* operator&() const { return &at_; }

 private:
  T& at_;
};

template <typename T>
class Checked;
// What indexing a Checked array gives (and what a declaration gives): an element (a number as
// an Element), or a Checked array of one dimension less.
template <typename T>
struct Indexed {
  using Type = std::conditional_t<std::is_arithmetic_v<T>, Element<T>, T&>;
  static Type of(T& element, const char*) { return Type(element); }
};
template <typename T, unsigned long N>
struct Indexed<T[N]> {
  using Type = Checked<T[N]>;
  static Checked<T[N]> of(T (&element)[N], const char* name) { return {element, name}; }
};

template <typename T, unsigned long N>
class Checked<T[N]> {
 public:
  Checked(T (&array)[N], const char* name) : data_(array), name_(name) {}
  typename Indexed<T>::Type operator[](Index index) const {
    return Indexed<T>::of(data_[checkedIndex(name_, index, (long long)N)], name_);
  }

 private:
  T* data_;
  const char* name_;
};
template <typename T, unsigned long kAlign>
inline typename Indexed<T>::Type shared(int site, const char* name) {
  return Indexed<T>::of(rawShared<T>(site, kAlign), name);
}
#else
template <typename T, unsigned long kAlign>
inline T& shared(int site, const char*) {
  return rawShared<T>(site, kAlign);
}
#endif
// extern __shared__: a pointer (the accessors check what is read and written through it).
template <typename T, unsigned long kAlign>
inline T* dynamicShared(const char*) {
  Thread* const me = current;
  unsigned long bytes = 0;
  return reinterpret_cast<T*>(me->runtime->dynamicShared(me, kAlign, &bytes));
}

}  // namespace ts::host
