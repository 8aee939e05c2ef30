// Saves its high cards: plays its lowest card unless it holds a pair with the base.
{
  name: "Lowball",
  draftPick(cards) { return +cards[0][1] >= +cards[1][1] ? 0 : 1; },
  draftReceive(card) {},
  mainPlay(cards, base) {
    let pick = -1;
    cards.forEach((c, i) => { if (c[1] === base[1] && (pick < 0 || c[1] > cards[pick][1])) pick = i; });
    if (pick >= 0) return pick;
    pick = 0;
    cards.forEach((c, i) => { if (+c[1] < +cards[pick][1]) pick = i; });
    return pick;
  },
  mainPostprocess(card) {},
},
