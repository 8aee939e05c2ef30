// A starter bot for Leduc hold'em (Card Arena), in C++17: one file, the standard library and
// nlohmann-json (`json`), compiled by the platform with g++ -O2.
//
// Six cards, J, Q and K in two suits ("Js", "Qh"...). Each player antes 1 and gets one card;
// a betting round; a public card is turned; a second betting round. Actions: "f" folds (only
// facing a raise), "c" checks or calls, "r" raises (2 in the first round, 4 in the second, at
// most two raises a round). A pair with the public card wins, else the higher card. Run it on
// your machine, from a clone of Card Arena, against the built-in CFR bot:
//
//     .venv/bin/python manage.py arena --game leduc leduc_starter.cpp builtin:cfr --rounds 20
//
// A new Bot is made for each match (100 hands). `act` has 1 second a call (plus a 10-second
// bank per match); anything you print (std::cout too) goes to your bot's log.
#include <algorithm>
#include <string>
#include <vector>

class Bot {
 public:
  static constexpr const char* name = "starter";

  std::string act(const json& obs) {
    auto legal = obs["legal"].get<std::vector<std::string>>();  // e.g. ["f", "c", "r"]
    auto can = [&](const char* action) {
      return std::find(legal.begin(), legal.end(), action) != legal.end();
    };
    char rank = obs["card"].get<std::string>()[0];
    bool turned = !obs["board"].is_null();  // null before the public card is turned
    char board = turned ? obs["board"].get<std::string>()[0] : 0;
    bool strong = (turned && board == rank) || (!turned && rank == 'K');
    if (strong) return can("r") ? "r" : "c";
    bool weak = strength(rank) == 0 || (turned && strength(board) > strength(rank));
    if (weak && can("f")) return "f";
    return "c";
  }

 private:
  static int strength(char rank) { return rank == 'J' ? 0 : rank == 'Q' ? 1 : 2; }
};
