// Passes a number from one process to the next, each in a sandbox of its own, through the
// counter that numbers every process and thread the machine makes (a pidfd's inode number,
// in pidfs), which a bot moves by one with each thread it starts.
//
// __MODE__ "mark" (the first seating): starts threads until the number of the last one is
// __KEY__ modulo 97. "read" (the second): reads the number of its own process, made after
// the first one ended. Both say on stderr, as one JSON line, what they read (the number
// modulo 97, or the error of pidfd_open) and how many threads they started; then play.
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

namespace {
const std::string MODE = "__MODE__";
const long long KEY = __KEY__;
const long long MODULUS = 97;
const unsigned PIDFD_THREAD = 0200;  // O_EXCL: a thread's own pidfd
bool done = false;

// the pidfs number of a thread or process, or minus the error of pidfd_open
long long number(pid_t tid, unsigned flags) {
  int fd = static_cast<int>(syscall(SYS_pidfd_open, tid, flags));
  if (fd < 0) return -errno;
  struct stat st {};
  fstat(fd, &st);
  close(fd);
  return static_cast<long long>(st.st_ino);
}

long long new_threads_number() {
  long long seen = 0;
  std::thread([&] { seen = number(static_cast<pid_t>(syscall(SYS_gettid)), PIDFD_THREAD); }).join();
  return seen;
}
}  // namespace

class Bot {
 public:
  static constexpr const char* name = "pidfs";

  int draft_pick(const std::vector<std::string>&) {
    if (!done) {
      done = true;
      long long seen = MODE == "read" ? number(getpid(), 0) : new_threads_number();
      int threads = MODE == "read" ? 0 : 1;
      while (MODE == "mark" && seen > 0 && seen % MODULUS != KEY && threads < 4 * MODULUS) {
        seen = new_threads_number();
        ++threads;
      }
      json said = {{"mode", MODE}, {"threads", threads}};
      if (seen > 0) said["count"] = seen % MODULUS;
      else said["error"] = std::strerror(static_cast<int>(-seen));
      std::cerr << said.dump() << std::endl;
    }
    return 0;
  }
  void draft_receive(const std::string&) {}
  int main_play(const std::vector<std::string>&, const std::string&) { return 0; }
  void main_postprocess(const std::string&) {}
};
