// Sleeps far past the deadline in mainPlay.
{
  name: "sleep",
  draftPick(cards) { return 0; },
  draftReceive(card) {},
  mainPlay(cards, base) {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60000);
    return 0;
  },
  mainPostprocess(card) {},
},
