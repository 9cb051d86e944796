// The registry entries of the built-in policies (one function per policy, defined next to the
// policy in policies/<group>/<name>.cpp; listed in cluster/registry.cpp).
#pragma once
#include <memory>

#include "cluster/policy.h"

namespace dmlkit::cluster {

PolicyEntry fifo_entry();            // policies/gpu/fifo.cpp (PS variant: policies/ps/ps_fifo_srtf.cpp)
PolicyEntry srtf_entry();            // policies/gpu/srtf.cpp (PS variant: policies/ps/ps_fifo_srtf.cpp)
PolicyEntry drf_entry();             // policies/gpu/drf.cpp (PS variant: policies/ps/ps_drf.cpp)
PolicyEntry tetris_entry();          // policies/gpu/tetris.cpp (PS variant: policies/ps/ps_tetris.cpp)
PolicyEntry tiresias_entry();        // policies/gpu/tiresias.cpp
PolicyEntry optimus_oracle_entry();  // policies/gpu/optimus_oracle.cpp
PolicyEntry optimus_entry();         // policies/optimus/optimus.cpp
// The DL2 simulator's heuristics on parameter-server jobs (policies/ps/dl2_baselines.cpp).
PolicyEntry drf_dl2_entry();
PolicyEntry fifo_dl2_entry();
PolicyEntry srtf_dl2_entry();
PolicyEntry tetris_dl2_entry();
PolicyEntry fixed_dl2_entry();
PolicyEntry optimus_dl2_entry();
PolicyEntry dl2_entry();  // policies/dl2/dl2_policy.cpp: the learned DL2 scheduler
// Harmony's baselines (policies/placement/*.cpp): placement only, user's (PS, worker) counts.
PolicyEntry lb_entry();
PolicyEntry tetris_align_entry();
PolicyEntry lif_line_entry();
PolicyEntry bin_packing_entry();
PolicyEntry standalone_entry();
PolicyEntry harmony_entry();  // policies/harmony/harmony_policy.cpp: the learned Harmony placer
PolicyEntry harmony_seq2seq_entry();  // policies/harmony_seq2seq/seq2seq_policy.cpp: the journal design

// The PS versions of fifo, srtf, drf and tetris (policies/ps/*.cpp): paper-version baselines on
// PS jobs with the user's fixed (PS, workers). Not registered under their own names: the entries
// of fifo/srtf/drf/tetris name them as PolicyTraits::make_ps, and make_policy() dispatches.
std::unique_ptr<Policy> make_ps_fifo(const PolicyOptions& options, const Knobs& knobs);
std::unique_ptr<Policy> make_ps_srtf(const PolicyOptions& options, const Knobs& knobs);
std::unique_ptr<Policy> make_ps_drf(const PolicyOptions& options, const Knobs& knobs);
std::unique_ptr<Policy> make_ps_tetris(const PolicyOptions& options, const Knobs& knobs);

// A policy that runs `gpu` on GPU jobs and `ps` on parameter-server workloads (chosen by the first
// active job's kind; a workload is one kind or the other). Used by make_policy() only.
std::unique_ptr<Policy> with_ps_variant(std::unique_ptr<Policy> gpu, std::unique_ptr<Policy> ps);

}  // namespace dmlkit::cluster
