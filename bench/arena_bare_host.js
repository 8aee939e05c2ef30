// The bare design's bot host (bench/arena_bare.py): the least a host inside the sandbox can
// do and still play the arena's matches, to measure what the design costs at best. It is
// not the project's host (bots/languages/javascript/host.js) and gives none of its
// guarantees: no realm per lane (the bots run in this context; each match gets a fresh bot
// object, made by running the file's code again), no guard of the host's own state, no log
// routing, no limits on lines.
//
// Requests, one JSON array a line: [lane, "begin"] (a fresh bot, no reply),
// [lane, method, args, told] (told: the notices before it, [[method, args], ...]; the reply
// is [lane, value]) and [lane, "end", null, told] (the reply is [lane, 0]). A failure is
// replied as [lane, null, "what failed"]. Each reply is written as soon as it is made, as the
// project's host writes them, so that the controller can time each call.
'use strict';

const fs = require('fs');

const [file, globalsJson] = process.argv.slice(2);
const globals = JSON.parse(globalsJson || '{}');
for (const key of Object.keys(globals)) globalThis[key] = globals[key];
const code = fs.readFileSync(file, 'utf8');

// A function that makes a fresh bot: the file's object literal evaluated again, or its
// module.exports made again
function factory() {
  try {
    return new Function(`return [\n${code}\n][0];`);
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
  }
  const body = new Function('module', 'exports', code);
  return () => {
    const module = { exports: {} };
    body(module, module.exports);
    return module.exports;
  };
}

const make = factory();
const camelNames = new Map();
function camel(name) {
  let converted = camelNames.get(name);
  if (converted === undefined) {
    converted = name.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase());
    camelNames.set(name, converted);
  }
  return converted;
}

function write(text) {
  const written = fs.writeSync(1, text);
  if (written === Buffer.byteLength(text)) return;
  let buffer = Buffer.from(text).subarray(written);
  while (buffer.length) buffer = buffer.subarray(fs.writeSync(1, buffer));
}

function invoke(bot, method, args) {
  return bot[camel(method)](...(args || []));
}

const first = make();
write(`${JSON.stringify({
  type: 'hello', protocol: 1, language: 'javascript', name: String(first.name || 'bot'),
  methods: ['draft_pick', 'draft_receive', 'main_play', 'main_postprocess'], lanes: 64,
})}\n`);

const bots = new Map();
const chunk = Buffer.alloc(65536);
let pending = '';
for (;;) {
  const newline = pending.indexOf('\n');
  if (newline < 0) {
    const n = fs.readSync(0, chunk, 0, chunk.length, null);
    if (n === 0) break;
    pending += chunk.toString('utf8', 0, n);
    continue;
  }
  const request = JSON.parse(pending.slice(0, newline));
  pending = pending.slice(newline + 1);
  const [lane, method, args, told] = request;
  if (method === 'begin') {
    bots.set(lane, make());
    continue;
  }
  if (method === 'quit') break;
  const bot = bots.get(lane);
  try {
    if (told) for (const [name, notice] of told) invoke(bot, name, notice);
    if (method === 'end') {
      bots.delete(lane);
      write(`[${lane},0]\n`);
    } else {
      const value = invoke(bot, method, args);
      write(`[${lane},${JSON.stringify(value === undefined ? null : value)}]\n`);
    }
  } catch (error) {
    write(`${JSON.stringify([lane, null, String(error)])}\n`);
  }
}
