// A bot written as a CommonJS module, with helpers outside the object.
const strength = (card) => Number(card[1]);

module.exports = {
  name: "Module JS",
  draftPick: (cards) => (strength(cards[0]) >= strength(cards[1]) ? 0 : 1),
  draftReceive() {},
  mainPlay: (cards, base) => cards.length - 1,
  mainPostprocess() {},
};
