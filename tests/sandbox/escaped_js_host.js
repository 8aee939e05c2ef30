// A JavaScript host for the sandbox's own tests: it hands the bot all of Node (require,
// process, Buffer, fs...) and one bot object for every match, as if the bot had escaped the
// fresh realm that bots/languages/javascript/host.js gives each match. The sandbox's walls must hold
// against such a bot too: tests/sandbox/conftest.py runs the sandbox tests' JavaScript bots
// with it, except those marked real_js_host, which test the real host.
//
//     node escaped_js_host.js /path/to/bot.js ['{"fullDeck": [...]}']
//
// It speaks the protocol as the real host does (the hello says no "isolation": the
// controller then treats it as one process serving every match).
'use strict';

const fs = require('fs');
const path = require('path');
const util = require('util');
const vm = require('vm');

const PROTOCOL = 1;
const MAX_REQUEST = 1 << 20;
const OUT = 1;

function sleepMs(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function writeAll(fd, data) {
  const buffer = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  let offset = 0;
  while (offset < buffer.length) {
    try {
      offset += fs.writeSync(fd, buffer, offset, buffer.length - offset);
    } catch (error) {
      if (error.code !== 'EAGAIN') throw error;
      sleepMs(1); // the pipe is full (or was made non-blocking): wait for the reader
    }
  }
}

// Whatever the bot prints goes to stderr, written at once: Node's own streams would queue
// writes to a full pipe until the event loop runs, and this host never lets it run.
function toStderr(...args) {
  writeAll(2, `${util.format(...args)}\n`);
}
for (const method of ['log', 'info', 'debug', 'warn', 'error', 'trace']) console[method] = toStderr;
for (const stream of [process.stdout, process.stderr]) {
  stream.write = (chunk, encoding, callback) => {
    writeAll(2, typeof chunk === 'string' ? chunk : Buffer.from(chunk));
    const done = typeof encoding === 'function' ? encoding : callback;
    if (typeof done === 'function') done();
    return true;
  };
}

function send(message) {
  writeAll(OUT, JSON.stringify(message) + '\n');
}

function describe(error) {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  try {
    return `thrown value: ${String(error)}`;
  } catch (_) {
    return 'thrown value';
  }
}

function printError(error) {
  try {
    writeAll(2, `${error && error.stack ? error.stack : describe(error)}\n`);
  } catch (_) {
    // stderr is gone: nothing more to say
  }
}

function isMemoryError(error) {
  return error instanceof RangeError &&
    /allocation failed|out of memory|Invalid (typed )?array length/i.test(error.message);
}

const snake = (name) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const camelNames = new Map(); // every call names one of a few methods: converted once each
const camel = (name) => {
  let converted = camelNames.get(name);
  if (converted === undefined) {
    converted = name.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase());
    if (camelNames.size < 1000) camelNames.set(name, converted);
  }
  return converted;
};

function methodsOf(bot) {
  const names = new Set();
  for (let o = bot; o && o !== Object.prototype; o = Object.getPrototypeOf(o)) {
    for (const key of Object.getOwnPropertyNames(o)) {
      if (key !== 'constructor' && !key.startsWith('_') && typeof bot[key] === 'function') {
        names.add(snake(key));
      }
    }
  }
  return [...names].sort();
}

function load(file) {
  if (!fs.existsSync(file)) throw new Error(`no such file: ${file}`);
  const code = fs.readFileSync(file, 'utf8');
  const module = { exports: {} };
  const args = [module.exports, require, module, file, path.dirname(file)];
  const params = '(function (exports, require, module, __filename, __dirname) {';
  let fn;
  try {
    // An object literal, with or without a trailing comma (or "module.exports = {...}").
    fn = new vm.Script(`${params} return [\n${code}\n][0]; })`, {
      filename: file,
      lineOffset: -1,
    }).runInThisContext();
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    fn = null;
  }
  let bot;
  if (fn) {
    bot = fn.apply(module.exports, args);
  } else {
    // A CommonJS module that assigns module.exports.
    new vm.Script(`${params}\n${code}\n})`, { filename: file, lineOffset: -1 })
      .runInThisContext()
      .apply(module.exports, args);
    bot = module.exports;
  }
  if (bot === null || typeof bot !== 'object') {
    throw new Error('the file holds no bot object (an object literal or module.exports = {...})');
  }
  let name = typeof bot.name === 'string' && bot.name.trim() ? bot.name.trim() : '';
  if (!name) name = path.basename(file, path.extname(file));
  return { bot, name: name.slice(0, 64) };
}

