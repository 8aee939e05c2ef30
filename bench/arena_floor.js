// The in-process floor for bench/bench_arena_floor.py: one Node process loads the RPS Poker
// bot files it is given (the original challenge's format: an object literal, or
// module.exports = {...}) and plays the round robin among them directly, with no protocol,
// no child process and no sandbox: what the tournament costs when the bots' own code is all
// there is to run. Prints one JSON line of totals.
//
//     node bench/arena_floor.js --rounds 100 --seed 1 BOT.js BOT.js ...
'use strict';

const fs = require('fs');

const SYMBOLS = ['R', 'P', 'S'];
globalThis.fullDeck = SYMBOLS.flatMap((s) => [...'0123456789'].map((n) => s + n));

function loadBot(file) {
  const code = fs.readFileSync(file, 'utf8');
  try {
    return new Function(`return [\n${code}\n][0];`)();
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
  }
  const module = { exports: {} };
  new Function('module', 'exports', code)(module, module.exports);
  return module.exports;
}

// A small seeded generator (mulberry32), so that a run is repeatable.
function generator(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffled(cards, random) {
  const out = cards.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

// Does card a (played against base) beat card b?
function wins(a, b, base) {
  const pa = a[1] === base[1], pb = b[1] === base[1];
  if (pa !== pb) return pa;
  if (a[1] !== b[1]) return a[1] > b[1];
  return (a[0] === 'R' && b[0] === 'S') || (a[0] === 'S' && b[0] === 'P') || (a[0] === 'P' && b[0] === 'R');
}

class Fault extends Error {}

function ask(bot, method, args, size) {
  let answer;
  try {
    answer = bot[method](...args);
  } catch (error) {
    throw new Fault(`${method} threw ${error}`);
  }
  if (size !== undefined && !(Number.isInteger(answer) && answer >= 0 && answer < size)) {
    throw new Fault(`${method} answered ${answer}`);
  }
  return answer;
}

// One match: returns the points of each seat and the seat that faulted, if any.
function match(bots, random) {
  const points = [0, 0];
  const decks = [[], []];
  let played = 0;
  const seatOf = (bot) => bots.indexOf(bot);
  try {
    const deck = shuffled(fullDeck, random);
    for (let step = 0; step < 5; step++) {
      const offers = [deck.slice(4 * step, 4 * step + 2), deck.slice(4 * step + 2, 4 * step + 4)];
      const kept = [0, 1].map((s) => {
        try { return ask(bots[s], 'draftPick', [offers[s].slice()], 2); } catch (e) { e.seat = s; throw e; }
      });
      for (const s of [0, 1]) {
        decks[s].push(offers[s][kept[s]]);
        decks[1 - s].push(offers[s][1 - kept[s]]);
      }
      for (const s of [0, 1]) {
        try { ask(bots[s], 'draftReceive', [offers[1 - s][1 - kept[1 - s]]]); } catch (e) { e.seat = s; throw e; }
      }
    }
    const remaining = shuffled(deck.slice(20), random);
    const hands = [0, 1].map((s) => {
      decks[s] = shuffled(decks[s], random);
      return decks[s].splice(0, 3);
    });
    for (let game = 0; game < 10; game++) {
      const base = remaining[game];
      const idx = [0, 1].map((s) => {
        try { return ask(bots[s], 'mainPlay', [hands[s].slice(), base], hands[s].length); } catch (e) { e.seat = s; throw e; }
      });
      const cards = [0, 1].map((s) => hands[s].splice(idx[s], 1)[0]);
      points[wins(cards[0], cards[1], base) ? 0 : 1] += 1;
      played += 1;
      for (const s of [0, 1]) {
        try { ask(bots[s], 'mainPostprocess', [cards[1 - s]]); } catch (e) { e.seat = s; throw e; }
        if (decks[s].length) hands[s].push(decks[s].shift());
      }
    }
    return { points, fault: null };
  } catch (error) {
    if (!(error instanceof Fault)) throw error;
    points[1 - error.seat] += 10 - played;
    return { points, fault: seatOf(bots[error.seat]) };
  }
}

function main(argv) {
  let rounds = 100, seed = 1;
  const files = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--rounds') rounds = +argv[++i];
    else if (argv[i] === '--seed') seed = +argv[++i];
    else files.push(argv[i]);
  }
  const bots = files.map(loadBot);
  const scores = bots.map(() => 0);
  const faults = bots.map(() => 0);
  const random = generator(seed);
  let matches = 0;
  const started = process.hrtime.bigint();
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < bots.length; i++) {
      for (let j = i + 1; j < bots.length; j++) {
        const seats = r % 2 === 0 ? [i, j] : [j, i];
        const { points, fault } = match(seats.map((k) => bots[k]), random);
        seats.forEach((k, s) => { scores[k] += points[s]; });
        if (fault !== null) faults[seats[fault]] += 1;
        matches += 1;
      }
    }
  }
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  const table = bots.map((bot, k) => ({ name: bot.name, score: scores[k], faults: faults[k] }));
  console.log(JSON.stringify({ matches, elapsed_s: elapsed, bots: table }));
}

main(process.argv.slice(2));
