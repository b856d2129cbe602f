//===- SyncBits.h - Copy-on-write bit sets for pto-isa-insert-sync -*- C++ -*-//
//
// The sets of accesses pto-isa-insert-sync keeps (issued, covered per pipe,
// the knowledge a flag hands on after each instruction) span every access
// of the function, but between two instructions only a few bits change, and
// far behind the walk they are all ones (issued and ordered) or all zeros.
// A `SyncBits` is a row of fixed-size chunks shared between copies (copy on
// write), with the all-zero and all-one chunks kept as sentinels instead of
// memory: a copy costs a pointer per chunk, and an operation touches the
// words of the chunks that are neither shared nor a sentinel only.
//
//===----------------------------------------------------------------------===//

#ifndef PTO_LIB_DIALECT_PTOISA_TRANSFORMS_SYNCBITS_H
#define PTO_LIB_DIALECT_PTOISA_TRANSFORMS_SYNCBITS_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/MathExtras.h"

#include <cstdint>
#include <cstring>
#include <utility>

namespace mlir::ptoisa::sync {

class SyncBits {
public:
  static constexpr unsigned kWords = 16;
  static constexpr unsigned kChunkBits = kWords * 64;

  SyncBits() = default;
  explicit SyncBits(unsigned size) { resize(size); }
  SyncBits(const SyncBits &other) : chunks(other.chunks), bits(other.bits) {
    for (Chunk *c : chunks)
      retain(c);
  }
  SyncBits(SyncBits &&other)
      : chunks(std::move(other.chunks)), bits(other.bits) {
    other.chunks.clear();
    other.bits = 0;
  }
  SyncBits &operator=(const SyncBits &other) {
    if (this == &other)
      return *this;
    for (Chunk *c : other.chunks)
      retain(c);
    clear();
    chunks = other.chunks;
    bits = other.bits;
    return *this;
  }
  SyncBits &operator=(SyncBits &&other) {
    if (this == &other)
      return *this;
    clear();
    chunks = std::move(other.chunks);
    bits = other.bits;
    other.chunks.clear();
    other.bits = 0;
    return *this;
  }
  ~SyncBits() { clear(); }

  unsigned size() const { return bits; }
  bool empty() const { return bits == 0; }
  /// Grows to `size` bits, the new ones clear (only grows: the sets of one
  /// function all have its number of accesses).
  void resize(unsigned size) {
    bits = size;
    chunks.resize((size + kChunkBits - 1) / kChunkBits, nullptr);
  }

  bool test(unsigned i) const {
    Chunk *c = chunks[i / kChunkBits];
    if (!isReal(c))
      return c == full();
    unsigned b = i % kChunkBits;
    return (c->words[b / 64] >> (b % 64)) & 1;
  }
  void set(unsigned i) {
    unsigned k = i / kChunkBits, b = i % kChunkBits;
    if (chunks[k] == full())
      return;
    uint64_t *words = writable(k);
    words[b / 64] |= uint64_t(1) << (b % 64);
    if (words[b / 64] == ~uint64_t(0))
      normalize(k);
  }
  void reset(unsigned i) {
    unsigned k = i / kChunkBits, b = i % kChunkBits;
    if (!chunks[k])
      return;
    uint64_t *words = writable(k);
    words[b / 64] &= ~(uint64_t(1) << (b % 64));
    if (words[b / 64] == 0)
      normalize(k);
  }

  bool none() const {
    for (Chunk *c : chunks)
      if (c)
        return false;
    return true;
  }
  unsigned count() const {
    unsigned n = 0;
    for (Chunk *c : chunks) {
      if (c == full())
        n += kChunkBits;
      else if (c)
        for (uint64_t w : c->words)
          n += llvm::popcount(w);
    }
    return n;
  }

