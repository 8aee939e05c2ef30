// Passes a number from one process to the next, each in a sandbox of its own, through the
// counter that numbers the inodes of a process's own files in /proc (and the machine's pipes
// and sockets: the kernel's get_next_ino, a batch of 1,024 at a time for each CPU): each
// entry of /proc/self/fd looked up anew takes the next number.
//
// __MODE__ "mark" (the first seating): on each CPU it may use in turn, looks entries up
// anew until the last one's number is __KEY__ modulo 97. "read" (the second): looks one up.
// Both say on stderr, as one JSON line, what they read (the number modulo 97, or why they
// could not) and how many entries they looked up; then play.
#include <fcntl.h>
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

namespace {
const std::string MODE = "__MODE__";
const long long KEY = __KEY__;
const long long MODULUS = 97;
bool done = false;

// a new entry of /proc/self/fd's inode number, or minus the error
long long number() {
  int fd = open("/dev/null", O_RDONLY);
  std::string path = "/proc/self/fd/" + std::to_string(fd);
  struct stat st {};
  long long seen = lstat(path.c_str(), &st) == 0 ? static_cast<long long>(st.st_ino) : -errno;
  close(fd);
  lstat(path.c_str(), &st);  // gone: the next lookup makes a new one
  return seen;
}
}  // namespace

class Bot {
 public:
  static constexpr const char* name = "procfs";

  int draft_pick(const std::vector<std::string>&) {
    if (!done) {
      done = true;
      long long seen = number();
      long long looked = 1;
      if (MODE == "mark" && seen > 0) {
        cpu_set_t allowed;
        sched_getaffinity(0, sizeof allowed, &allowed);
        for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
          if (!CPU_ISSET(cpu, &allowed)) continue;
          cpu_set_t one;
          CPU_ZERO(&one);
          CPU_SET(cpu, &one);
          sched_setaffinity(0, sizeof one, &one);
          for (int i = 0; i < 4 * MODULUS && (seen = number()) % MODULUS != KEY; ++i) ++looked;
        }
        sched_setaffinity(0, sizeof allowed, &allowed);
      }
      json said = {{"mode", MODE}, {"looked", looked}};
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
