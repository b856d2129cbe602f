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

#include <algorithm>
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
  SyncBits(const SyncBits &other)
      : chunks(other.chunks), bits(other.bits), fullHint(other.fullHint),
        endHint(other.endHint) {
    for (Chunk *c : chunks)
      retain(c);
  }
  SyncBits(SyncBits &&other)
      : chunks(std::move(other.chunks)), bits(other.bits),
        fullHint(other.fullHint), endHint(other.endHint) {
    other.chunks.clear();
    other.bits = other.fullHint = other.endHint = 0;
  }
  SyncBits &operator=(const SyncBits &other) {
    if (this == &other)
      return *this;
    for (Chunk *c : other.chunks)
      retain(c);
    clear();
    chunks = other.chunks;
    bits = other.bits;
    fullHint = other.fullHint;
    endHint = other.endHint;
    return *this;
  }
  SyncBits &operator=(SyncBits &&other) {
    if (this == &other)
      return *this;
    clear();
    chunks = std::move(other.chunks);
    bits = other.bits;
    fullHint = other.fullHint;
    endHint = other.endHint;
    other.chunks.clear();
    other.bits = other.fullHint = other.endHint = 0;
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
    for (unsigned k = 0; k < endHint; ++k)
      if (chunks[k])
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
    for (unsigned k = leadingFull(), e = other.endHint; k < e; ++k) {
      Chunk *a = chunks[k], *b = other.chunks[k];
      if (!b || a == full() || a == b)
        continue;
      if (!a || b == full()) {
        assign(k, b);
        continue;
      }
      uint64_t *words = writable(k);
      for (unsigned w = 0, used = wordsIn(k); w < used; ++w)
        words[w] |= b->words[w];
      normalize(k);
    }
    return *this;
  }
  SyncBits &operator&=(const SyncBits &other) {
    for (unsigned k = other.leadingFull(), e = endHint; k < e; ++k) {
      Chunk *a = chunks[k], *b = other.chunks[k];
      if (!a || b == full() || a == b)
        continue;
      if (!b || a == full()) {
        assign(k, b);
        continue;
      }
      uint64_t *words = writable(k);
      for (unsigned w = 0, used = wordsIn(k); w < used; ++w)
        words[w] &= b->words[w];
      normalize(k);
    }
    return *this;
  }
  /// Clears the bits set in `other`.
  SyncBits &reset(const SyncBits &other) {
    for (unsigned k = 0, e = std::min(endHint, other.endHint); k < e; ++k) {
      Chunk *a = chunks[k], *b = other.chunks[k];
      if (!a || !b)
        continue;
      if (b == full() || a == b) {
        assign(k, nullptr);
        continue;
      }
      uint64_t *words = writable(k);
      for (unsigned w = 0, used = wordsIn(k); w < used; ++w)
        words[w] &= ~b->words[w];
      normalize(k);
    }
    return *this;
  }
  /// this |= a & b, touching only the chunks where this is not all ones.
  void orAnd(const SyncBits &a, const SyncBits &b) {
    for (unsigned k = leadingFull(), e = std::min(a.endHint, b.endHint); k < e;
         ++k) {
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
      for (unsigned w = 0, used = wordsIn(k); w < used; ++w)
        words[w] |= pa[w] & pb[w];
      normalize(k);
    }
  }

  /// The number of bits set both here and in `other`.
  unsigned countAnd(const SyncBits &other) const {
    unsigned n = 0;
    for (unsigned k = 0, e = std::min(endHint, other.endHint); k < e; ++k) {
      Chunk *a = chunks[k], *b = other.chunks[k];
      if (!a || !b)
        continue;
      uint64_t wa[kWords], wb[kWords];
      const uint64_t *pa = wordsOf(a, wa), *pb = wordsOf(b, wb);
      for (unsigned w = 0, used = wordsIn(k); w < used; ++w)
        n += llvm::popcount(pa[w] & pb[w]);
    }
    return n;
  }

  bool operator==(const SyncBits &other) const {
    if (bits != other.bits)
      return false;
    for (unsigned k = 0, e = std::max(endHint, other.endHint); k < e; ++k) {
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

  class Packed;
  /// What is kept of this set: its chunks without a leading run of all-zero
  /// or all-one chunks and without the trailing all-zero ones.
  Packed pack() const;
  /// `packed` as a set of `size` bits.
  static SyncBits unpack(const Packed &packed, unsigned size);
  /// The number of bits set both here and in `packed`.
  unsigned countAnd(const Packed &packed) const;

  // Chunk-level access, for the fused queries of the inserter.
  unsigned numChunks() const { return chunks.size(); }
  bool chunkNone(unsigned k) const { return !chunks[k]; }
  bool chunkAll(unsigned k) const { return chunks[k] == full(); }
  /// The words of chunk `k` that hold bits of the set (the rest are zero).
  unsigned wordsIn(unsigned k) const {
    return std::min(kWords, (bits - k * kChunkBits + 63) / 64);
  }
  /// Chunks before this are all ones (an exact count, kept as a lower bound
  /// that only moves forward until a chunk before it changes).
  unsigned leadingFull() const {
    while (fullHint < chunks.size() && chunks[fullHint] == full())
      ++fullHint;
    return fullHint;
  }
  /// Chunks from this on are all zeros (an upper bound).
  unsigned nonZeroEnd() const { return endHint; }
  /// this | (a & b), packed, without copying this set.
  Packed packedOrAnd(const SyncBits &a, const SyncBits &b) const;
  /// The words of chunk `k` (`scratch` holds a sentinel's).
  const uint64_t *chunkWords(unsigned k, uint64_t *scratch) const {
    return wordsOf(chunks[k], scratch);
  }
  /// Replaces chunk `k` by `words`.
  void setChunk(unsigned k, const uint64_t *words) {
    uint64_t *dst = writable(k);
    std::memcpy(dst, words, sizeof(uint64_t) * wordsIn(k));
    normalize(k);
  }

private:
  struct Chunk {
    unsigned refs;
    uint64_t words[kWords];
  };

public:
  /// A set as stored after the walk has moved on (the knowledge a flag set
  /// after an instruction hands on, a conflict row): far behind the walk a
  /// snapshot is all ones and a row of a buffer used only nearby all zeros,
  /// so the chunks kept are the few in between, not one per chunk of the
  /// function. Read-only; shares its chunks with the set it came from.
  class Packed {
  public:
    Packed() = default;
    Packed(const Packed &other)
        : window(other.window), first(other.first),
          prefixFull(other.prefixFull) {
      for (Chunk *c : window)
        retain(c);
    }
    Packed(Packed &&other)
        : window(std::move(other.window)), first(other.first),
          prefixFull(other.prefixFull) {
      other.window.clear();
    }
    Packed &operator=(const Packed &other) {
      Packed copy(other);
      std::swap(window, copy.window);
      first = copy.first;
      prefixFull = copy.prefixFull;
      return *this;
    }
    Packed &operator=(Packed &&other) {
      std::swap(window, other.window);
      first = other.first;
      prefixFull = other.prefixFull;
      return *this;
    }
    ~Packed() {
      for (Chunk *c : window)
        release(c);
    }
    bool chunkNone(unsigned k) const { return !at(k); }
    const uint64_t *chunkWords(unsigned k, uint64_t *scratch) const {
      return wordsOf(at(k), scratch);
    }

  private:
    friend class SyncBits;
    Chunk *at(unsigned k) const {
      if (k < first)
        return prefixFull ? full() : nullptr;
      return k - first < window.size() ? window[k - first] : nullptr;
    }
    llvm::SmallVector<Chunk *, 2> window;
    unsigned first = 0;      // chunks before the window: all ones or zeros
    bool prefixFull = false; // which
  };

private:
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
    stored(k, c);
  }
  /// Keeps the hints right after chunk `k` became `c`.
  void stored(unsigned k, Chunk *c) {
    if (c != full() && k < fullHint)
      fullHint = k;
    if (c && k >= endHint)
      endHint = k + 1;
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
    stored(k, fresh);
    return fresh->words;
  }
  /// Turns an all-zero or all-one chunk `k` into its sentinel.
  void normalize(unsigned k) {
    Chunk *c = chunks[k];
    if (!isReal(c))
      return;
    // The words past the last bit are zero: a partial chunk is never full.
    uint64_t any = 0, all = ~uint64_t(0);
    unsigned used = wordsIn(k);
    for (unsigned w = 0; w < used; ++w) {
      any |= c->words[w];
      all &= c->words[w];
    }
    if (!any)
      assign(k, nullptr);
    else if (used == kWords && all == ~uint64_t(0))
      assign(k, full());
  }

  llvm::SmallVector<Chunk *, 2> chunks; // inline: a function of few accesses
  unsigned bits = 0;
  mutable unsigned fullHint = 0; // chunks [0, fullHint) are all ones
  unsigned endHint = 0;          // chunks [endHint, end) are all zeros
};

