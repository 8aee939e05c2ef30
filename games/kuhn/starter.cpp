// A starter bot for Kuhn poker (Card Arena), in C++17: one file, the standard library and
// nlohmann-json (`json`), compiled by the platform with g++ -O2.
//
// Three cards J < Q < K; each player antes 1 chip and gets one card. The first to act checks
// ("p") or bets 1 ("b"); facing a bet you fold ("p") or call ("b"). Run it on your machine,
// from a clone of Card Arena, against the built-in CFR bot:
//
//     .venv/bin/python manage.py arena --game kuhn kuhn_starter.cpp builtin:cfr --rounds 20
//
// A new Bot is made for each match (100 hands). `act` has 1 second a call (plus a 10-second
// bank per match); anything you print (std::cout too) goes to your bot's log.
#include <random>
#include <string>

class Bot {
 public:
  static constexpr const char* name = "starter";

  std::string act(const json& obs) {
    std::string card = obs["card"], history = obs["history"];  // e.g. "Q" and "pb"
    if (!history.empty() && history.back() == 'b') {  // facing a bet: call with the king,
      return card == "K" || (card == "Q" && chance(0.3)) ? "b" : "p";  // sometimes the queen
    }
    if (card == "K") return "b";
    if (card == "J") return chance(0.2) ? "b" : "p";  // bluff now and then
    return "p";
  }

 private:
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  std::mt19937 rng_{std::random_device{}()};
};
