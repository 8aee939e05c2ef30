// A starter bot for Last Card (Card Arena), in C++17: one file, the standard library and
// nlohmann-json (`json`), compiled by the platform with g++ -O2.
//
// Cards are two characters, rank then suit: "As", "Td" (ten of diamonds), "7h". Run it at a
// table of four on your machine, from a clone of Card Arena:
//
//     .venv/bin/python manage.py arena --game last-card last_card_starter.cpp --fill builtin:naive --games 100
//
// It plays one card at a time, by the simple rules of `playable_alone` (the arena judges
// every move by games/last_card/movecheck.py, whose rules docs/games/last-card.md gives in
// full: several cards of one value, for instance, are yours to add). A new Bot is made for
// every game. `play` has 1 second a call (plus a 10-second bank per game); anything you print
// (std::cout too) goes to your bot's log.
#include <map>
#include <string>
#include <vector>

namespace {

// What a card left in hand costs at the end: an ace 5, a two or a five 2, the others 1.
int points(const std::string& card) {
  return card[0] == 'A' ? 5 : (card[0] == '2' || card[0] == '5') ? 2 : 1;
}

// Whether `card` may be played on its own now (the rules, simplified).
bool playable_alone(const std::string& card, const json& state) {
  std::string top = state["last_played"];
  auto hand = state["hand"].get<std::vector<std::string>>();
  if (state["punishment"].get<int>() > 0) return card[0] == top[0];  // a 2 on a 2, a 5 on a 5
  if (card[0] == 'A') return hand.size() > 1;  // on anything, but you cannot end on an ace
  if (top[0] == 'A') {
    char suit = state["active_suit"].is_null() ? top[1] : state["active_suit"].get<std::string>()[0];
    return card[1] == suit;
  }
  return card[0] == top[0] || card[1] == top[1];
}

// The suit we hold most of, aces left out: the one to name after an ace.
std::string best_suit(const std::vector<std::string>& cards) {
  std::map<char, int> count;
  for (const auto& card : cards) {
    if (card[0] != 'A') ++count[card[1]];
  }
  char best = 's';
  int most = 0;
  for (const auto& [suit, n] : count) {
    if (n > most) best = suit, most = n;
  }
  return std::string(1, best);
}

}  // namespace

class Bot {
 public:
  static constexpr const char* name = "starter";

  json play(const json& state) {
    auto hand = state["hand"].get<std::vector<std::string>>();
    // the playable card that sheds the most points, an ace last (it is worth keeping)
    int chosen = -1;
    for (size_t i = 0; i < hand.size(); ++i) {
      if (!playable_alone(hand[i], state)) continue;
      auto better = [&](int a, int b) {
        bool ace_a = hand[a][0] == 'A', ace_b = hand[b][0] == 'A';
        if (ace_a != ace_b) return ace_b;
        return points(hand[a]) > points(hand[b]);
      };
      if (chosen < 0 || better(static_cast<int>(i), chosen)) chosen = static_cast<int>(i);
    }
    if (chosen < 0) return {{"cards", json::array()}, {"suit", nullptr}, {"last_card", false}};
    std::string card = hand[chosen];
    std::vector<std::string> left;
    for (const auto& other : hand) {
      if (other != card) left.push_back(other);
    }
    json move = {{"cards", {card}}, {"suit", nullptr}, {"last_card", left.size() == 1}};
    if (card[0] == 'A') move["suit"] = best_suit(left);
    return move;
  }
};
