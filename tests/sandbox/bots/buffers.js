// Allocates memory outside V8's heap (Buffers) without end.
{
  name: "buffers",
  hoard: [],
  draftPick(cards) {
    for (;;) this.hoard.push(Buffer.alloc(16 << 20, 1));
  },
  draftReceive(card) {},
  mainPlay(cards, base) { return 0; },
  mainPostprocess(card) {},
},
