// Tries every way a JavaScript bot has to remember the deals it was shown from one match to
// the next: its own properties, a global, the built-ins' prototypes, the host's realm (out of
// reach: its classic escapes are tried). At the first call of each match it says on stderr,
// as one JSON line, how many matches it has played, what it remembers of earlier matches
// and whether it knows this match's deal (the first cards it is shown, seen before); then it
// plays (the first card, always).
{
  name: "remembers",
  first: true,
  note(cards) {
    if (this.first) {
      this.first = false;
      this.matches = (this.matches || 0) + 1;
      globalThis.matchesSeen = (globalThis.matchesSeen || 0) + 1;
      let host = "unreachable";
      for (const escape of [
        () => this.constructor.constructor("return process")(),
        () => globalThis.constructor.constructor("return process")(),
        () => Object.getPrototypeOf(globalThis).constructor.constructor("return process")(),
        () => (function () { return this; })().process,
        () => require("fs"),
      ]) {
        try {
          if (escape()) host = "reached";
        } catch (_) {
          // not there
        }
      }
      const deal = JSON.stringify(cards);
      const deals = (globalThis.deals || []).concat(Object.prototype.seenDeals || []);
      console.log(JSON.stringify({
        again: deals.includes(deal),
        matches: Math.max(this.matches, globalThis.matchesSeen, Array.prototype.matchesSeen || 0),
        module: (this.seen || []).length + (globalThis.seen || []).length,
        prototypes: (Object.prototype.seenCards || []).length,
        host,
      }));
      Array.prototype.matchesSeen = (Array.prototype.matchesSeen || 0) + 1;
      globalThis.deals = deals.concat([deal]);
      Object.prototype.seenDeals = globalThis.deals;
    }
    this.seen = (this.seen || []).concat(cards);
    globalThis.seen = this.seen;
    Object.prototype.seenCards = this.seen;
  },
  draftPick(cards) { this.note(cards); return 0; },
  draftReceive(card) { this.note([card]); },
  mainPlay(cards, base) { this.note(cards.concat([base])); return 0; },
  mainPostprocess(card) { this.note([card]); },
},