inline SyncBits::Packed SyncBits::pack() const {
  Packed packed;
  unsigned begin = 0, end = endHint;
  while (end > 0 && !chunks[end - 1])
    --end;
  if (end > 0) {
    Chunk *lead = chunks[0];
    if (lead == full()) {
      packed.prefixFull = true;
      begin = std::min(leadingFull(), end);
    } else if (!lead) {
      while (begin < end && !chunks[begin])
        ++begin;
    }
  }
  packed.first = begin;
  packed.window.assign(chunks.begin() + begin, chunks.begin() + end);
  for (Chunk *c : packed.window)
    retain(c);
  return packed;
}

inline SyncBits SyncBits::unpack(const Packed &packed, unsigned size) {
  SyncBits set(size);
  unsigned end = std::min<unsigned>(packed.first + packed.window.size(),
                                    set.chunks.size());
  for (unsigned k = 0; k < end; ++k) {
    Chunk *c = packed.at(k);
    retain(c);
    set.chunks[k] = c;
  }
  set.fullHint = packed.prefixFull ? std::min(packed.first, end) : 0;
  set.endHint = end;
  return set;
}

inline SyncBits::Packed SyncBits::packedOrAnd(const SyncBits &a,
                                              const SyncBits &b) const {
  Packed packed;
  unsigned begin = leadingFull();
  unsigned end = std::max(endHint, std::min(a.endHint, b.endHint));
  packed.prefixFull = begin > 0;
  packed.first = begin;
  for (unsigned k = begin; k < end; ++k) {
    Chunk *c = chunks[k], *ca = a.chunks[k], *cb = b.chunks[k];
    if (c == full() || !ca || !cb) {
      retain(c);
      packed.window.push_back(c);
      continue;
    }
    uint64_t wc[kWords], wa[kWords], wb[kWords], words[kWords];
    const uint64_t *pc = wordsOf(c, wc), *pa = wordsOf(ca, wa),
                   *pb = wordsOf(cb, wb);
    uint64_t any = 0, all = ~uint64_t(0);
    unsigned used = wordsIn(k);
    for (unsigned w = 0; w < used; ++w) {
      words[w] = pc[w] | (pa[w] & pb[w]);
      any |= words[w];
      all &= words[w];
    }
    Chunk *r = nullptr;
    if (used == kWords && all == ~uint64_t(0)) {
      r = full();
    } else if (any) {
      r = new Chunk;
      r->refs = 1;
      std::memcpy(r->words, words, sizeof(uint64_t) * used);
      std::memset(r->words + used, 0, sizeof(uint64_t) * (kWords - used));
    }
    packed.window.push_back(r);
  }
  // The same form as pack(): no trailing zero chunks, and no leading chunks
  // equal to the prefix.
  while (!packed.window.empty() && !packed.window.back())
    packed.window.pop_back();
  if (packed.window.empty())
    return packed; // all zeros, or all ones before `first`
  if (packed.first == 0 && !isReal(packed.window.front()))
    packed.prefixFull = packed.window.front() == full();
  Chunk *lead = packed.prefixFull ? full() : nullptr;
  unsigned skip = 0;
  while (skip < packed.window.size() && packed.window[skip] == lead)
    ++skip;
  packed.window.erase(packed.window.begin(), packed.window.begin() + skip);
  packed.first += skip;
  return packed;
}

inline unsigned SyncBits::countAnd(const Packed &packed) const {
  unsigned n = 0;
  for (unsigned k = 0, e = chunks.size(); k < e; ++k) {
    Chunk *a = chunks[k], *b = packed.at(k);
    if (!a || !b)
      continue;
    uint64_t wa[kWords], wb[kWords];
    const uint64_t *pa = wordsOf(a, wa), *pb = wordsOf(b, wb);
    for (unsigned w = 0, used = wordsIn(k); w < used; ++w)
      n += llvm::popcount(pa[w] & pb[w]);
  }
  return n;
}

} // namespace mlir::ptoisa::sync

#endif // PTO_LIB_DIALECT_PTOISA_TRANSFORMS_SYNCBITS_H
