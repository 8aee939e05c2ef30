// Answers mainPlay with an array nested 3000 deep.
{
  name: "nested",
  draftPick(cards) { return 0; },
  draftReceive(card) {},
  mainPlay(cards, base) {
    let value = 0;
    for (let i = 0; i < 3000; i++) value = [value];
    return value;
  },
  mainPostprocess(card) {},
},
