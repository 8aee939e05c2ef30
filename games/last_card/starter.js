// A starter bot for Last Card (Card Arena), in the JavaScript format of the original RPS
// Poker challenge: the file holds one object (or `module.exports = {...}`) with the method below.
//
// Cards are two characters, rank then suit: "As", "Td" (ten of diamonds), "7h". Run it at a
// table of four on your machine, from a clone of Card Arena (needs Node.js):
//
//     .venv/bin/python manage.py arena --game last-card last_card_starter.js --fill builtin:naive --games 100
//
// It plays one card at a time, by the simple rules of `playableAlone`: the move checker
// movecheck.py is for Python bots (the arena judges every move by it, and the game's page
// gives its rules in full: several cards of one value, for instance, are yours to add).
// The file runs anew for every game: a new object (globals may last from one game to the
// next, never into a deal seen before). Each call has 1 second (plus a 10-second bank per
// game); console.log goes to your bot's log, never into the game.
({
  name: 'starter-js',
  // what a card left in hand costs at the end; the others cost 1
  points: { A: 5, 2: 2, 5: 2 },

  // Whether `card` may be played on its own now (the rules, simplified).
  playableAlone(card, state) {
    const top = state.last_played;
    if (state.punishment > 0) return card[0] === top[0]; // only a 2 on a 2, a 5 on a 5
    if (card[0] === 'A') return state.hand.length > 1; // on anything, but you cannot end on an ace
    if (top[0] === 'A') return card[1] === (state.active_suit || top[1]);
    return card[0] === top[0] || card[1] === top[1];
  },

  // The suit we hold most of, aces left out: the one to name after an ace.
  bestSuit(cards) {
    const count = {};
    for (const card of cards) {
      if (card[0] !== 'A') count[card[1]] = (count[card[1]] || 0) + 1;
    }
    let best = 's';
    let most = 0;
    for (const [suit, n] of Object.entries(count)) {
      if (n > most) {
        best = suit;
        most = n;
      }
    }
    return best;
  },

  // Your turn. `state` holds the keys the game's page lists, spelled as there
  // (state.last_played, not lastPlayed). Return the move:
  // { cards: [...], suit: 'h' or null, last_card: true or false } (no cards: a pass).
  play(state) {
    const playable = state.hand.filter((card) => this.playableAlone(card, state));
    if (playable.length === 0) return { cards: [], suit: null, last_card: false }; // draw
    // shed the most penalty points; an ace is worth keeping for later
    const shed = (card) => (card[0] === 'A' ? 0 : this.points[card[0]] || 1);
    const card = playable.reduce((best, c) => (shed(c) > shed(best) ? c : best));
    const left = state.hand.filter((c) => c !== card);
    // call last card when what is left can go out in one move: a single value, no ace
    const lastCard =
      left.length > 0 && left[0][0] !== 'A' && left.every((c) => c[0] === left[0][0]);
    const suit = card[0] === 'A' ? this.bestSuit(left) : null;
    return { cards: [card], suit, last_card: lastCard };
  },
})
