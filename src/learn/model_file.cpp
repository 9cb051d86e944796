// Model files; see model_file.h.
#include "learn/model_file.h"

#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/output_dir.h"

namespace dmlkit::learn {

namespace {

using nlohmann::json;

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string base64_floats(const std::vector<float>& v) {
  std::string bytes(v.size() * 4, '\0');
  for (size_t i = 0; i < v.size(); ++i) {
    uint32_t u;
    std::memcpy(&u, &v[i], 4);
    for (int k = 0; k < 4; ++k) bytes[i * 4 + k] = static_cast<char>((u >> (8 * k)) & 0xff);  // little-endian
  }
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t n = static_cast<unsigned char>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) n |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    if (i + 2 < bytes.size()) n |= static_cast<unsigned char>(bytes[i + 2]);
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += i + 1 < bytes.size() ? kAlphabet[(n >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? kAlphabet[n & 63] : '=';
  }
  return out;
}

std::vector<float> floats_base64(const std::string& s, const std::string& path, const std::string& field) {
  auto bad = [&]() { return Error(path, 0, field, "corrupt base64 parameter data"); };
  if (s.size() % 4 != 0) throw bad();
  std::string bytes;
  bytes.reserve(s.size() / 4 * 3);
  for (size_t i = 0; i < s.size(); i += 4) {
    uint32_t n = 0;
    int pad = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = s[i + k];
      uint32_t d;
      if (c == '=') {
        if (i + 4 != s.size() || k < 2) throw bad();
        ++pad;
        d = 0;
      } else {
        if (pad > 0) throw bad();
        const char* p = std::strchr(kAlphabet, c);
        if (p == nullptr || c == '\0') throw bad();
        d = static_cast<uint32_t>(p - kAlphabet);
      }
      n = (n << 6) | d;
    }
    bytes += static_cast<char>((n >> 16) & 0xff);
    if (pad < 2) bytes += static_cast<char>((n >> 8) & 0xff);
    if (pad < 1) bytes += static_cast<char>(n & 0xff);
  }
  if (bytes.size() % 4 != 0) throw bad();
  std::vector<float> v(bytes.size() / 4);
  for (size_t i = 0; i < v.size(); ++i) {
    uint32_t u = 0;
    for (int k = 0; k < 4; ++k) u |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[i * 4 + k])) << (8 * k);
    std::memcpy(&v[i], &u, 4);
    if (!std::isfinite(v[i])) throw Error(path, 0, field, "non-finite parameter");
  }
  return v;
}

}  // namespace

StoredNet column_stored_net(const ColumnNetShape& shape, std::vector<float> parameters) {
  StoredNet n;
  n.arch = "column";
  n.column = shape;
  n.shape = MlpShape{shape.inputs(), {}, shape.outputs(), false};
  n.parameters = std::move(parameters);
  return n;
}

void save_model_file(const std::string& path, const ModelFile& model) {
  json j;
  j["format"] = "dmlkit-model";
  j["version"] = 1;
  j["kind"] = model.kind;
  j["meta"] = json::object();
  for (const auto& [k, v] : model.meta) j["meta"][k] = v;
  j["nets"] = json::object();
  for (const auto& [name, net] : model.nets) {
    json n;
    n["inputs"] = net.shape.inputs;
    n["hidden"] = net.shape.hidden;
    n["outputs"] = net.shape.outputs;
    n["affine"] = net.shape.affine;
    if (net.arch == "column") {
      const ColumnNetShape& c = net.column;
      n["arch"] = "column";
      n["column"] = {{"rows", c.rows},
                     {"window", c.window},
                     {"types", c.types},
                     {"row_scale", c.row_scale},
                     {"hidden", c.column.hidden},
                     {"column_outputs", c.column.outputs},
                     {"context_hidden", c.context.hidden},
                     {"context_outputs", c.context.outputs}};
    }
    n["parameters"] = base64_floats(net.parameters);
    j["nets"][name] = n;
  }
  j["extra"] = json::object();
  for (const auto& [name, v] : model.extra) j["extra"][name] = base64_floats(v);
  write_file_atomic(path, j.dump(1) + "\n");
}

ModelFile load_model_file(const std::string& path) {
  const std::string text = read_file(path);  // Error naming the file if missing
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception&) {
    throw Error(path, 0, "", "not a dmlkit model file (invalid JSON)");
  }
  try {
    if (!j.is_object() || j.value("format", "") != "dmlkit-model")
      throw Error(path, 0, "format", "not a dmlkit model file");
    if (j.value("version", 0) != 1) throw Error(path, 0, "version", "unsupported model file version");
    ModelFile m;
    m.kind = j.at("kind").get<std::string>();
    for (const auto& [k, v] : j.at("meta").items()) m.meta[k] = v.get<std::string>();
    for (const auto& [name, n] : j.at("nets").items()) {
      StoredNet net;
      net.shape.inputs = n.at("inputs").get<int>();
      net.shape.hidden = n.at("hidden").get<std::vector<int>>();
      net.shape.outputs = n.at("outputs").get<int>();
      net.shape.affine = n.at("affine").get<bool>();
      net.arch = n.value("arch", "mlp");
      if (net.arch != "mlp" && net.arch != "column")
        throw Error(path, 0, "nets." + name + ".arch", "unknown network architecture '" + net.arch + "' (known: mlp, column)");
      try {
        if (net.arch == "column") {
          const json& c = n.at("column");
          const int k = c.at("column_outputs").get<int>();
          net.column = column_net_shape(c.at("rows").get<int>(), c.at("window").get<int>(), c.at("types").get<int>(),
                                        c.at("row_scale").get<std::vector<float>>(),
                                        c.at("hidden").get<std::vector<int>>(), k,
                                        c.at("context_hidden").get<std::vector<int>>(),
                                        c.at("context_outputs").get<int>() - k);
          if (net.shape.inputs != net.column.inputs() || net.shape.outputs != net.column.outputs())
            throw Error("inputs and outputs do not match the column network's");
        } else {
          net.shape.validate();
        }
      } catch (const Error& e) {
        throw Error(path, 0, "nets." + name, e.what());
      }
      net.parameters = floats_base64(n.at("parameters").get<std::string>(), path, "nets." + name + ".parameters");
      if (net.parameters.size() != net.parameter_count())
        throw Error(path, 0, "nets." + name + ".parameters",
                    std::to_string(net.parameters.size()) + " values for a network with " +
                        std::to_string(net.parameter_count()) + " parameters");
      m.nets[name] = std::move(net);
    }
    if (j.contains("extra"))
      for (const auto& [name, v] : j.at("extra").items())
        m.extra[name] = floats_base64(v.get<std::string>(), path, "extra." + name);
    return m;
  } catch (const json::exception& e) {
    throw Error(path, 0, "", std::string("corrupt model file: ") + e.what());
  }
}

}  // namespace dmlkit::learn
