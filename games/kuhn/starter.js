// A starter bot for Kuhn poker (Card Arena), in the JavaScript format of the original RPS
// Poker challenge: the file holds one object (or `module.exports = {...}`) with the method below.
//
// Three cards J < Q < K; each player antes 1 chip and gets one card. The first to act checks
// ("p") or bets 1 ("b"); facing a bet you fold ("p") or call ("b"). Run it against the
// built-in CFR bot on your machine, from a clone of Card Arena (needs Node.js):
//
//     .venv/bin/python manage.py arena --game kuhn kuhn_starter.js builtin:cfr --rounds 20
//
// The file runs anew for every match (100 hands): a new object (globals may last from one
// deal to the next, never into a deal seen before). Each call has 1 second (plus a 10-second
// bank per match); console.log goes to your bot's log, never into the game.
({
  name: 'starter-js',

  // Your turn. `obs` holds the keys the game's page lists, spelled as there (obs.last_hand,
  // not lastHand): obs.card is "J", "Q" or "K", obs.history this hand's betting so far,
  // like "pb". Return "p" or "b".
  act(obs) {
    const { card, history } = obs;
    if (history.endsWith('b')) {
      // facing a bet: call with the king, sometimes the queen
      return card === 'K' || (card === 'Q' && Math.random() < 0.3) ? 'b' : 'p';
    }
    if (card === 'K') return 'b';
    if (card === 'J') return Math.random() < 0.2 ? 'b' : 'p'; // bluff now and then
    return 'p';
  },
})
