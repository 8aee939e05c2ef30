// Run with the sandbox tests' escaped host (all of Node in reach: a bot that got out of its
// realm): says on stderr, as one JSON line, how opening each of the machine's counters in
// /proc ended (its error's code, or "read"), then plays properly. A JavaScript host keeps
// /proc, so the counters are covered there.
{
  draftPick(cards) {
    if (!this.said) {
      this.said = true;
      const fs = require("fs");
      const files = {};
      for (const path of "__PATHS__".split(",")) {
        try {
          fs.readFileSync(path);
          files[path] = "read";
        } catch (error) {
          files[path] = error.code;
        }
      }
      console.log(JSON.stringify({ mode: "node", files }));
    }
    return 0;
  },
  draftReceive(card) {},
  mainPlay(cards, base) { return 0; },
  mainPostprocess(card) {},
}
