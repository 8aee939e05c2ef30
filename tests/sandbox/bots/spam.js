// Prints without end.
{
  name: "spam",
  draftPick(cards) {
    const line = "spam ".repeat(200);
    for (;;) console.log(line);
  },
  draftReceive(card) {},
  mainPlay(cards, base) { return 0; },
  mainPostprocess(card) {},
},
