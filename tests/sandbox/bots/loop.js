// Never answers: an endless loop in draftPick.
{
  name: "loop",
  draftPick(cards) { for (;;) {} },
  draftReceive(card) {},
  mainPlay(cards, base) { return 0; },
  mainPostprocess(card) {},
},
