// Plays the card that beats the most cards drawn at random from those it has not seen (a
// Monte Carlo estimate, DRAWS draws a card in hand): a bot that thinks for a while on every
// move, using the language's built-ins (Math) and the game's global (fullDeck) in its loop.
{
  name: "MonteCarlo",
  draws: 3000,
  seen: [],
  picks: 0,
  num(card) { return +card[1]; },
  beats(a, b) {
    if (a[0] === b[0]) return this.num(a) > this.num(b);
    return (a[0] === "R" && b[0] === "S") || (a[0] === "S" && b[0] === "P") || (a[0] === "P" && b[0] === "R");
  },
  estimate(card, pool) {
    if (pool.length === 0) return 0;
    let wins = 0;
    for (let k = 0; k < this.draws; k++) {
      const other = pool[Math.floor(Math.random() * pool.length)];
      if (this.beats(card, other)) wins++;
    }
    return wins;
  },
  unseen(hand) { return fullDeck.filter(c => !this.seen.includes(c) && !hand.includes(c)); },
  draftPick(cards) {
    if (this.picks++ % 5 === 0) this.seen = []; // a new match (the warm code kept one object)
    const pool = this.unseen(cards);
    return this.estimate(cards[0], pool) >= this.estimate(cards[1], pool) ? 0 : 1;
  },
  draftReceive(card) { this.seen.push(card); },
  mainPlay(cards, base) {
    const pair = cards.findIndex(c => c[1] === base[1]);
    if (pair >= 0) return pair;
    const pool = this.unseen(cards);
    let best = 0, most = -1;
    for (let i = 0; i < cards.length; i++) {
      const wins = this.estimate(cards[i], pool);
      if (wins > most) { best = i; most = wins; }
    }
    return best;
  },
  mainPostprocess(card) { this.seen.push(card); },
},
