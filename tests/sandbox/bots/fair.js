// Plays properly in the original challenge's style (an object literal with a trailing comma, the
// global fullDeck, state in its own properties that it re-initialises when a match starts) and
// reports what it sees of its surroundings on stderr as one JSON line per match.
{
  name: "Fair JS",
  draftPick(cards) {
    if (!this.inMatch) {
      this.inMatch = true;
      this.matches = (this.matches || 0) + 1;
      this.mine = [];
      const fs = require("fs");
      const status = fs.readFileSync("/proc/self/status", "utf8");
      console.log(JSON.stringify({
        match: this.matches,
        deck: fullDeck.length,
        uid: process.getuid(),
        pid: process.pid,
        env: process.env,
        seccomp: /Seccomp:\s*(\d)/.exec(status)[1],
      }));
    }
    const pick = +cards[0][1] >= +cards[1][1] ? 0 : 1;
    this.mine.push(cards[pick]);
    return pick;
  },
  draftReceive(card) { this.mine.push(card); },
  mainPlay(cards, base) {
    let best = 0;
    cards.forEach((card, i) => { if (+card[1] > +cards[best][1]) best = i; });
    return best;
  },
  mainPostprocess(card) { this.inMatch = false; },
},
