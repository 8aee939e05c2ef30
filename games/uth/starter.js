// A starter bot for Ultimate Texas Hold'em (Card Arena), in the JavaScript format of the
// original RPS Poker challenge: the file holds one object (or `module.exports = {...}`) with
// the method below.
//
// Cards are two characters, rank then suit: "As", "Td", "7h" (ranks 23456789TJQKA, suits
// cdhs). Run it on your machine, from a clone of Card Arena (needs Node.js), next to the
// built-in basic bot:
//
//     .venv/bin/python manage.py arena --game uth uth_starter.js builtin:basic --sessions 5
//
// The file runs anew for every session: a new object (globals may last from one session to
// the next, never into a deal seen before). Each call has 1 second (plus a 10-second bank per
// session); console.log goes to your bot's log, never into the game.
({
  name: 'starter-js',
  ranks: '23456789TJQKA',

  // Your turn. `obs` holds the keys the game's page lists, spelled as there (obs.last_round,
  // not lastRound): obs.phase is "pre_flop", "flop" or "river", obs.hole your two cards,
  // obs.board the community cards, obs.legal like ["[4x]", "[check]"]. Return one of them.
  act(obs) {
    const { phase, hole, board, legal } = obs;
    if (legal.length === 1 && legal[0] === '[skip]') return '[skip]'; // we already bet this round
    const high = Math.max(...hole.map((card) => this.ranks.indexOf(card[0])));
    const pocketPair = hole[0][0] === hole[1][0];
    const paired = pocketPair || hole.some((card) => board.some((shown) => shown[0] === card[0]));
    if (phase === 'pre_flop') {
      // bet big with a pocket pair or an ace; otherwise wait for the flop
      return pocketPair || high === this.ranks.indexOf('A') ? '[4x]' : '[check]';
    }
    if (phase === 'flop') return paired ? '[2x]' : '[check]';
    // river: bet with a pair using one of our cards, or a king or better; fold otherwise
    return paired || high >= this.ranks.indexOf('K') ? '[1x]' : '[fold]';
  },
})
