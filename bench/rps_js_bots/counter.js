// Counts cards: remembers what it has seen of the full deck, keeps the card whose number
// is rarest among the unseen cards (a likelier pair later) and plays the card that beats
// most of the cards the opponent may still hold.
{
  name: "Counter",
  picks: 0,
  seen: new Set(),
  theirs: new Set(),
  reset() { this.seen = new Set(); this.theirs = new Set(); },
  rank(card, base) { return (card[1] === base[1] ? 100 : 0) + 10 * +card[1] + "SPR".indexOf(card[0]); },
  beats(mine, other, base) { return this.rank(mine, base) > this.rank(other, base); },
  draftPick(cards) {
    if (this.picks % 5 === 0) this.reset();
    this.picks += 1;
    cards.forEach(c => this.seen.add(c));
    const left = n => fullDeck.filter(c => !this.seen.has(c) && c[1] === n).length;
    return left(cards[0][1]) + +cards[0][1] / 10 >= left(cards[1][1]) + +cards[1][1] / 10 ? 0 : 1;
  },
  draftReceive(card) { this.seen.add(card); },
  mainPlay(cards, base) {
    this.seen.add(base);
    cards.forEach(c => this.seen.add(c));
    const unknown = fullDeck.filter(c => !this.seen.has(c) || this.theirs.has(c));
    let best = 0, bestWins = -1;
    cards.forEach((c, i) => {
      const wins = unknown.filter(o => this.beats(c, o, base)).length;
      if (wins > bestWins) { best = i; bestWins = wins; }
    });
    return best;
  },
  mainPostprocess(card) { this.seen.add(card); this.theirs.delete(card); },
},