  SyncBits &operator|=(const SyncBits &other) {
    for (unsigned k = 0, e = other.chunks.size(); k < e; ++k) {
      Chunk *a = chunks[k], *b = other.chunks[k];
      if (!b || a == full() || a == b)
        continue;
      if (!a || b == full()) {
        assign(k, b);
        continue;
      }
      uint64_t *words = writable(k);
      for (unsigned w = 0; w < kWords; ++w)
        words[w] |= b->words[w];
      normalize(k);
    }
    return *this;
  }
  SyncBits &operator&=(const SyncBits &other) {
    for (unsigned k = 0, e = chunks.size(); k < e; ++k) {
      Chunk *a = chunks[k], *b = other.chunks[k];
      if (!a || b == full() || a == b)
        continue;
      if (!b || a == full()) {
        assign(k, b);
        continue;
      }
      uint64_t *words = writable(k);
      for (unsigned w = 0; w < kWords; ++w)
        words[w] &= b->words[w];
      normalize(k);
    }
    return *this;
  }
  /// Clears the bits set in `other`.
  SyncBits &reset(const SyncBits &other) {
    for (unsigned k = 0, e = other.chunks.size(); k < e; ++k) {
      Chunk *a = chunks[k], *b = other.chunks[k];
      if (!a || !b)
        continue;
      if (b == full() || a == b) {
        assign(k, nullptr);
        continue;
      }
      uint64_t *words = writable(k);
      for (unsigned w = 0; w < kWords; ++w)
        words[w] &= ~b->words[w];
      normalize(k);
    }
    return *this;
  }
  /// this |= a & b, touching only the chunks where this is not all ones.
  void orAnd(const SyncBits &a, const SyncBits &b) {
    for (unsigned k = 0, e = chunks.size(); k < e; ++k) {
      Chunk *x = chunks[k], *ca = a.chunks[k], *cb = b.chunks[k];
      if (x == full() || !ca || !cb)
        continue;
      if (ca == full() || cb == full()) {
        SyncBits::Chunk *other = ca == full() ? cb : ca;
        if (!x || other == full()) {
          assign(k, other);
          continue;
        }
      }
      uint64_t wa[kWords], wb[kWords];
      const uint64_t *pa = wordsOf(ca, wa), *pb = wordsOf(cb, wb);
      uint64_t *words = writable(k);
      for (unsigned w = 0; w < kWords; ++w)
        words[w] |= pa[w] & pb[w];
      normalize(k);
    }
  }

  /// The number of bits set both here and in `other`.
  unsigned countAnd(const SyncBits &other) const {
    unsigned n = 0;
    for (unsigned k = 0, e = chunks.size(); k < e; ++k) {
      Chunk *a = chunks[k], *b = other.chunks[k];
      if (!a || !b)
        continue;
      uint64_t wa[kWords], wb[kWords];
      const uint64_t *pa = wordsOf(a, wa), *pb = wordsOf(b, wb);
      for (unsigned w = 0; w < kWords; ++w)
        n += llvm::popcount(pa[w] & pb[w]);
    }
    return n;
  }

  bool operator==(const SyncBits &other) const {
    if (bits != other.bits)
      return false;
    for (unsigned k = 0, e = chunks.size(); k < e; ++k) {
      Chunk *a = chunks[k], *b = other.chunks[k];
      if (a == b)
        continue;
      // Normalised: a sentinel equals only itself.
      if (!isReal(a) || !isReal(b))
        return false;
      if (std::memcmp(a->words, b->words, sizeof(a->words)))
        return false;
    }
    return true;
  }
  bool operator!=(const SyncBits &other) const { return !(*this == other); }

  /// The first set bit at or after `from`, or -1.
  int findNext(unsigned from) const {
    for (unsigned k = from / kChunkBits, e = chunks.size(); k < e; ++k) {
      Chunk *c = chunks[k];
      if (!c)
        continue;
      unsigned start = k == from / kChunkBits ? from % kChunkBits : 0;
      if (c == full())
        return k * kChunkBits + start;
      for (unsigned w = start / 64; w < kWords; ++w) {
        uint64_t word = c->words[w];
        if (w == start / 64)
          word &= ~uint64_t(0) << (start % 64);
        if (word)
          return k * kChunkBits + w * 64 + llvm::countr_zero(word);
      }
    }
    return -1;
  }

