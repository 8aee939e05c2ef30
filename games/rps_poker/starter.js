// A starter bot for RPS Poker (Card Arena), in the original challenge's JavaScript format:
// the file holds one object (or `module.exports = {...}`) with the four methods below.
// The global `fullDeck` lists all thirty cards, like ["R0", "R1", ..., "S9"].
//
// Run it against a built-in bot on your machine, from a clone of Card Arena (needs Node.js):
//
//     .venv/bin/python manage.py arena --game rps-poker rps_poker_starter.js builtin:simple --rounds 20
//
// The file runs anew for every match: a new object (globals may last from one deal to the
// next, never into a deal seen before). Each call has 1 second (plus a 10-second bank per match); console.log goes to your
// bot's log, never into the game.
({
  name: 'starter-js',
  seen: [],

  // Two cards are offered: return 0 or 1, the one to keep.
  draftPick(cards) {
    return Number(cards[0][1]) >= Number(cards[1][1]) ? 0 : 1;
  },

  // The card the opponent passed to us.
  draftReceive(card) {
    this.seen.push(card);
  },

  // Return the index in `hand` of the card to play against the `base` card:
  // a pair with the base if we have one, otherwise our highest card.
  mainPlay(hand, base) {
    const pair = hand.findIndex((card) => card[1] === base[1]);
    if (pair >= 0) return pair;
    let best = 0;
    hand.forEach((card, i) => {
      if (Number(card[1]) > Number(hand[best][1])) best = i;
    });
    return best;
  },

  // The card the opponent just played.
  mainPostprocess(card) {
    this.seen.push(card);
  },
})
