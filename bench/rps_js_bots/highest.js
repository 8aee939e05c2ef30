// Keeps the higher number and plays its highest card, a pair with the base first.
{
  name: "Highest",
  num(card) { return +card[1]; },
  draftPick(cards) { return this.num(cards[0]) >= this.num(cards[1]) ? 0 : 1; },
  draftReceive(card) {},
  mainPlay(cards, base) {
    const pair = cards.findIndex(c => c[1] === base[1]);
    if (pair >= 0) return pair;
    let best = 0;
    for (let i = 1; i < cards.length; i++) if (this.num(cards[i]) > this.num(cards[best])) best = i;
    return best;
  },
  mainPostprocess(card) {},
},
