// Subprocess runner: fork + execvp with pipes, poll() until both pipes close or the timeout
// passes, then SIGKILL the child's process group.
#include "core/subprocess.h"

#include "core/error.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace dmlkit {

ProcessResult run_process(const std::vector<std::string>& argv,
                          const std::vector<std::pair<std::string, std::string>>& env, double timeout_s) {
  ProcessResult r;
  if (argv.empty()) return r;
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) return r;
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    close(out_pipe[0]);
    close(out_pipe[1]);
    return r;
  }
  // Everything the child needs is prepared before fork (no allocation after it).
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e) {
    const std::string entry(*e);
    bool replaced = false;
    for (const auto& kv : env)
      if (entry.compare(0, kv.first.size() + 1, kv.first + "=") == 0) replaced = true;
    if (!replaced) env_strings.push_back(entry);
  }
  for (const auto& [k, v] : env) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);

  const pid_t pid = fork();
  if (pid < 0) {
    for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) close(fd);
    return r;
  }
  if (pid == 0) {
    setpgid(0, 0);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, 0);
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    execvpe(args[0], args.data(), envp.data());
    const char msg[] = "exec failed\n";
    (void)!write(2, msg, sizeof msg - 1);
    _exit(127);
  }
  setpgid(pid, pid);
  close(out_pipe[1]);
  close(err_pipe[1]);
  r.started = true;

  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  int open_fds = 2;
  char buf[65536];
  while (open_fds > 0) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      r.timed_out = true;
      break;
    }
    const int n = poll(fds, 2, static_cast<int>(left.count()));
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t got = read(fds[i].fd, buf, sizeof buf);
      if (got > 0) {
        (i == 0 ? r.out : r.err).append(buf, static_cast<size_t>(got));
      } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  if (r.timed_out) kill(-pid, SIGKILL);
  for (auto& f : fds)
    if (f.fd >= 0) close(f.fd);
  int status = 0;
  // After the pipes closed the child is exiting; bound this wait as well.
  for (;;) {
    const pid_t w = waitpid(pid, &status, r.timed_out ? 0 : WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) return r;
    if (w == 0) {
      if (std::chrono::steady_clock::now() > deadline) {
        r.timed_out = true;
        kill(-pid, SIGKILL);
        continue;
      }
      usleep(2000);
    }
  }
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (r.exit_code == 127 && r.err == "exec failed\n") r.started = false;
  return r;
}

std::string run_in_child(const std::function<std::string()>& work) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
  std::fflush(nullptr);  // nothing buffered is written twice
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    throw std::runtime_error("fork failed");
  }
  if (pid == 0) {
    close(fds[0]);
    const std::string payload = work();
    size_t off = 0;
    while (off < payload.size()) {
      const ssize_t n = write(fds[1], payload.data() + off, payload.size() - off);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      off += static_cast<size_t>(n);
    }
    close(fds[1]);
    _exit(0);
  }
  close(fds[1]);
  std::string data;
  char buf[65536];
  while (true) {
    const ssize_t n = read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    data.append(buf, static_cast<size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || data.empty())
    throw std::runtime_error("the child process failed (status " + std::to_string(status) + ")");
  return data;
}

}  // namespace dmlkit

namespace dmlkit {

std::string run_in_child_rethrowing(const std::function<std::string()>& work) {
  // One tag character: 'o' the result follows, 'e' a bad-input message, 'v' an environment
  // failure's (core/error.h), 'i' an internal one.
  const std::string data = run_in_child([&]() -> std::string {
    try {
      return "o" + work();
    } catch (const Error& e) {
      return std::string(e.kind() == Error::Kind::Environment ? "v" : "e") + e.what();
    } catch (const std::exception& e) {
      return std::string("i") + e.what();
    }
  });
  if (data.empty()) throw std::runtime_error("child process returned nothing");
  if (data[0] == 'e') throw Error(data.substr(1));
  if (data[0] == 'v') throw Error(data.substr(1), Error::Kind::Environment);
  if (data[0] == 'i') throw std::runtime_error(data.substr(1));
  return data.substr(1);
}

}  // namespace dmlkit
