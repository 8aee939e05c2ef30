// Writes garbage where the protocol expects JSON.
{
  name: "garbage",
  draftPick(cards) {
    require("fs").writeSync(1, "garbage, not JSON at all\n");
    return 0;
  },
  draftReceive(card) {},
  mainPlay(cards, base) { return 0; },
  mainPostprocess(card) {},
},
