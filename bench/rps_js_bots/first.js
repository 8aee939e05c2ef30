// Keeps the first card offered and plays the first card of its hand.
{
  name: "FirstCard",
  draftPick(cards) { return 0; },
  draftReceive(card) {},
  mainPlay(cards, base) { return 0; },
  mainPostprocess(card) {},
},
