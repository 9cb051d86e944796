// Harmony's eight job types (see harmony_job.h). Everything here is [A] unless noted:
// - The type list: the paper's examples are CTC, AlexNet, VGG-16 and ResNeXt [S, second-pass.md
//   3.2]; the other four are the MXNet models of the same group's DL2/Optimus zoo (resnet-50,
//   inception-bn, seq2seq, dssm). cnn-text-classification and wlm of DL2 are not Harmony types.
// - Speed basis: alexnet uses resnet-50's measurements (an ImageNet CNN with a mid-size model;
//   AlexNet itself was not measured), ctc uses wlm's (an LSTM with a small model, as the MXNet
//   CTC example); the rest use their own.
// - Demands (testbed of 4-GPU servers with 32 cores and 128 GB): every worker holds one GPU; ctc
//   workers need more cores (its CPU-heavy preprocessing); PSs need cores and memory for the
//   model; no bandwidth is reserved (network contention is the interference model's NIC axis).
#include "cluster/model/harmony_job.h"

namespace dmlkit::cluster {

const std::vector<HarmonyJobType>& harmony_job_types() {
  static const std::vector<HarmonyJobType> types = {
      {"alexnet", "resnet-50", {4, 1, 12, 0}, {4, 0, 12, 0}, 0.20, "disk-I/O heavy (paper's observation): fast input pipeline"},
      {"vgg-16", "vgg-16", {4, 1, 16, 0}, {4, 0, 16, 0}, 0.08, "network heavy (paper's observation): 553 MB of parameters"},
      {"resnet-50", "resnet-50", {4, 1, 12, 0}, {3, 0, 10, 0}, 0.25, "balanced image CNN"},
      {"resnext-110", "resnext-110", {3, 1, 10, 0}, {3, 0, 10, 0}, 0.35, "memory-bandwidth leaning, small model"},
      {"inception-bn", "inception-bn", {4, 1, 12, 0}, {3, 0, 10, 0}, 0.40, "balanced image CNN"},
      {"ctc", "wlm", {6, 1, 10, 0}, {2, 0, 8, 0}, 0.12, "CPU heavy (paper's observation): image preprocessing"},
      {"seq2seq", "seq2seq", {3, 1, 12, 0}, {3, 0, 10, 0}, 0.12, "PCIe and memory leaning RNN"},
      {"dssm", "dssm", {4, 1, 8, 0}, {3, 0, 8, 0}, 0.25, "memory-bandwidth heavy embedding model"},
  };
  return types;
}

int find_harmony_job_type(const std::string& name) {
  const auto& t = harmony_job_types();
  for (size_t i = 0; i < t.size(); ++i)
    if (t[i].name == name) return static_cast<int>(i);
  return -1;
}

std::string harmony_job_type_names() {
  std::string out;
  for (const auto& t : harmony_job_types()) out += (out.empty() ? "" : ", ") + t.name;
  return out;
}

}  // namespace dmlkit::cluster
