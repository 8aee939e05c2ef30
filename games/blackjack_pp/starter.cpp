// A starter bot for Blackjack++ (Card Arena), in C++17: one file, the standard library and
// nlohmann-json (`json`), compiled by the platform with g++ -O2.
//
// You, the other player and the dealer each have an up card and a down card; you see the up
// cards and your own down card. Players act in turn: "hit" (draw a card, face up) or "stand";
// you are done when you stand, bust (over 21) or have hit max_hits times. The dealer then
// draws to 17. The three hands are ranked (a bust hand below any other) for 2, 1 and 0
// points; your payoff is your points minus the other player's. Run it on your machine, from
// a clone of Card Arena, against a built-in bot:
//
//     .venv/bin/python manage.py arena --game blackjack-pp blackjack_pp_starter.cpp builtin:simple --rounds 10
//
// A new Bot is made for each match (50 deals). `act` has 1 second a call (plus a 10-second
// bank per match); anything you print (std::cout too) goes to your bot's log.
#include <string>

class Bot {
 public:
  static constexpr const char* name = "starter";

  std::string act(const json& obs) {
    int total = obs["total"];  // your total, an ace counted 11 where that does not bust
    if (total <= 11) return "hit";  // no card can bust you
    int other = 1 - obs["position"].get<int>();
    int shown = value(obs["up"][other]);
    for (const auto& card : obs["hits"][other]) shown += value(card);
    if (total >= 17) return "stand";
    return shown + 6 > total ? "hit" : "stand";
  }

 private:
  // A card's value: "As" is 1 (an ace may count 11), "Td", "Jh", "Qc", "Ks" are 10.
  static int value(const json& card) {
    char rank = card.get<std::string>()[0];
    if (rank == 'A') return 1;
    if (rank == 'T' || rank == 'J' || rank == 'Q' || rank == 'K') return 10;
    return rank - '0';
  }
};
