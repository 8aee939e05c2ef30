// A starter bot for Blackjack++ (Card Arena), in the JavaScript format of the original RPS
// Poker challenge: the file holds one object (or `module.exports = {...}`) with the method below.
//
// You, the other player and the dealer each have an up card and a down card; you see the up
// cards and your own down card. Players act in turn: "hit" (draw a card, face up) or "stand";
// you are done when you stand, bust (over 21) or have hit max_hits times. The dealer then
// draws to 17. The three hands are ranked (a bust hand below any other) for 2, 1 and 0
// points; your payoff is your points minus the other player's. Run it against a built-in bot
// on your machine, from a clone of Card Arena (needs Node.js):
//
//     .venv/bin/python manage.py arena --game blackjack-pp blackjack_pp_starter.js builtin:simple --rounds 10
//
// The file runs anew for every match (50 deals): a new object (globals may last from one deal
// to the next, never into a deal seen before). Each call has 1 second (plus a 10-second bank
// per match); console.log goes to your bot's log, never into the game.
({
  name: 'starter-js',

  // A card's value: "As" is 1 (an ace may count 11), "Td", "Jh", "Qc", "Ks" are 10.
  value(card) {
    if (card[0] === 'A') return 1;
    return 'TJQK'.includes(card[0]) ? 10 : Number(card[0]);
  },

  // Your turn. `obs` holds the keys the game's page lists, spelled as there (obs.max_hits,
  // not maxHits): obs.total is your total (an ace counted 11 where that does not bust),
  // obs.up the up cards of player 0, player 1 and the dealer. Return "hit" or "stand".
  act(obs) {
    const total = obs.total;
    if (total <= 11) return 'hit'; // no card can bust you
    // the other player's visible cards: its up card and what it drew
    const other = 1 - obs.position;
    let shown = this.value(obs.up[other]);
    for (const card of obs.hits[other]) shown += this.value(card);
    // stand on 17 or more; on 12-16 hit if the other player shows a strong hand
    if (total >= 17) return 'stand';
    return shown + 6 > total ? 'hit' : 'stand';
  },
})
