// The seam through which ps/ (parameter-server load distribution) drives the PS transfers of the
// iteration simulator (iteration_sim.h) without comm/ knowing any assignment policy:
//   - where each transfer's bytes go (pieces: server, bytes), asked at dispatch, so a key map that
//     changes between iterations is honoured by every transfer started after the change;
//   - a hook at the start of every iteration (in the compute actor, before the forward pass),
//     through which the caller applies stragglers (CPU slowdown of a server, background SimGrid
//     flows through a server's NIC) and the migrations of a re-assignment (server-to-server
//     SimGrid transfers), and may block the iteration until they are done;
//   - the timing of every piece (push start, all pushes in, aggregated, pulls out) as observations.
// With a PsControl the PS transfer of a piece is: every worker pushes the piece's bytes to its
// server; each push, once received, is summed on the server's CPU (an execution of `bytes` flops on
// a host of server_Bps flops/s, shared with the server's other work); when all W pushes are summed
// the W pulls start. Pieces of one transfer proceed independently. Without a PsControl the
// simulator is unchanged (MXNet rule, no server CPU).
#pragma once
#include <vector>

#include "comm/scheduler.h"

namespace dmlkit::comm {

struct PsPiece {
  int server = 0;
  double bytes = 0;
};

struct PieceTiming {
  int iteration = 0;  // the backward pass that produced the gradient
  int server = 0;
  double bytes = 0;
  double start_s = 0;       // pushes started
  double aggregated_s = 0;  // every push received and summed
  double end_s = 0;         // every pull done
};

// What the simulator offers the controller during the run (valid inside on_iteration_start).
class PsRuntime {
 public:
  virtual ~PsRuntime() = default;
  virtual double now_s() const = 0;
  // The server's CPU runs `factor` times slower (1 = healthy); factor must be one of the
  // controller's cpu_slowdowns().
  virtual void set_cpu_slowdown(int server, double factor) = 0;
  // Keeps `flows` background flows into and `flows` out of the server's NIC (0 stops them): real
  // SimGrid flows from/to a background host, sharing the NIC with the training traffic.
  virtual void set_background_flows(int server, int flows) = 0;
  // Starts a server-to-server transfer of `bytes` (moved parameter state).
  virtual void migrate(int from, int to, double bytes) = 0;
  // Blocks the calling iteration until every started migration has finished.
  virtual void wait_migrations() = 0;
};

class PsControl {
 public:
  virtual ~PsControl() = default;
  // Server hosts to build (>= the configured servers: spares a policy may scale out to).
  virtual int server_hosts() const = 0;
  // Aggregation throughput of a healthy server CPU, bytes/s (0 = the CPU is not simulated).
  virtual double server_Bps() const = 0;
  // Every CPU slowdown factor the run may set (besides 1).
  virtual std::vector<double> cpu_slowdowns() const = 0;
  // Where the transfer's bytes go, one piece per server.
  virtual void pieces(const Transfer& transfer, std::vector<PsPiece>& out) = 0;
  // Start of iteration `iteration` (0-based; called once more after the last one with
  // iteration == iterations, and `final` set, to stop background work).
  virtual void on_iteration_start(int iteration, bool final, PsRuntime& runtime) = 0;
  virtual void on_piece_done(const PieceTiming& timing) = 0;
  virtual void on_migration_done(int from, int to, double bytes, double start_s, double end_s) = 0;
};

}  // namespace dmlkit::comm
