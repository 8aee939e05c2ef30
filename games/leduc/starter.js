// A starter bot for Leduc hold'em (Card Arena), in the JavaScript format of the original RPS
// Poker challenge: the file holds one object (or `module.exports = {...}`) with the method below.
//
// Six cards, J, Q and K in two suits ("Js", "Qh"...). Each player antes 1 and gets one card;
// a betting round; a public card is turned; a second betting round. Actions: "f" folds (only
// facing a raise), "c" checks or calls, "r" raises (2 in the first round, 4 in the second, at
// most two raises a round). A pair with the public card wins, else the higher card. Run it
// against the built-in CFR bot on your machine, from a clone of Card Arena (needs Node.js):
//
//     .venv/bin/python manage.py arena --game leduc leduc_starter.js builtin:cfr --rounds 20
//
// The file runs anew for every match (100 hands): a new object (globals may last from one
// deal to the next, never into a deal seen before). Each call has 1 second (plus a 10-second
// bank per match); console.log goes to your bot's log, never into the game.
({
  name: 'starter-js',
  strength: { J: 0, Q: 1, K: 2 },

  // Your turn. `obs` holds the keys the game's page lists, spelled as there (obs.last_hand,
  // not lastHand): obs.card is like "Qh", obs.board the public card (null until it is
  // turned), obs.legal like ["f", "c", "r"]. Return one of obs.legal.
  act(obs) {
    const { legal, board } = obs;
    const rank = obs.card[0];
    const paired = board !== null && board[0] === rank;
    if (paired || (board === null && rank === 'K')) {
      return legal.includes('r') ? 'r' : 'c';
    }
    const { strength } = this;
    const weak = strength[rank] === 0 || (board !== null && strength[board[0]] > strength[rank]);
    if (weak && legal.includes('f')) return 'f';
    return 'c';
  },
})
