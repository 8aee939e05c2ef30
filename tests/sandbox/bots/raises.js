// Throws in one method, chosen by the test.
{
  name: "raises",
  where: "__METHOD__",
  maybeThrow(method) {
    if (method === this.where) throw new RangeError(`hostile bot throwing in ${method}`);
  },
  draftPick(cards) { this.maybeThrow("draftPick"); return 0; },
  draftReceive(card) { this.maybeThrow("draftReceive"); },
  mainPlay(cards, base) { this.maybeThrow("mainPlay"); return 0; },
  mainPostprocess(card) { this.maybeThrow("mainPostprocess"); },
},
