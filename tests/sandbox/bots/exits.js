// Exits in the middle of the match.
{
  name: "exits",
  draftPick(cards) { return 0; },
  draftReceive(card) { process.exit(3); },
  mainPlay(cards, base) { return 0; },
  mainPostprocess(card) {},
},
