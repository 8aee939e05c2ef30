// Writes NUL and bytes that are not UTF-8 to stderr, then throws with NUL and a lone
// surrogate in its message.
{
  name: "unstorable",
  draftPick(cards) {
    require("fs").writeSync(2, Buffer.from([98, 0, 0xff, 0xfe, 0xed, 0xa0, 0x80, 97, 10]));
    return 0;
  },
  draftReceive(card) {},
  mainPlay(cards, base) { throw new Error("bad \u0000 value \ud800 here"); },
  mainPostprocess(card) {},
},