function* requests() {
  const chunk = Buffer.alloc(65536);
  let pending = Buffer.alloc(0);
  for (;;) {
    let n;
    try {
      n = fs.readSync(0, chunk, 0, chunk.length, null);
    } catch (error) {
      if (error.code === 'EAGAIN') {
        sleepMs(1);
        continue;
      }
      if (error.code === 'EOF') return;
      throw error;
    }
    if (n === 0) return;
    pending = pending.length ? Buffer.concat([pending, chunk.subarray(0, n)]) : chunk.subarray(0, n);
    let newline;
    while ((newline = pending.indexOf(10)) >= 0) {
      const line = pending.subarray(0, newline).toString('utf8');
      pending = pending.subarray(newline + 1);
      if (line.trim()) yield line;
    }
    if (pending.length > MAX_REQUEST) throw new Error('request too long');
    // What is left of a line must outlive the next read into chunk: a copy of its own.
    if (pending.length && pending.buffer === chunk.buffer) pending = Buffer.from(pending);
  }
}

function callOf(bot, message) {
  const method = String(message.method);
  const fn = method.startsWith('_') ? undefined : bot[camel(method)];
  if (typeof fn !== 'function') throw new TypeError(`the bot has no method ${camel(method)}`);
  return fn.apply(bot, message.args || []);
}

function errorReply(error) {
  printError(error);
  const reply = { type: 'error', error: describe(error) };
  if (isMemoryError(error)) reply.kind = 'memory';
  return reply;
}

function serve(bot, name) {
  send({
    type: 'hello', protocol: PROTOCOL, language: 'javascript', name,
    methods: methodsOf(bot), runtime: `node ${process.version}`, quiet_begin: true,
  });
  // A notice ("tell") is answered only if it fails, by the next reply instead of that
  // request's own; the notices after it are not run.
  let failed = null;
  for (const raw of requests()) {
    const message = JSON.parse(raw);
    const { type, id } = message;
    if (type === 'quit') return 0;
    if (type === 'begin') {
      failed = null; // a new match: nothing of the last one is reported in it
      if (message.reply === false) continue; // it went with the first question
    } else if (type === 'tell') {
      if (failed === null) {
        try {
          callOf(bot, message);
        } catch (error) {
          failed = { ...errorReply(error), told: id, method: String(message.method) };
        }
      }
      continue;
    } else if (failed !== null) {
      failed.id = id;
      send(failed);
      failed = null;
      continue;
    }
    let reply;
    try {
      if (type === 'begin') {
        reply = { type: 'ok' };
      } else if (type === 'end') {
        const used = process.cpuUsage();
        reply = { type: 'ok', cpu: Math.round((used.user + used.system) / 1000) / 1000 };
      } else if (type === 'call') {
        const returned = callOf(bot, message);
        const text = JSON.stringify(returned === undefined ? null : returned);
        // Written as it is: the value is already JSON (undefined when it is no JSON data).
        const value = text === undefined ? 'null' : text;
        writeAll(OUT, `{"type":"return","value":${value},"id":${JSON.stringify(id) ?? 'null'}}\n`);
        continue;
      } else {
        throw new Error(`unknown request type ${JSON.stringify(type)}`);
      }
    } catch (error) {
      reply = errorReply(error);
    }
    reply.id = id;
    send(reply);
  }
  return 0;
}

function main(argv) {
  if (argv.length < 1 || argv.length > 2) {
    send({ type: 'fatal', error: 'usage: js_host.js BOT_FILE [GLOBALS_JSON]' });
    return 2;
  }
  let loaded;
  try {
    const globals = argv.length === 2 ? JSON.parse(argv[1]) : {};
    for (const [key, value] of Object.entries(globals)) globalThis[key] = value;
    loaded = load(argv[0]);
  } catch (error) {
    printError(error);
    send({ type: 'fatal', error: `failed at load: ${describe(error)}` });
    return 1;
  }
  return serve(loaded.bot, loaded.name);
}

process.exit(main(process.argv.slice(2)));
