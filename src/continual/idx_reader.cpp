// IDX reader on zlib (see idx_reader.h).
#include "continual/idx_reader.h"

#include <zlib.h>

#include <algorithm>
#include <memory>

#include "core/error.h"

namespace dmlkit::continual {
namespace {

struct GzCloser {
  void operator()(gzFile_s* f) const { gzclose(f); }
};

// Reads exactly n bytes; returns how many were read.
size_t read_bytes(gzFile f, uint8_t* out, size_t n) {
  size_t done = 0;
  while (done < n) {
    const unsigned chunk = static_cast<unsigned>(std::min<size_t>(n - done, 1u << 30));
    const int got = gzread(f, out + done, chunk);
    if (got <= 0) break;
    done += static_cast<size_t>(got);
  }
  return done;
}

}  // namespace

IdxArray read_idx(const std::string& path, int expected_ndims) {
  std::unique_ptr<gzFile_s, GzCloser> f(gzopen(path.c_str(), "rb"));
  if (!f) throw Error(path, 0, "", "cannot open file");
  uint8_t magic[4];
  if (read_bytes(f.get(), magic, 4) != 4) throw Error(path, 0, "magic", "file too short for the IDX magic number");
  if (magic[0] != 0 || magic[1] != 0)
    throw Error(path, 0, "magic", "not an IDX file (magic must start with two zero bytes)");
  if (magic[2] != 0x08) throw Error(path, 0, "magic", "unsupported element type (only unsigned byte, 0x08)");
  if (magic[3] != expected_ndims)
    throw Error(path, 0, "magic",
                "expected " + std::to_string(expected_ndims) + " dimensions, file has " + std::to_string(magic[3]));
  IdxArray a;
  uint64_t total = 1;
  for (int d = 0; d < expected_ndims; ++d) {
    uint8_t b[4];
    if (read_bytes(f.get(), b, 4) != 4) throw Error(path, 0, "dims", "truncated header (dimension sizes)");
    const uint32_t v = (uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) | (uint32_t{b[2]} << 8) | b[3];
    a.dims.push_back(v);
    total *= v;
    if (total > (uint64_t{1} << 32)) throw Error(path, 0, "dims", "array too large");
  }
  a.data.resize(static_cast<size_t>(total));
  const size_t got = read_bytes(f.get(), a.data.data(), a.data.size());
  if (got != a.data.size())
    throw Error(path, 0, "data",
                "truncated: expected " + std::to_string(a.data.size()) + " data bytes, got " + std::to_string(got));
  uint8_t extra;
  if (read_bytes(f.get(), &extra, 1) != 0) throw Error(path, 0, "data", "trailing bytes after the declared array");
  int errnum = 0;
  gzerror(f.get(), &errnum);
  if (errnum != Z_OK && errnum != Z_STREAM_END) throw Error(path, 0, "data", "corrupt gzip stream");
  return a;
}

ImageSet read_idx_images(const std::string& images_path, const std::string& labels_path, int num_classes) {
  IdxArray img = read_idx(images_path, 3);
  IdxArray lab = read_idx(labels_path, 1);
  if (img.dims[0] != lab.dims[0])
    throw Error(labels_path, 0, "dims",
                "label count " + std::to_string(lab.dims[0]) + " differs from image count " +
                    std::to_string(img.dims[0]) + " in " + images_path);
  for (size_t i = 0; i < lab.data.size(); ++i)
    if (lab.data[i] >= num_classes)
      throw Error(labels_path, 0, "data",
                  "label " + std::to_string(lab.data[i]) + " of item " + std::to_string(i) + " is not below " +
                      std::to_string(num_classes));
  ImageSet s;
  s.rows = static_cast<int>(img.dims[1]);
  s.cols = static_cast<int>(img.dims[2]);
  s.pixels = std::move(img.data);
  s.labels = std::move(lab.data);
  return s;
}

ImageSet load_fashion_mnist(const std::string& dir, const std::string& split) {
  if (split != "train" && split != "t10k") throw Error("", 0, "split", "expected train or t10k, got '" + split + "'");
  return read_idx_images(dir + "/" + split + "-images-idx3-ubyte.gz", dir + "/" + split + "-labels-idx1-ubyte.gz");
}

}  // namespace dmlkit::continual
