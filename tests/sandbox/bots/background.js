// Tries to leave a process running after the match (a detached sleep, marked with a number the
// test looks for), reports each attempt, then plays properly.
{
  name: "background",
  draftPick(cards) {
    const cp = require("child_process");
    try {
      const child = cp.spawn("/bin/sleep", ["__MARKER__"], { detached: true, stdio: "ignore" });
      child.on("error", () => {});
      child.unref();
      console.error(child.pid ? `STARTED spawn ${child.pid}` : "blocked spawn: no pid");
    } catch (error) {
      console.error(`blocked spawn: ${error.message}`);
    }
    const result = cp.spawnSync("/bin/sh", ["-c", "/bin/sleep __MARKER__ &"]);
    console.error(result.error ? `blocked spawnSync: ${result.error.code}` : "STARTED spawnSync");
    return 0;
  },
  draftReceive(card) {},
  mainPlay(cards, base) { return 0; },
  mainPostprocess(card) {},
},
