// Allocates memory without end (and keeps it).
{
  name: "memory",
  hoard: [],
  draftPick(cards) {
    for (;;) this.hoard.push(new Array(1 << 16).fill(Math.random()));
  },
  draftReceive(card) {},
  mainPlay(cards, base) { return 0; },
  mainPostprocess(card) {},
},
