// pto-mlir run-time checks shared by the reference interpreter (`pto-run`,
// lib/Interpreter) and emitted programs (pto_runtime.hpp): one definition of
// each rule and of its message, so that the two executors cannot drift
// (docs/Guarantees.md). Header-only, standard C++ only: lib/Interpreter
// includes it as well as every emitted program.
//
// Each check returns the empty string when the value passes, else the
// message (without tool prefix); the caller adds where and exits with the
// code below.
#pragma once

#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <initializer_list>
#include <string>
#include <vector>

namespace pto_check {

// Exit codes of pto-run and of emitted programs.
enum Exit : int { kOk = 0, kBadIR = 1, kUsage = 2, kFault = 3 };

// The largest single buffer (argument, workspace, tile) either executor
// allocates: 16 GiB.
constexpr uint64_t kMaxBufferBytes = uint64_t(1) << 34;

// Host threads per core kind an emitted program may start (--threads).
constexpr int64_t kMaxThreads = 256;

inline std::string list_str(const int64_t *v, size_t n) {
  std::string s = "[";
  for (size_t i = 0; i < n; ++i)
    s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}
inline std::string list_str(const std::vector<int64_t> &v) {
  return list_str(v.data(), v.size());
}

// ---------------------------------------------------------------------------
// Buffers
// ---------------------------------------------------------------------------

// bytes = elem_bytes * prod(shape) without overflow; false when a dim is
// negative or the product overflows int64.
inline bool storage_bytes(const int64_t *shape, size_t rank, int64_t elem_bytes,
                          uint64_t &bytes) {
  int64_t total = elem_bytes;
  for (size_t i = 0; i < rank; ++i) {
    if (shape[i] < 0)
      return false;
    if (__builtin_mul_overflow(total, shape[i], &total))
      return false;
  }
  bytes = uint64_t(total);
  return true;
}

// A buffer of `shape` elements of `kind` (e.g. "f32"): fits 64-bit sizes and
// the buffer limit.
inline std::string buffer_size(const std::vector<int64_t> &shape,
                               const char *kind, int64_t elem_bytes) {
  uint64_t bytes = 0;
  std::string s = "shape " + list_str(shape) + " of " + kind;
  if (!storage_bytes(shape.data(), shape.size(), elem_bytes, bytes))
    return s + " overflows 64-bit sizes; the limit is 16 GiB per buffer";
  if (bytes > kMaxBufferBytes)
    return s + " needs " + std::to_string(bytes) +
           " bytes, more than the limit of 16 GiB per buffer";
  return "";
}

// Whether `bytes` can be allocated now (malloc, then free): running out of
// memory below the buffer limit is then an input error with a message
// instead of an abort. The empty asm keeps the compiler from eliding the
// pair (it may assume such an allocation succeeds).
inline bool can_allocate(uint64_t bytes) {
  if (bytes == 0)
    return true;
  if (bytes > SIZE_MAX)
    return false;
  void *p = std::malloc(size_t(bytes));
  __asm__ volatile("" : : "r"(p) : "memory");
  if (!p)
    return false;
  std::free(p);
  return true;
}

inline std::string out_of_memory(uint64_t bytes, const std::string &what) {
  return "out of memory allocating " + std::to_string(bytes) + " bytes for " +
         what;
}

// ---------------------------------------------------------------------------
// .npy files (format 1.0-3.0; docs/Interpreter.md)
// ---------------------------------------------------------------------------

struct NpyHeader {
  std::string descr; // as written, e.g. "<f4", "=u2"
  std::string type;  // normalised: kind letter + byte size, e.g. "f4"
  std::vector<int64_t> shape;
  size_t data_offset = 0; // first payload byte
};

namespace detail {
struct DictReader {
  const char *p, *end;
  void ws() {
    while (p < end && (*p == ' ' || *p == '\t'))
      ++p;
  }
  bool eat(char c) {
    ws();
    if (p < end && *p == c) {
      ++p;
      return true;
    }
    return false;
  }
  bool string(std::string &out) {
    ws();
    if (p >= end || (*p != '\'' && *p != '"'))
      return false;
    char q = *p++;
    const char *s = p;
    while (p < end && *p != q)
      ++p;
    if (p >= end)
      return false;
    out.assign(s, size_t(p - s));
    ++p;
    return true;
  }
  bool word(const char *w) {
    ws();
    size_t n = std::strlen(w);
    if (size_t(end - p) < n || std::memcmp(p, w, n) != 0)
      return false;
    const char *after = p + n;
    if (after < end && (std::isalnum((unsigned char)*after) || *after == '_'))
      return false;
    p = after;
    return true;
  }
};
} // namespace detail

// The header of a .npy file held in `data[0, size)` (at least the header;
// `size` may stop before the payload). Strict: exactly the keys descr,
// fortran_order (False) and shape (a tuple of decimal integers >= 0 that fit
// int64), as NumPy writes them.
inline std::string parse_npy_header(const char *data, size_t size,
                                    NpyHeader &out) {
  if (size < 10 || std::memcmp(data, "\x93NUMPY", 6) != 0)
    return "not a .npy file (bad magic)";
  const unsigned major = uint8_t(data[6]);
  size_t hlen, hstart;
  if (major == 1) {
    hlen = size_t(uint8_t(data[8])) | (size_t(uint8_t(data[9])) << 8);
    hstart = 10;
  } else if (major == 2 || major == 3) {
    if (size < 12)
      return "truncated header";
    hlen = size_t(uint8_t(data[8])) | (size_t(uint8_t(data[9])) << 8) |
           (size_t(uint8_t(data[10])) << 16) |
           (size_t(uint8_t(data[11])) << 24);
    hstart = 12;
  } else {
    return "unsupported .npy version " + std::to_string(major);
  }
  if (hlen > size - hstart)
    return "truncated header";
  out = NpyHeader();
  out.data_offset = hstart + hlen;
  const char *h = data + hstart, *hend = h + hlen;
  while (hend > h && (hend[-1] == '\n' || hend[-1] == ' ' || hend[-1] == '\0'))
    --hend;
  detail::DictReader r{h, hend};
  const std::string malformed =
      "malformed .npy header '" + std::string(h, hend) + "'";
  if (!r.eat('{'))
    return malformed;
  bool have_descr = false, have_fortran = false, have_shape = false;
  while (!r.eat('}')) {
    std::string key;
    if (!r.string(key) || !r.eat(':'))
      return malformed;
    if (key == "descr" && !have_descr) {
      have_descr = true;
      if (!r.string(out.descr))
        return malformed;
    } else if (key == "fortran_order" && !have_fortran) {
      have_fortran = true;
      if (r.word("True"))
        return "Fortran-order arrays are not supported; save a C-contiguous "
               "array "
               "(np.ascontiguousarray)";
      if (!r.word("False"))
        return "'fortran_order' must be False or True";
    } else if (key == "shape" && !have_shape) {
      have_shape = true;
      if (!r.eat('('))
        return "malformed shape in header";
      for (;;) {
        r.ws();
        if (r.eat(')'))
          break;
        const char *s = r.p;
        while (r.p < r.end && *r.p != ',' && *r.p != ')' && *r.p != ' ')
          ++r.p;
        std::string entry(s, size_t(r.p - s));
        bool digits = !entry.empty();
        int64_t d = 0;
        for (char c : entry) {
          if (c < '0' || c > '9') {
            digits = false;
            break;
          }
          if (__builtin_mul_overflow(d, int64_t(10), &d) ||
              __builtin_add_overflow(d, int64_t(c - '0'), &d))
            return "shape entry '" + entry + "' does not fit in 64 bits";
        }
        if (!digits)
          return "malformed shape entry '" + entry +
                 "' (expected an integer >= 0)";
        out.shape.push_back(d);
        if (r.eat(')'))
          break;
        if (!r.eat(','))
          return "malformed shape in header";
      }
    } else {
      return "unexpected or repeated key '" + key + "' in the .npy header";
    }
    if (r.eat('}'))
      break;
    if (!r.eat(','))
      return malformed;
  }
  r.ws();
  if (r.p != r.end)
    return malformed;
  if (!have_descr || !have_fortran || !have_shape)
    return "header lacks descr, fortran_order or shape";
  // Byte order: little-endian ('<'), native ('=', little-endian on every
  // host we run on) or not applicable ('|').
  const std::string &d = out.descr;
  if (d.size() >= 3 && (d[0] == '<' || d[0] == '=' || d[0] == '|') &&
      (d[1] == 'f' || d[1] == 'i' || d[1] == 'u' || d[1] == 'b') &&
      (d.substr(2) == "1" || d.substr(2) == "2" || d.substr(2) == "4" ||
       d.substr(2) == "8") &&
      (d[0] != '|' || d.substr(2) == "1") && (d[1] != 'b' || d == "|b1"))
    out.type = d.substr(1);
  else
    out.type.clear(); // the caller names the dtypes it accepts
  return "";
}

// The payload of a file of `file_size` bytes against its header: the shape's
// byte size fits the buffer limit and equals the payload exactly.
inline std::string npy_payload(const NpyHeader &h, uint64_t file_size,
                               const char *kind, int64_t elem_bytes) {
  std::string e = buffer_size(h.shape, kind, elem_bytes);
  if (!e.empty())
    return e;
  uint64_t needed = 0;
  storage_bytes(h.shape.data(), h.shape.size(), elem_bytes, needed);
  const uint64_t payload = file_size - h.data_offset;
  if (payload != needed)
    return "holds " + std::to_string(payload) + " data bytes but shape " +
           list_str(h.shape) + " of " + kind + " needs " +
           std::to_string(needed);
  return "";
}

// ---------------------------------------------------------------------------
// Kernel faults (exit kFault), in the words of pto-run's diagnostics
// ---------------------------------------------------------------------------

// pto.read of `name` at `index` (rank = number of indices) against `dims`.
inline std::string scalar_read(const char *name, const int64_t *index,
                               const int64_t *dims, size_t rank) {
  for (size_t d = 0; d < rank; ++d)
    if (index[d] < 0 || index[d] >= dims[d])
      return "scalar read " + std::string(name) + "[" +
             std::to_string(index[d]) + "] is out of range: dim " +
             std::to_string(d) + " of '" + name + "' has " +
             std::to_string(dims[d]) + " elements";
  return "";
}

// pto.index_put into `name` (`rows` x `cols`): source row `i` goes to row
// `offset + index` of the tensor, its `valid_cols` valid columns at `col` on.
inline std::string index_put_row(const char *name, int64_t i, int64_t index,
                                 int64_t offset, int64_t rows, int64_t col,
                                 int64_t valid_cols, int64_t cols) {
  if (offset + index < 0 || offset + index >= rows)
    return "index_put row index " + std::to_string(index) + " (indices[" +
           std::to_string(i) + "]" +
           (offset ? " + offset " + std::to_string(offset) : std::string()) +
           ") is out of range: '" + name + "' has " + std::to_string(rows) +
           " rows; indices must lie in [0, " + std::to_string(rows - offset) +
           ")";
  if (col < 0 || col + valid_cols > cols)
    return "index_put writes columns [" + std::to_string(col) + ", " +
           std::to_string(col + valid_cols) + ") of '" + name +
           "', which has " + std::to_string(cols) + " columns";
  return "";
}

// pto.index_put: the index tile covers the source's valid rows.
inline std::string index_put_indices(int64_t valid_indices,
                                     int64_t valid_rows) {
  if (valid_indices >= valid_rows)
    return "";
  return "index_put has " + std::to_string(valid_indices) +
         " valid indices for " + std::to_string(valid_rows) +
         " valid source rows; give one index per row";
}

// arith.divsi/remsi/ceildivsi/floordivsi: divisor 0, INT64_MIN / -1.
inline std::string integer_division(int64_t a, int64_t b) {
  if (b == 0)
    return "integer division by zero";
  if (b == -1 && a == INT64_MIN)
    return "integer division overflow: " + std::to_string(a) + " / -1";
  return "";
}

// pto.loop `name` with step `step`.
inline std::string loop_step(const char *name, int64_t step) {
  if (step > 0)
    return "";
  return "loop \"" + std::string(name) + "\" has step " + std::to_string(step) +
         "; steps must be positive";
}

// pto.reshape of `name` (shape `from`) to `to`.
inline std::string reshape(const char *name, const std::vector<int64_t> &from,
                           const std::vector<int64_t> &to) {
  int64_t count = 1, available = 1;
  for (size_t d = 0; d < to.size(); ++d) {
    if (to[d] < 0)
      return "reshape of '" + std::string(name) + "' to " + list_str(to) +
             ": size " + std::to_string(d) + " is negative";
    if (__builtin_mul_overflow(count, to[d], &count))
      return "reshape of '" + std::string(name) + "' to " + list_str(to) +
             ": the size overflows 64 bits";
  }
  for (int64_t f : from)
    if (__builtin_mul_overflow(available, f, &available))
      available = -1;
  if (count != available)
    return "reshape of '" + std::string(name) + "' " + list_str(from) + " to " +
           list_str(to) + " needs " + std::to_string(count) +
           " elements but the tensor has " + std::to_string(available) +
           " (is a dynamic size taken from another tensor?)";
  return "";
}

// pto.view of `what` (e.g. "tensor") `name` with extents `parent` at
// `offsets` with the explicit valid extents `valid` (nullptr: none given).
inline std::string view(const char *what, const char *name,
                        const int64_t *parent, const int64_t *offsets,
                        const int64_t *valid, size_t rank) {
  for (size_t d = 0; d < rank; ++d) {
    if (offsets[d] < 0)
      return "view offset " + std::to_string(offsets[d]) + " of dim " +
             std::to_string(d) + " is negative";
    if (!valid)
      continue;
    const int64_t given = valid[d];
    if (given < 0)
      return "valid extent " + std::to_string(given) + " of dim " +
             std::to_string(d) + " is negative";
    // parent - offset cannot overflow: both are >= 0.
    if (given > 0 && given > parent[d] - offsets[d]) {
      int64_t stop;
      std::string range = "[" + std::to_string(offsets[d]) + ", " +
                          (__builtin_add_overflow(offsets[d], given, &stop)
                               ? std::string("overflow")
                               : std::to_string(stop)) +
                          ")";
      return "view reads " + range + " of dim " + std::to_string(d) + " but " +
             what + " '" + name + "' has only " + std::to_string(parent[d]) +
             " there (offsets " + list_str(offsets, rank) + ", valid shape " +
             list_str(valid, rank) + ")";
    }
  }
  return "";
}

// pto.view of a tile, whose extents are its source's run-time valid region
// (`source_valid`); the tile has no name of its own. pto-run checks it at
// the view, the tile graph and emitted programs at pto.check_tile_view.
inline std::string tile_view(const int64_t *source_valid,
                             const int64_t *offsets, const int64_t *valid,
                             size_t rank) {
  return view("the valid region of tile", "source", source_valid, offsets,
              valid, rank);
}
inline std::string tile_view(std::initializer_list<int64_t> source_valid,
                             std::initializer_list<int64_t> offsets,
                             std::initializer_list<int64_t> valid) {
  return tile_view(source_valid.begin(), offsets.begin(),
                   valid.size() ? valid.begin() : nullptr, offsets.size());
}

// ---------------------------------------------------------------------------
// Options
// ---------------------------------------------------------------------------

// A decimal integer in [lo, hi] for option `flag`.
inline std::string integer_option(const char *flag, const std::string &text,
                                  int64_t lo, int64_t hi, int64_t &out) {
  bool ok = !text.empty() && text.size() <= 19;
  int64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') {
      ok = false;
      break;
    }
    v = v * 10 + (c - '0');
  }
  if (!ok || v < lo || v > hi)
    return std::string(flag) + " expects an integer in " + std::to_string(lo) +
           ".." + std::to_string(hi) + ", got '" + text + "'";
  out = v;
  return "";
}

