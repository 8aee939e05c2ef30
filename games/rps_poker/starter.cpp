// A starter bot for RPS Poker (Card Arena), in C++17: one file, the standard library and
// nlohmann-json (`json`), compiled by the platform with g++ -O2.
//
// Cards are two-character strings, symbol then number: "R3" is rock 3, "S9" scissors 9.
// Run it against a built-in bot on your machine, from a clone of Card Arena:
//
//     .venv/bin/python manage.py arena --game rps-poker rps_poker_starter.cpp builtin:simple --rounds 20
//
// A new Bot is made for every match. Each call has 1 second (plus a 10-second bank per
// match), and anything you print (std::cout too) goes to your bot's log, never into the game.
#include <algorithm>
#include <string>
#include <vector>

namespace {

// Whether card `mine` beats `theirs` with `base` turned up.
bool wins(const std::string& mine, const std::string& theirs, const std::string& base) {
  bool my_pair = mine[1] == base[1], their_pair = theirs[1] == base[1];
  if (my_pair != their_pair) return my_pair;
  if (mine[1] != theirs[1]) return mine[1] > theirs[1];
  // rock beats scissors, scissors paper, paper rock
  return (mine[0] == 'R' && theirs[0] == 'S') || (mine[0] == 'S' && theirs[0] == 'P') ||
         (mine[0] == 'P' && theirs[0] == 'R');
}

}  // namespace

class Bot {
 public:
  static constexpr const char* name = "starter";

  // Two cards are offered: return 0 or 1, the one to keep (the other goes across).
  int draft_pick(const std::vector<std::string>& cards) {
    bool first = cards[0][1] >= cards[1][1];
    theirs_.push_back(first ? cards[1] : cards[0]);
    return first ? 0 : 1;
  }

  // The card the opponent passed to us. Nothing to answer.
  void draft_receive(const std::string& card) { (void)card; }

  // Return the index in `hand` of the card to play against the `base` card.
  int main_play(const std::vector<std::string>& hand, const std::string& base) {
    for (size_t i = 0; i < hand.size(); ++i) {
      if (hand[i][1] == base[1]) return static_cast<int>(i);
    }
    // Beat as many of the opponent's known cards as we can; else throw our lowest card.
    int best = 0, best_wins = -1;
    for (size_t i = 0; i < hand.size(); ++i) {
      int count = 0;
      for (const auto& card : theirs_) count += wins(hand[i], card, base);
      if (count > best_wins) best = static_cast<int>(i), best_wins = count;
    }
    if (best_wins > 0) return best;
    auto lowest = std::min_element(hand.begin(), hand.end(),
                                   [](const auto& a, const auto& b) { return a[1] < b[1]; });
    return static_cast<int>(lowest - hand.begin());
  }

  // The card the opponent just played: it is no longer in their hand.
  void main_postprocess(const std::string& card) {
    auto found = std::find(theirs_.begin(), theirs_.end(), card);
    if (found != theirs_.end()) theirs_.erase(found);
  }

 private:
  std::vector<std::string> theirs_;  // cards we know the opponent holds (we passed them)
};
