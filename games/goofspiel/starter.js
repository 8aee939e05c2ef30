// A starter bot for Goofspiel (Card Arena), in the JavaScript format of the original RPS
// Poker challenge: the file holds one object (or `module.exports = {...}`) with the method below.
//
// Each player holds cards 1..13; the prizes 1..13 are shuffled and turned up one at a time.
// Both players bid one of their cards at once; the higher bid takes the prize's points, equal
// bids discard it, and bid cards are gone. Most prize points wins the deal. Run it against
// the built-in bot on your machine, from a clone of Card Arena (needs Node.js):
//
//     .venv/bin/python manage.py arena --game goofspiel goofspiel_starter.js builtin:matching --rounds 20
//
// The file runs anew for every match (3 deals): a new object (globals may last from one deal
// to the next, never into a deal seen before). Each call has 1 second (plus a 10-second bank
// per match); console.log goes to your bot's log, never into the game.
({
  name: 'starter-js',

  // Your turn. `obs` holds the keys the game's page lists, spelled as there
  // (obs.opponent_hand, not opponentHand): obs.prize is like 9, obs.hand your cards, like
  // [1, 4, 9, 12]. Return the card of obs.hand to bid.
  act(obs) {
    const { prize, hand } = obs;
    // a big prize: the smallest card that beats every card they still hold, if we have one
    if (prize >= 10) {
      const theirs = Math.max(...obs.opponent_hand);
      const winners = hand.filter((card) => card > theirs);
      if (winners.length > 0) return Math.min(...winners);
    }
    // a small prize: not worth a good card, so give up our smallest
    if (prize <= 3) return Math.min(...hand);
    // otherwise bid the card closest to the prize's value
    return hand.reduce((best, card) =>
      Math.abs(card - prize) < Math.abs(best - prize) ? card : best,
    );
  },
})