  class iterator {
  public:
    iterator(const SyncBits *set, int at) : set(set), at(at) {}
    unsigned operator*() const { return static_cast<unsigned>(at); }
    iterator &operator++() {
      at = set->findNext(static_cast<unsigned>(at) + 1);
      return *this;
    }
    bool operator!=(const iterator &other) const { return at != other.at; }

  private:
    const SyncBits *set;
    int at;
  };
  struct Range {
    const SyncBits *set;
    iterator begin() const { return {set, set->findNext(0)}; }
    iterator end() const { return {set, -1}; }
  };
  /// The set bits in increasing order.
  Range set_bits() const { return {this}; }

  // Chunk-level access, for the fused queries of the inserter.
  unsigned numChunks() const { return chunks.size(); }
  bool chunkNone(unsigned k) const { return !chunks[k]; }
  bool chunkAll(unsigned k) const { return chunks[k] == full(); }
  /// The words of chunk `k` (`scratch` holds a sentinel's).
  const uint64_t *chunkWords(unsigned k, uint64_t *scratch) const {
    return wordsOf(chunks[k], scratch);
  }
  /// Replaces chunk `k` by `words`.
  void setChunk(unsigned k, const uint64_t *words) {
    uint64_t *dst = writable(k);
    std::memcpy(dst, words, sizeof(uint64_t) * kWords);
    normalize(k);
  }

private:
  struct Chunk {
    unsigned refs;
    uint64_t words[kWords];
  };
  /// nullptr: all zeros; full(): all ones; otherwise a chunk with both.
  static Chunk *full() { return reinterpret_cast<Chunk *>(uintptr_t(1)); }
  static bool isReal(Chunk *c) { return reinterpret_cast<uintptr_t>(c) > 1; }
  static void retain(Chunk *c) {
    if (isReal(c))
      ++c->refs;
  }
  static void release(Chunk *c) {
    if (isReal(c) && --c->refs == 0)
      delete c;
  }
  static const uint64_t *wordsOf(Chunk *c, uint64_t *scratch) {
    if (isReal(c))
      return c->words;
    std::memset(scratch, c ? 0xff : 0, sizeof(uint64_t) * kWords);
    return scratch;
  }
  void clear() {
    for (Chunk *c : chunks)
      release(c);
    chunks.clear();
  }
  void assign(unsigned k, Chunk *c) {
    retain(c);
    release(chunks[k]);
    chunks[k] = c;
  }
  /// The words of chunk `k`, unshared.
  uint64_t *writable(unsigned k) {
    Chunk *&c = chunks[k];
    if (isReal(c) && c->refs == 1)
      return c->words;
    auto *fresh = new Chunk;
    fresh->refs = 1;
    if (isReal(c))
      std::memcpy(fresh->words, c->words, sizeof(fresh->words));
    else
      std::memset(fresh->words, c ? 0xff : 0, sizeof(fresh->words));
    release(c);
    c = fresh;
    return fresh->words;
  }
  /// Turns an all-zero or all-one chunk `k` into its sentinel.
  void normalize(unsigned k) {
    Chunk *c = chunks[k];
    if (!isReal(c))
      return;
    uint64_t any = 0, all = ~uint64_t(0);
    for (uint64_t w : c->words) {
      any |= w;
      all &= w;
    }
    if (!any)
      assign(k, nullptr);
    else if (all == ~uint64_t(0))
      assign(k, full());
  }

  llvm::SmallVector<Chunk *, 0> chunks;
  unsigned bits = 0;
};

} // namespace mlir::ptoisa::sync

#endif // PTO_LIB_DIALECT_PTOISA_TRANSFORMS_SYNCBITS_H
