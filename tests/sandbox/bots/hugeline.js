// Answers with a value far too large for one protocol line.
{
  name: "hugeline",
  draftPick(cards) { return "x".repeat(200000); },
  draftReceive(card) {},
  mainPlay(cards, base) { return 0; },
  mainPostprocess(card) {},
},
