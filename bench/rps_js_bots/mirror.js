// Remembers the numbers the opponent played this match and plays just above their average,
// keeping a pair with the base for when it counts.
module.exports = {
  name: "Mirror",
  picks: 0,
  played: [],
  draftPick(cards) {
    if (this.picks % 5 === 0) this.played = [];
    this.picks += 1;
    const a = +cards[0][1], b = +cards[1][1];
    return Math.abs(a - 5) >= Math.abs(b - 5) ? 0 : 1;
  },
  draftReceive(card) {},
  mainPlay(cards, base) {
    const target = this.played.length
      ? this.played.reduce((s, n) => s + n, 0) / this.played.length + 1
      : 5;
    let best = 0;
    cards.forEach((c, i) => {
      if (c[1] === base[1] && this.played.length >= 5) { best = i; return; }
      if (Math.abs(+c[1] - target) < Math.abs(+cards[best][1] - target)) best = i;
    });
    return best;
  },
  mainPostprocess(card) { this.played.push(+card[1]); },
};
