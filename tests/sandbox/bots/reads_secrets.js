// Tries to read files outside its folder (paths filled in by the test), reports each attempt on
// stderr (the content too, if it ever got any), then plays properly.
{
  name: "reads_secrets",
  draftPick(cards) {
    if (!this.tried) {
      this.tried = true;
      const fs = require("fs");
      const paths = [...JSON.parse(String.raw`__PATHS__`), `${__dirname}/../secret.txt`];
      for (const path of paths) {
        try {
          console.error(`READ ${path}: ${fs.readFileSync(path, "latin1")}`);
        } catch (error) {
          console.error(`cannot read ${path}: ${error.code}`);
        }
      }
    }
    return 0;
  },
  draftReceive(card) {},
  mainPlay(cards, base) { return 0; },
  mainPostprocess(card) {},
},
