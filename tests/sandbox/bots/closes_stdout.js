// Closes its stdout, then waits without exiting.
{
  name: "closes_stdout",
  draftPick(cards) {
    require("fs").closeSync(1);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60000);
    return 0;
  },
  draftReceive(card) {},
  mainPlay(cards, base) { return 0; },
  mainPostprocess(card) {},
},
