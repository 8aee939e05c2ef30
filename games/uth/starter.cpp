// A starter bot for Ultimate Texas Hold'em (Card Arena), in C++17: one file, the standard
// library and nlohmann-json (`json`), compiled by the platform with g++ -O2.
//
// Cards are two characters, rank then suit: "As", "Td", "7h" (ranks 23456789TJQKA, suits
// cdhs). Run it on your machine, from a clone of Card Arena, next to the built-in basic bot:
//
//     .venv/bin/python manage.py arena --game uth uth_starter.cpp builtin:basic --sessions 5
//
// A new Bot is made for each session. `act` has 1 second a call (plus a 10-second bank per
// session) and returns action text such as "[4x]"; anything you print (std::cout too) goes
// to your bot's log.
#include <algorithm>
#include <string>
#include <vector>

class Bot {
 public:
  static constexpr const char* name = "starter";

  std::string act(const json& obs) {
    auto legal = obs["legal"].get<std::vector<std::string>>();
    if (legal == std::vector<std::string>{"[skip]"}) return "[skip]";  // we bet already
    auto hole = obs["hole"].get<std::vector<std::string>>();
    auto board = obs["board"].get<std::vector<std::string>>();
    int high = std::max(rank(hole[0]), rank(hole[1]));
    bool pocket_pair = hole[0][0] == hole[1][0];
    bool paired = pocket_pair;
    for (const auto& card : hole) {
      for (const auto& shown : board) paired = paired || card[0] == shown[0];
    }
    std::string phase = obs["phase"];
    if (phase == "pre_flop") return pocket_pair || high == rank("A") ? "[4x]" : "[check]";
    if (phase == "flop") return paired ? "[2x]" : "[check]";
    return paired || high >= rank("K") ? "[1x]" : "[fold]";
  }

 private:
  static int rank(const std::string& card) {
    return static_cast<int>(std::string("23456789TJQKA").find(card[0]));
  }
};
