// Card Arena's JavaScript bot host (protocol version 1), for Node.js.
//
// Runs one bot file written to the original RPS Poker challenge contract and answers the
// JSON-lines protocol on stdin/stdout, like python_host.py. It needs nothing but Node itself,
// because it runs inside the sandbox with nothing but the bot file next to it.
//
//     node js_host.js /path/to/bot.js ['{"fullDeck": [...]}']
//
// - The bot file holds one object literal (a trailing comma is allowed) or assigns an object
//   to module.exports. The optional second argument holds the globals the game gives its bots
//   (RPS Poker: fullDeck), set before the file runs.
// - Protocol method names are snake_case (draft_pick); the object's are camelCase (draftPick).
//   The arena names methods in fault reasons by the same rule (bots/languages/javascript, method_name):
//   a change here must be made there too (tests/bots/test_method_names.py checks both).
// - The bot runs in a V8 context of its own (a realm, vm.createContext) that holds nothing
//   of this host. It sees the language's built-ins, the game's globals, `console` and
//   `module`/`exports`; no `require`, no `process`, no Node API, no timer. Every match gets
//   a new bot: the file runs anew in the realm. The realm (its globals) lasts until
//   `renew`, which the controller sends before a match whose deal this process has played:
//   that match gets a new realm, which knows nothing of the last. Matches played at once
//   (lanes) each have a realm of their own, kept by their lane until `renew` (they share
//   the process's memory and its limit). Only text crosses between
//   this host and a bot's context (JSON in, JSON out, its console's lines), never an object
//   of the host's, so no code of the bot's can reach the host's realm; and none of it runs
//   between matches: each match's bot is made (its file run) at the match's `begin`, and
//   nothing of the host calls into a realm after a match's `end`.
// - Whatever the bot prints (console.log included) goes to stderr, its owner's log.
// - The process's own isolation (a sandbox) comes from outside: this host is none.
'use strict';

const fs = require('fs');
const path = require('path');
const { StringDecoder } = require('string_decoder');
const vm = require('vm');

const PROTOCOL = 1;
const MAX_REQUEST = 1 << 20;
const OUT = 1;
// The most matches this host plays at once (lanes: see serve). Each reply is written as soon
// as it is made, even when more requests are read already: the controller times a request
// from the reply before it, so a reply held back while the bot works on the next request
// would charge that request's time to the one before it.
const LANES = 64;

