// A starter bot for Goofspiel (Card Arena), in C++17: one file, the standard library and
// nlohmann-json (`json`), compiled by the platform with g++ -O2.
//
// Each player holds cards 1..13; the prizes 1..13 are shuffled and turned up one at a time.
// Both players bid one of their cards at once; the higher bid takes the prize's points, equal
// bids discard it, and bid cards are gone. Most prize points wins the deal. Run it on your
// machine, from a clone of Card Arena, against the built-in bot:
//
//     .venv/bin/python manage.py arena --game goofspiel goofspiel_starter.cpp builtin:matching --rounds 20
//
// A new Bot is made for each match (3 deals). `act` has 1 second a call (plus a 10-second
// bank per match); anything you print (std::cout too) goes to your bot's log.
#include <algorithm>
#include <cstdlib>
#include <vector>

class Bot {
 public:
  static constexpr const char* name = "starter";

  int act(const json& obs) {
    int prize = obs["prize"];
    auto hand = obs["hand"].get<std::vector<int>>();  // e.g. [1, 4, 9, 12]
    auto theirs = obs["opponent_hand"].get<std::vector<int>>();
    if (prize >= 10) {  // a big prize: the smallest card that beats all of theirs
      int best = *std::max_element(theirs.begin(), theirs.end());
      std::vector<int> winners;
      for (int card : hand) {
        if (card > best) winners.push_back(card);
      }
      if (!winners.empty()) return *std::min_element(winners.begin(), winners.end());
    }
    // a small prize: not worth a good card, so give up our smallest
    if (prize <= 3) return *std::min_element(hand.begin(), hand.end());
    return *std::min_element(hand.begin(), hand.end(), [&](int a, int b) {
      return std::abs(a - prize) < std::abs(b - prize);
    });
  }
};
