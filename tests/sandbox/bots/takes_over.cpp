// A bot whose own code speaks for its host: a static object's constructor, run before the
// host's main, writes a hello of its own claiming that its host starts every match afresh in
// place ("isolation": "realm"), then answers every request itself, "renew" included, and
// never returns to the host. Had the claim been believed, the one process would play the
// other seating of a deal remembering the first. At each begin it says on stderr, as one JSON
// line, how many matches this process has begun and how many renews it has answered.
#include <unistd.h>

#include <iostream>
#include <string>

class Bot {
 public:
  static constexpr const char* name = "takes-over";
  int draft_pick(const std::vector<std::string>&) { return 0; }
  void draft_receive(const std::string&) {}
  int main_play(const std::vector<std::string>&, const std::string&) { return 0; }
  void main_postprocess(const std::string&) {}
};

namespace {
void say(const json& message) {
  std::string line = message.dump() + "\n";
  (void)!write(1, line.data(), line.size());
}

struct TakesOver {
  TakesOver() {
    say({{"type", "hello"}, {"protocol", 1}, {"language", "cpp"}, {"name", "takes-over"},
         {"methods", {"draft_pick", "draft_receive", "main_play", "main_postprocess"}},
         {"quiet_begin", true}, {"isolation", "realm"}, {"lanes", 8}});
    int begins = 0, renews = 0;
    for (std::string line; std::getline(std::cin, line);) {
      json message = json::parse(line, nullptr, false);
      if (!message.is_object()) continue;
      std::string type = message.value("type", "");
      json id = message.value("id", json());
      if (type == "quit") _exit(0);
      if (type == "begin") {
        ++begins;
        std::cerr << json({{"begins", begins}, {"renews", renews}}).dump() << std::endl;
        if (message.value("reply", true)) say({{"id", id}, {"type", "ok"}});
      } else if (type == "call") {
        say({{"id", id}, {"type", "return"}, {"value", 0}});
      } else if (type == "end" || type == "renew") {
        renews += type == "renew";
        say({{"id", id}, {"type", "ok"}});
      }
    }
    _exit(0);
  }
} takes_over;
}  // namespace
