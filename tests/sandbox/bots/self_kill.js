// Tries, in its first draft pick, to send SIGKILL to itself (it reaches Node's `process`
// only through the tests' escaped host) and says on stderr whether it was refused; then
// plays on.
{
  name: "self_kill",
  tried: false,
  draftPick(cards) {
    if (!this.tried) {
      this.tried = true;
      let said = "refused: ";
      try {
        process.kill(process.pid, "SIGKILL");
        said = "not refused";
      } catch (e) {
        said += e.code;
      }
      console.error(said);
    }
    return 0;
  },
  draftReceive(card) {},
  mainPlay(cards, base) { return 0; },
  mainPostprocess(card) {},
},