// ---------------------------------------------------------------------------
// Output folders
// ---------------------------------------------------------------------------

// Makes `dir` (and its missing parents) a folder output files can be
// written to, before a run spends its time: a probe file is created and
// removed there. The message says which path fails and why.
inline std::string output_folder(const std::string &dir) {
  namespace fs = std::filesystem;
  if (dir.empty())
    return "";
  std::error_code ec;
  fs::path path(dir);
  // The first existing ancestor that is not a folder is the usual mistake
  // (a file named like the folder).
  for (fs::path p = path; !p.empty(); p = p.parent_path()) {
    fs::file_status status = fs::status(p, ec);
    if (fs::exists(status)) {
      if (!fs::is_directory(status))
        return "'" + p.string() +
               "' exists and is not a folder, so output folder '" + dir +
               "' cannot be created there";
      break;
    }
    if (p == p.parent_path())
      break;
  }
  if (!fs::create_directories(path, ec) && ec)
    return "cannot create output folder '" + dir + "': " + ec.message();
  fs::path probe = path / ".pto-write-probe";
  FILE *f = std::fopen(probe.c_str(), "wb");
  if (!f)
    return "output folder '" + dir +
           "' is not writable: " + std::strerror(errno);
  std::fclose(f);
  std::remove(probe.c_str());
  return "";
}

// The folder an output file `file` is written to, prepared as above; a
// path naming an existing folder is refused.
inline std::string output_file(const std::string &file) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(fs::path(file), ec))
    return "output file '" + file + "' is an existing folder";
  fs::path parent = fs::path(file).parent_path();
  return parent.empty() ? output_folder(".") : output_folder(parent.string());
}

} // namespace pto_check
