// Tries to write files outside /tmp (the host path filled in by the test) and a file larger than
// the limits inside /tmp; reports each attempt on stderr, then plays properly.
{
  name: "writes",
  draftPick(cards) {
    if (!this.tried) {
      this.tried = true;
      const fs = require("fs");
      const report = (what, action) => {
        try {
          action();
          console.error(`WROTE ${what}`);
        } catch (error) {
          console.error(`cannot write ${what}: ${error.code}`);
        }
      };
      const targets = ["__HOST_PATH__", "/escape.txt", "/bot/escape.txt", "/usr/escape.txt",
        "/sandbox/escape.txt", "/dev/shm/escape.txt", "/proc/escape.txt", "/tmp/../escape2.txt"];
      for (const path of targets) report(path, () => fs.writeFileSync(path, "hostile\n"));
      report("/tmp/ok.txt", () => fs.writeFileSync("/tmp/ok.txt", "fine\n"));
      report("64 MiB into /tmp", () => {
        const fd = fs.openSync("/tmp/big", "w");
        const chunk = Buffer.alloc(1 << 20, 120);
        for (let i = 0; i < 64; i++) fs.writeSync(fd, chunk);
        fs.closeSync(fd);
      });
    }
    return 0;
  },
  draftReceive(card) {},
  mainPlay(cards, base) { return 0; },
  mainPostprocess(card) {},
},
