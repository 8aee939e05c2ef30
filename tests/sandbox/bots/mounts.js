// Reports on stderr, as one JSON line, every mount of its sandbox (where and of which file
// system type, from /proc/self/mountinfo: it reaches for Node's fs, as if it had escaped its
// realm) and which of the machine's large folders outside its runtime it can see, then
// plays properly.
{
  name: "mounts",
  draftPick(cards) {
    if (!this.told) {
      this.told = true;
      const fs = require("fs");
      const mounts = fs.readFileSync("/proc/self/mountinfo", "utf8").trim().split("\n")
        .map((line) => { const f = line.split(" "); return [f[4], f[f.indexOf("-") + 1]]; });
      const outside = {};
      for (const path of ["/usr/lib/google-cloud-sdk", "/usr/lib/gcc",
        "/usr/lib/x86_64-linux-gnu/dri", "/usr/lib/python3.11", "/usr/share"]) {
        outside[path] = fs.existsSync(path);
      }
      console.error(JSON.stringify({ mounts, outside }));
    }
    return 0;
  },
  draftReceive(card) {},
  mainPlay(cards, base) { return 0; },
  mainPostprocess(card) {},
},
