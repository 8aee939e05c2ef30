// Writes a truncated JSON reply on the protocol channel.
{
  name: "badjson",
  draftPick(cards) {
    require("fs").writeSync(1, '{"type": "return", "value": \n');
    return 0;
  },
  draftReceive(card) {},
  mainPlay(cards, base) { return 0; },
  mainPostprocess(card) {},
},
