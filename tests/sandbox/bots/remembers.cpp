// Tries the ways a C++ bot has to remember the deals it was shown from one match to the next:
// static variables, a file in /tmp, a thread left running, a child process (refused). At
// the first call of each match it says on stderr, as one JSON line, how many matches its
// process has played, what it remembers of earlier matches and whether it knows this match's
// deal (the first cards it is shown, seen before); then it plays (the first card, always).
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

namespace {
std::vector<std::vector<std::string>> deals;  // the first cards of each earlier match
int matches = 0;
const char* LEFT = "/tmp/remembered.txt";

int lines_in(const char* path) {
  std::ifstream in(path);
  int count = 0;
  for (std::string line; std::getline(in, line);) ++count;
  return count;
}
}  // namespace

class Bot {
 public:
  static constexpr const char* name = "remembers";

  Bot() { ++matches; }

  int draft_pick(const std::vector<std::string>& cards) {
    if (first_) {
      first_ = false;
      bool again = false;
      for (const auto& deal : deals) again = again || deal == cards;
      pid_t child = fork();
      if (child == 0) _exit(0);
      std::string forked = child > 0 ? "ok" : std::string("refused (") + std::strerror(errno) + ")";
      json said = {{"matches", matches}, {"module", deals.size()}, {"files", lines_in(LEFT)},
                   {"again", again}, {"fork", forked}};
      std::cerr << said.dump() << std::endl;
      deals.push_back(cards);
      std::ofstream(LEFT, std::ios::app) << cards[0] << "\n";
      std::thread([] { for (;;) std::this_thread::sleep_for(std::chrono::seconds(1)); }).detach();
    }
    return 0;
  }
  void draft_receive(const std::string&) {}
  int main_play(const std::vector<std::string>&, const std::string&) { return 0; }
  void main_postprocess(const std::string&) {}

 private:
  bool first_ = true;
};
