// Answers with an index that is not in the hand.
{
  name: "invalid",
  draftPick(cards) { return 0; },
  draftReceive(card) {},
  mainPlay(cards, base) { return 7; },
  mainPostprocess(card) {},
},