function sleepMs(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function writeAll(fd, data) {
  let buffer = data;
  let offset = 0;
  if (typeof data === 'string') {
    // A string is written as it is (Node encodes it in C++), whole as a rule; what a full
    // pipe leaves of it is written from its bytes
    try {
      offset = fs.writeSync(fd, data);
    } catch (error) {
      if (error.code !== 'EAGAIN') throw error;
    }
    if (offset === data.length && offset === Buffer.byteLength(data)) return;
    buffer = Buffer.from(data, 'utf8');
  }
  while (offset < buffer.length) {
    try {
      offset += fs.writeSync(fd, buffer, offset, buffer.length - offset);
    } catch (error) {
      if (error.code !== 'EAGAIN') throw error;
      sleepMs(1); // the pipe is full (or was made non-blocking): wait for the reader
    }
  }
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

// The code that runs inside each bot's context, before the bot's own. Run once when the
// realm is made, while nothing of the bot has run there, it keeps the realm's own JSON
// functions (a bot that replaces them later changes nothing of what the host reads) and
// returns the function that makes each match's bot: it makes the context's console,
// module and require, and returns the one function the host calls. Their arguments and
// results are strings only (see the header).
const REALM = new vm.Script(`(function () {
  'use strict';
  // The built-ins this code uses, taken while nothing of the bot has run here: a bot that
  // replaces one later (JSON.stringify, String.prototype.startsWith, Map.prototype.get, a
  // toJSON on Object.prototype...) changes nothing of what the host reads or says. Methods
  // are kept as plain functions (uncurry: startsWith(text, '_') calls the original), the
  // host's own objects have no prototype (nothing inherited, no toJSON), and no regular
  // expression, iterator or array method is used on a call's path. Each name looked up on
  // a context's global goes through Node's interceptor (about a microsecond), so none is
  // looked up again on a call's path.
  const global = globalThis;
  const uncurry = Function.prototype.bind.bind(Function.prototype.call);
  const apply = uncurry(Function.prototype.apply);
  const callWith = uncurry(Function.prototype.call);
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const isArray = Array.isArray;
  const keysOf = Object.keys;
  const create = Object.create;
  const toText = String;
  const ErrorType = Error;
  const TypeErrorType = TypeError;
  const errorPrototype = Error.prototype;
  const rangeErrorPrototype = RangeError.prototype;
  const prototypeOf = Object.getPrototypeOf;
  const ownNames = Object.getOwnPropertyNames;
  const objectPrototype = Object.prototype;
  const hasOwn = uncurry(Object.prototype.hasOwnProperty);
  const isPrototypeOf = uncurry(Object.prototype.isPrototypeOf);
  const startsWith = uncurry(String.prototype.startsWith);
  const indexOf = uncurry(String.prototype.indexOf);
  const includes = uncurry(String.prototype.includes);
  const sliceText = uncurry(String.prototype.slice);
  const trim = uncurry(String.prototype.trim);
  const lower = uncurry(String.prototype.toLowerCase);
  const upper = uncurry(String.prototype.toUpperCase);
  const sort = uncurry(Array.prototype.sort);
  // the deepest a reply may be nested (games/engine/untrusted.py, MAX_DEPTH): the reply's
  // line is an object around the value
  const MAX_DEPTH = 32;
  // a list of the host's own: no prototype, so nothing a bot puts on Array.prototype is seen
  const list = () => {
    const made = create(null);
    made.length = 0;
    return made;
  };
  const push = (items, value) => {
    items[items.length] = value;
    items.length += 1;
  };
  const joined = (items, separator) => {
    let out = '';
    for (let i = 0; i < items.length; i += 1) out += (i ? separator : '') + items[i];
    return out;
  };
  // a property of a request's object (JSON.parse's): its own only, never an inherited one
  const own = (object, key) => (hasOwn(object, key) ? object[key] : undefined);
  const describe = (error) => {
    try {
      if (isPrototypeOf(errorPrototype, error)) return toText(error.name) + ': ' + toText(error.message);
      return 'thrown value: ' + toText(error);
    } catch (_) {
      return 'thrown value';
    }
  };
  // A failure of the bot's code: what it threw, never taken for the host's own finding (a
  // bot's error that says "allocation failed" is a raised error like any other: memory is
  // decided outside, from the process's own end).
  const failure = (error, told, kind) => {
    let stack = '';
    try { stack = error && error.stack ? toText(error.stack) : describe(error); } catch (_) {}
    // the bot's own frames: not this realm's code nor the host's
    let kept = '';
    let start = 0;
    while (start <= stack.length) {
      let end = indexOf(stack, '\\n', start);
      if (end < 0) end = stack.length;
      const line = sliceText(stack, start, end);
      if (!includes(line, 'bot-realm.js') && !includes(line, 'js_host.js') && !includes(line, 'node:internal')) {
        kept += (kept ? '\\n' : '') + line;
      }
      start = end + 1;
    }
    const said = create(null);
    said.error = kind === 'nested' ? error : describe(error);
    said.stack = kind === 'nested' ? '' : kept;
    if (told !== undefined) said.told = told;
    if (kind !== undefined) said.kind = kind;
    return 'E' + stringify(said);
  };
  // Whether the value holds more than the limit of containers one in another (read only when
  // JSON.stringify failed on it: a value too deep for its stack)
  const deeperThan = (value, limit) => {
    try {
      let level = list();
      push(level, value);
      for (let depth = 0; ; depth += 1) {
        const next = list();
        let found = false;
        for (let i = 0; i < level.length; i += 1) {
          const item = level[i];
          if (item === null || typeof item !== 'object') continue;
          found = true;
          const keys = keysOf(item);
          for (let k = 0; k < keys.length && next.length < 1000000; k += 1) push(next, item[keys[k]]);
        }
        if (!found) return false;
        if (depth + 1 > limit) return true;
        level = next;
      }
    } catch (_) {
      return false;
    }
  };
  const snake = (name) => {
    let out = '';
    for (let i = 0; i < name.length; i += 1) {
      const c = name[i];
      out += c >= 'A' && c <= 'Z' ? '_' + lower(c) : c;
    }
    return out;
  };
  const camelNames = create(null); // every call names one of a few methods: converted once each
  let camelCount = 0;
  const camel = (name) => {
    let converted = camelNames[name];
    if (converted === undefined) {
      converted = '';
      for (let i = 0; i < name.length; i += 1) {
        const next = i + 1 < name.length ? name[i + 1] : '';
        if (name[i] === '_' && ((next >= 'a' && next <= 'z') || (next >= '0' && next <= '9'))) {
          converted += upper(next);
          i += 1;
        } else {
          converted += name[i];
        }
      }
      if (camelCount < 1000) {
        camelNames[name] = converted;
        camelCount += 1;
      }
    }
    return converted;
  };
  // The values of the names bound in the bot file's scope: the built-ins as the realm had
  // them at its first bot (a look-up on a context's global costs about a microsecond, and
  // there are dozens), console and the game's globals as each match sets them.
  let boundNames = null;
  let boundValues = null;
  let perMatch = null;
  const bound = (boundJson, globals) => {
    if (boundNames === null) {
      boundNames = parse(boundJson);
      boundValues = list();
      perMatch = list();
      for (let i = 0; i < boundNames.length; i += 1) {
        push(boundValues, global[boundNames[i]]);
        if (boundNames[i] === 'console' || hasOwn(globals, boundNames[i])) push(perMatch, i);
      }
    }
    const values = list();
    for (let i = 0; i < boundValues.length; i += 1) push(values, boundValues[i]);
    for (let i = 0; i < perMatch.length; i += 1) values[perMatch[i]] = global[boundNames[perMatch[i]]];
    return values;
  };
  return function (globalsJson, botOuter, boundJson, file) {
    const logs = list();
    const text = (value) => {
      if (typeof value === 'string') return value;
      try {
        const json = stringify(value);
        return json === undefined ? toText(value) : json;
      } catch (_) {
        try { return toText(value); } catch (__) { return '[value]'; }
      }
    };
    const print = (...args) => {
      let line = '';
      for (let i = 0; i < args.length; i += 1) line += (i ? ' ' : '') + text(args[i]);
      push(logs, line);
    };
    global.console = { log: print, info: print, debug: print, warn: print, error: print, trace: print };
    const globals = parse(globalsJson);
    const globalKeys = keysOf(globals);
    for (let i = 0; i < globalKeys.length; i += 1) global[globalKeys[i]] = globals[globalKeys[i]];
    const module = { exports: {} };
    // the bot's function, its built-ins and the game's globals bound to it by name (compile)
    const botFunction = apply(botOuter, undefined, bound(boundJson, globals));
    const require = (name) => {
      throw new ErrorType('require(' + stringify(toText(name)) + ') is not available: a bot runs on ' +
        'its own, with the language built-ins only (docs/bot-protocol.md)');
    };
    let bot = null;
    const invoke = (method, args) => {
      const fn = startsWith(method, '_') ? undefined : bot[camel(method)];
      if (typeof fn !== 'function') throw new TypeErrorType('the bot has no method ' + camel(method));
      return apply(fn, bot, args || list());
    };
    return function dispatch(op, a) {
      try {
        if (op === 'logs') {
          const out = joined(logs, '\\n');
          logs.length = 0;
          return out;
        }
        if (op === 'load') {
          bot = callWith(botFunction, module.exports, module.exports, require, module, file, '/bot');
          if (bot === undefined) bot = module.exports;
          if (bot === null || typeof bot !== 'object') {
            throw new ErrorType('the file holds no bot object (an object literal or module.exports = {...})');
          }
          // (only a bot's first start says its name and methods: the hello's)
          if (a !== 'names') return 'R{}';
          const names = create(null);
          for (let o = bot; o && o !== objectPrototype; o = prototypeOf(o)) {
            const keys = ownNames(o);
            for (let i = 0; i < keys.length; i += 1) {
              const key = keys[i];
              // a method the host calls by: camel(snake(key)) is key (draftPick, act), so
              // that draft_pick is not taken for draftPick and refused before any match
              if (key !== 'constructor' && !startsWith(key, '_') && typeof bot[key] === 'function' &&
                  camel(snake(key)) === key) {
                names[snake(key)] = true;
              }
            }
          }
          const methods = sort(keysOf(names));
          let listed = '';
          for (let i = 0; i < methods.length; i += 1) listed += (i ? ',' : '') + stringify(methods[i]);
          const name = typeof bot.name === 'string' ? sliceText(trim(bot.name), 0, 64) : '';
          return 'R{"name":' + stringify(name) + ',"methods":[' + listed + ']}';
        }
        // op === 'call': a is the request's line (an end with notices), or what follows the
        // type of a call's or a tell's (its method, arguments and notices, as an object)
        const message = parse(a);
        const told = own(message, 'told');
        if (told !== undefined) {
          // the notices folded into this request, run first and in order: the first that
          // fails is this request's answer, named (the rest are not run)
          if (!isArray(told)) throw new TypeErrorType('told is not a list');
          for (let i = 0; i < told.length; i += 1) {
            const notice = told[i];
            const name = isArray(notice) ? toText(notice[0]) : '?';
            try {
              invoke(name, isArray(notice) ? notice[1] : undefined);
            } catch (error) {
              return (logs.length ? 'L' : '') + failure(error, name);
            }
          }
          if (own(message, 'type') === 'end') return logs.length ? 'LRnull' : 'Rnull';
        }
        const method = toText(own(message, 'method'));
        const returned = invoke(method, own(message, 'args'));
        let json;
        try {
          json = stringify(returned === undefined ? null : returned);
        } catch (error) {
          // too deep for the stack that writes it (V8's RangeError): the reply's fault, as a
          // reply the arena reads too deep is, not an error the bot raised (a cycle is a
          // TypeError, reported as raised)
          if (!isPrototypeOf(rangeErrorPrototype, error) || !deeperThan(returned, MAX_DEPTH - 1)) throw error;
          const says = camel(method) + ' returned a value nested more than ' + MAX_DEPTH + ' deep';
          return (logs.length ? 'L' : '') + failure(says, undefined, 'nested');
        }
        // 'L' first: the bot printed, and the host asks for its lines (not after every call)
        return (logs.length ? 'LR' : 'R') + (json === undefined ? 'null' : json);
      } catch (error) {
        return (op === 'call' && logs.length ? 'L' : '') + failure(error);
      }
    };
  };
})`, { filename: 'bot-realm.js' });

// The global names a bot's code finds bound in its own scope, not looked up on the context's
// global object: the built-ins of a context (its own, each realm's) and the game's globals.
// A context's global goes through Node's interceptors, about 90 ns a look-up (a bot's
// `Math.max` in a loop), where a binding costs about one; the values are the same objects.
// Left out: names a binding would change (eval, arguments) or that are constants anyway.
const UNBOUND = new Set(['eval', 'arguments', 'undefined', 'NaN', 'Infinity']);
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
// They are read from a context nothing has run in yet: the first bot's own, before its code
// runs there (a context of its own would cost the start a second V8 context).
function builtinNames(context) {
  return vm.runInContext('Object.getOwnPropertyNames(globalThis)', context);
}

function boundNames(globalsJson, builtins) {
  const names = new Set(['console', ...builtins, ...Object.keys(JSON.parse(globalsJson))]);
  return [...names].filter((name) => IDENTIFIER.test(name) && !UNBOUND.has(name)).sort();
}

// The bot file, compiled once (no code of it runs here): an object literal, with or without
// a trailing comma, or else a CommonJS file that assigns module.exports. It is wrapped in a
// function of the bound names (see boundNames), which returns the file's own function: the
// file may declare any of those names for itself. ``builtins``: a context's own global names
// (builtinNames; by default, a new context's). Returns {script, bound}.
function compile(file, globalsJson = '{}', builtins = null) {
  if (!fs.existsSync(file)) throw new Error(`no such file: ${file}`);
  const code = fs.readFileSync(file, 'utf8');
  const names = boundNames(globalsJson, builtins || builtinNames(vm.createContext(Object.create(null))));
  const params = `(function (${names.join(', ')}) { return function (exports, require, module, __filename, __dirname) {`;
  const options = { filename: file, lineOffset: -1 };
  const bound = JSON.stringify(names);
  let asLiteral;
  try {
    return { script: new vm.Script(`${params} return [\n${code}\n][0]; }; })`, options), bound };
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    asLiteral = error;
  }
  try {
    return { script: new vm.Script(`${params}\n${code}\n}; })`, options), bound };
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    throw syntaxError(file, code, asLiteral, error);
  }
}

// The file is neither form: of the two reads, the one that got further into the file is
// the form its author meant (an object literal with a typo in its tenth line fails as a
// script at its first property), so its error is the one reported: with its line in the
// message, as Python's are ("... (bot.js, line 14)"), and the excerpt V8 prints (the
// line, a caret under the fault) as the log's, without the host's own frames. A read that
// ran off the end of the file failed on the wrapper's closing brackets, which its author
// never wrote: that says the file ends before something it opened is closed.
function syntaxError(file, code, ...errors) {
  const lines = code.replace(/\n$/, '').split('\n').length;
  const lineOf = (error) => {
    const found = /^[^\n]*:(\d+)\n/.exec(String(error.stack));
    return found === null ? 0 : Number(found[1]);
  };
  const furthest = errors.reduce((best, error) => (lineOf(error) > lineOf(best) ? error : best));
  let line = lineOf(furthest);
  let message = furthest.message;
  let excerpt = String(furthest.stack).split('\n\n')[0];
  if (line > lines) {
    line = lines;
    if (/^Unexpected (token '[)\]}]'|end of input)$/.test(message)) {
      message = 'Unexpected end of file: a brace, bracket, parenthesis, string or comment is not closed';
    }
    excerpt = `${file}:${line}\n${code.replace(/\n$/, '').split('\n')[line - 1]}`;
  }
  const reported = new SyntaxError(line > 0 ? `${message} (${path.basename(file)}, line ${line})` : message);
  reported.stack = `${excerpt}\n\n${reported.name}: ${reported.message}`;
  return reported;
}

// A new bot in a realm: the realm's code makes it from the bot file's function. Both are
// the realm's own, made once (see newRealm), so that each match's bot is made by the same
// closures and V8 keeps what it learned of the bot's code (its type feedback, its
// optimized code) from one match to the next. Returns the realm, the bot's dispatch
// function and what its load said ({name, methods} or an error reply).
function botIn(realm, compiled, file, globalsJson, names = false) {
  const dispatch = realm.make(globalsJson, realm.botOuter, compiled.bound, file);
  const said = dispatch('load', names ? 'names' : '');
  flushLogs(dispatch);
  return { realm, dispatch, said: decode(said) };
}

// A context nothing has run in. A sandbox object of no prototype: property look-ups on the
// context's global that miss fall to the context's own built-ins, never to an object of this
// host's realm.
function newContext() {
  return vm.createContext(Object.create(null));
}

// A realm that has seen nothing: a new context (or ``context``, one nothing has run in), with
// the realm's code and the bot file's function made in it (none of the bot's code runs until
// a bot is made).
function newRealm(compiled, context = newContext()) {
  return { make: REALM.runInContext(context)(), botOuter: compiled.script.runInContext(context) };
}

// A fresh bot: a new realm (in ``context`` if given), then a new bot in it.
function freshBot(compiled, file, globalsJson, names = false, context = undefined) {
  return botIn(newRealm(compiled, context), compiled, file, globalsJson, names);
}

// A dispatch result: {value} or {error, stack} (and the reply's kind: 'nested', a value
// too deep to write). Anything but a string starting with R or E (a bot cannot make one,
// but the host never trusts its context) is an error.
function decode(result) {
  if (typeof result !== 'string' || result.length === 0) {
    return { error: 'the bot broke its own context', stack: '' };
  }
  try {
    if (result[0] === 'R') return { value: JSON.parse(result.slice(1)) };
    if (result[0] === 'E') {
      const failure = JSON.parse(result.slice(1));
      const decoded = { error: String(failure.error), stack: String(failure.stack || '') };
      if (typeof failure.told === 'string') decoded.told = failure.told;
      if (failure.kind === 'nested') decoded.kind = 'nested';
      return decoded;
    }
  } catch (_) {
    // fall through
  }
  return { error: 'the bot broke its own context', stack: '' };
}

// What a bot wrote to its log (stderr). A match played in a lane (see serve) has each of
// its lines marked with its lane, so that the log of matches played at once can be told
// apart; the bot's text is cut into lines here, so no line of it passes for another lane's.
function log(lane, text) {
  if (lane === 0) {
    writeAll(2, `${text}\n`);
    return;
  }
  writeAll(2, `${text.split('\n').map((line) => `[${lane}] ${line}`).join('\n')}\n`);
}

function flushLogs(dispatch, lane = 0) {
  let logs;
  try {
    logs = dispatch('logs');
  } catch (error) {
    return;
  }
  if (typeof logs === 'string' && logs.length) log(lane, logs);
}

// The request lines on stdin, as they come (blank lines skipped): read as text once a read,
// then cut into lines (a character that two reads cut in two is kept whole by the decoder).
class Requests {
  constructor() {
    this.chunk = Buffer.alloc(65536);
    this.decoder = new StringDecoder('utf8');
    this.pending = '';
    this.start = 0;
  }

  // The next line, or null at the end of stdin.
  next() {
    for (;;) {
      const newline = this.pending.indexOf('\n', this.start);
      if (newline >= 0) {
        const line = this.pending.slice(this.start, newline);
        this.start = newline + 1;
        if (line.trim()) return line;
        continue;
      }
      if (this.start) {
        this.pending = this.pending.slice(this.start);
        this.start = 0;
      }
      if (this.pending.length > MAX_REQUEST) throw new Error('request too long');
      let n;
      try {
        n = fs.readSync(0, this.chunk, 0, this.chunk.length, null);
      } catch (error) {
        if (error.code === 'EAGAIN') {
          sleepMs(1);
          continue;
        }
        if (error.code === 'EOF') return null;
        throw error;
      }
      if (n === 0) return null;
      this.pending += this.decoder.write(this.chunk.subarray(0, n));
    }
  }
}

function errorReply(failure, lane = 0) {
  log(lane, failure.stack || failure.error);
  const reply = { type: 'error', error: failure.error };
  if (failure.kind !== undefined) reply.kind = failure.kind;
  return reply;
}

// A notice that failed (request ``id``, or one folded into it): the reply that names it.
function toldFailure(result, id, lane) {
  return { ...errorReply(result, lane), told: id, method: result.told };
}

// ``run(a, b, c, d, e)``, or the failure of a bot's code that threw past its context's own
// guard.
function guarded(run, a, b, c, d, e) {
  try {
    return run(a, b, c, d, e);
  } catch (error) {
    // the bot's code threw past its context's own guard (a stack overflow in the realm):
    // nothing of the thrown value is read, whatever it is
    const memory = error instanceof RangeError;
    return { error: memory ? 'RangeError: the bot ran out of stack or memory' : 'the bot failed', stack: '' };
  }
}

// The start of a call's or a tell's line as the controller writes it (bots/running/process.py,
// BotProcess.call): its id, its lane when it has one, then its type.
const CALL_HEAD = /^\{"id":(\d{1,15}),(?:"lane":(\d{1,6}),)?"type":"(call|tell)",/;

function serve(script, file, globalsJson, name, methods, first) {
  send({
    type: 'hello', protocol: PROTOCOL, language: 'javascript', name, methods,
    runtime: `node ${process.version}`, quiet_begin: true, isolation: 'realm', lanes: LANES,
    folds: true,
  });
  // (each request is handled by a method of its own: the loop stays small, so V8 optimizes
  // each part on its own rather than this whole function at once)
  const matches = new Matches(script, file, globalsJson, first);
  const requests = new Requests();
  for (let raw = requests.next(); raw !== null; raw = requests.next()) {
    if (!matches.handle(raw)) return 0;
  }
  return 0;
}

// The matches being played, by lane: a request with no lane is lane 0, the one match of a
// controller that plays one at a time. Each has its own bot ({dispatch}, null when it
// failed to load) and its failure not yet reported: a notice ("tell") is answered only if
// it fails, by the match's next reply instead of that request's own; the notices after it
// are not run.
class Matches {
  constructor(script, file, globalsJson, first) {
    this.script = script;
    this.file = file;
    this.globalsJson = globalsJson;
    this.lanes = new Map();
    // The next match's bot: the hello's, which has seen nothing, for the first match; else
    // made at the match's begin (a new bot in lane 0's realm, or after a renew a new realm),
    // never ahead of it: the bot file's code runs while a match is played and timed, not
    // between matches (docs/bot-protocol.md).
    this.next = first;
    // lane 0's realm (null: a new one at its next begin)
    this.realm = first.realm || null;
    // Each lane's realm (lanes 1 and up), made at its first match.
    this.realms = new Map();
  }

  // A bot in ``realm`` (null: in a new realm), or its failure.
  bot(realm) {
    return realm === null ? guarded(freshBot, this.script, this.file, this.globalsJson)
      : guarded(botIn, realm, this.script, this.file, this.globalsJson);
  }

  // lane 0's next bot, made as its match begins
  make() {
    this.next = this.bot(this.realm);
    this.realm = this.next.realm || null;
  }

  // One request; false once it says to quit.
  handle(raw) {
    // A call or a tell, which the controller writes with its id and type first, is read no
    // further here: the bot's context parses the rest of the line itself (its method, its
    // arguments and the notices folded into it), as an object of its own.
    const head = CALL_HEAD.exec(raw);
    const message = head === null ? JSON.parse(raw) : null;
    const line = head === null ? raw : `{${raw.slice(head[0].length)}`;
    const type = head === null ? message.type : head[3];
    const id = head === null ? message.id : Number(head[1]);
    const number = head === null ? message.lane : head[2];
    const lane = number === undefined ? 0 : Number(number);
    if (type === 'quit') return false;
    if (!Number.isInteger(lane) || lane < 0 || lane > LANES) {
      send({ ...errorReply({ error: `Error: no lane ${JSON.stringify(number)}` }), id });
    } else if (type === 'renew') {
      this.renew(id);
    } else if (type === 'begin') {
      this.begin(lane, id, message);
    } else {
      const match = this.lanes.get(lane);
      if (match === undefined) {
        send({ ...errorReply({ error: `Error: ${type} before begin` }, lane), id });
      } else if (type === 'tell') {
        this.tell(match, lane, line, id);
      } else if (type === 'end') {
        this.end(match, lane, line, id, message);
      } else if (match.failed !== null) {
        send({ ...match.failed, id });
        match.failed = null;
      } else if (type === 'call') {
        this.ask(match, lane, line, id);
      } else {
        send({ ...errorReply({ error: `Error: unknown request type ${JSON.stringify(type)}` }, lane), id });
      }
    }
    return true;
  }

  // The next match's deal is one this process has played: realms that have seen nothing
  // (the controller sends it when no match is being played here).
  renew(id) {
    this.lanes.clear();
    this.realms.clear();
    this.next = null;
    this.realm = null;
    send({ type: 'ok', id });
  }

  // A new match: a new bot, and nothing of the last match is reported in it.
  begin(lane, id, message) {
    let fresh;
    if (lane === 0) {
      if (this.next === null) this.make();
      fresh = this.next;
      this.next = null;
    } else {
      // the lane's own realm: matches played at once share nothing. A lane's first match
      // takes the hello's bot, if no match has taken it (no match has used its realm), and
      // its realm becomes the lane's own; a match in lane 0 would then make a new one
      const own = this.realms.get(lane);
      if (own === undefined && this.next !== null) {
        fresh = this.next;
        this.next = null;
        this.realm = null;
      } else {
        fresh = this.bot(own === undefined ? null : own);
      }
      if (fresh.realm) this.realms.set(lane, fresh.realm);
    }
    const match = { dispatch: null, failed: null };
    this.lanes.set(lane, match);
    if (fresh.error !== undefined || fresh.said.error !== undefined) {
      const why = fresh.error !== undefined ? fresh : fresh.said;
      match.failed = { ...errorReply(why, lane), kind: 'load' };
    } else {
      match.dispatch = fresh.dispatch;
    }
    if (message.reply === false) return; // it went with the first question
    if (match.failed === null) {
      send({ type: 'ok', id });
    } else {
      send({ ...match.failed, id });
      match.failed = null;
    }
  }

  tell(match, lane, line, id) {
    if (match.failed !== null) return;
    const told = call(match.dispatch, line, lane);
    if (told.error !== undefined) {
      match.failed = toldFailure({ ...told, told: String(JSON.parse(line).method) }, id, lane);
    }
  }

  end(match, lane, line, id, message) {
    this.lanes.delete(lane);
    if (match.failed === null && message.told !== undefined) {
      // the match's last notices, folded into its end
      const result = call(match.dispatch, line, lane);
      if (result.error !== undefined) match.failed = toldFailure(result, id, lane);
    }
    if (match.failed !== null) {
      send({ ...match.failed, id });
    } else {
      const used = process.cpuUsage();
      send({ type: 'ok', cpu: Math.round((used.user + used.system) / 1000) / 1000, id });
    }
  }

  // A call: its reply, written as soon as it is made.
  ask(match, lane, line, id) {
    const result = call(match.dispatch, line, lane);
    if (result.error === undefined) {
      // Written as it is: the value came as JSON and went back to JSON once.
      writeAll(OUT, `{"type":"return","value":${result.json},"id":${JSON.stringify(id) ?? 'null'}}\n`);
      return;
    }
    send({ ...(result.told !== undefined ? toldFailure(result, id, lane) : errorReply(result, lane)), id });
  }
}

// One call of the bot's method in its context (the request as JSON text, which the context
// parses on its own: see Matches.handle): {json} (the value, as JSON text) or a failure.
function call(dispatch, raw, lane = 0) {
  if (dispatch === null) return { error: 'Error: call before begin', stack: '' };
  const result = callOnce(dispatch, raw, lane);
  // where in the bot's file it threw, as a load's error says it: "... (bot.js, line 21)"
  if (result.error !== undefined && botFile !== null) result.error += loadLine(result.stack, botFile);
  return result;
}

// The bot's file, whose first frame in a call's error is that error's line (set by main)
let botFile = null;

function callOnce(dispatch, raw, lane) {
  let result = guarded(dispatch, 'call', raw);
  if (typeof result !== 'string' || result[0] === 'L') {
    flushLogs(dispatch, lane); // it printed (or threw past its guard: whatever it printed before)
    if (typeof result === 'string') result = result.slice(1);
  }
  if (typeof result === 'string' && result[0] === 'R') {
    const json = result.slice(1);
    return { json };
  }
  return typeof result === 'string' ? decode(result) : result;
}

// Where in the bot's file its code threw (loaded or called), as a syntax error says it
// (" (bot.js, line 15)"): the first frame of the stack in that file, if there is one.
function loadLine(stack, file) {
  const at = typeof stack === 'string' ? stack.indexOf(`${file}:`) : -1;
  const line = at < 0 ? null : /^:(\d+):\d+/.exec(stack.slice(at + file.length));
  return line ? ` (${path.basename(file)}, line ${line[1]})` : '';
}

function main(argv) {
  if (argv.length < 1 || argv.length > 2) {
    send({ type: 'fatal', error: 'usage: js_host.js BOT_FILE [GLOBALS_JSON]' });
    return 2;
  }
  const file = argv[0];
  botFile = file;
  const globalsJson = argv.length === 2 ? argv[1] : '{}';
  let script;
  let said;
  let fresh;
  try {
    JSON.parse(globalsJson);
    const context = newContext();
    script = compile(file, globalsJson, builtinNames(context));
    // A first bot, for the hello (its name and methods) and then the first match.
    fresh = guarded(freshBot, script, file, globalsJson, true, context);
    said = fresh.error !== undefined ? fresh : fresh.said;
  } catch (error) {
    printError(error);
    send({ type: 'fatal', error: `failed at load: ${describe(error)}` });
    return 1;
  }
  if (said.error !== undefined) {
    writeAll(2, `${said.stack || said.error}\n`);
    send({ type: 'fatal', error: `failed at load: ${said.error}${loadLine(said.stack, file)}` });
    return 1;
  }
  const name = said.value.name || path.basename(file, path.extname(file));
  return serve(script, file, globalsJson, name.slice(0, 64), said.value.methods, fresh);
}

if (require.main === module) {
  process.exit(main(process.argv.slice(2)));
} else {
  // loaded by bench/bench_fresh_floor.py, which times a fresh bot on its own
  module.exports = { compile, freshBot, call };
}
