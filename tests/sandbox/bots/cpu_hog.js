// Burns CPU in __THREADS__ threads of Node's pool (all of Node: it runs with the sandbox tests'
// escaped host, as if it had left its realm) from its first call to the end of its match,
// and says 0 s of CPU of itself: its sandbox must keep it to one core and count its CPU time
// from outside. Its first three calls each take __HOLD__ s, so that the match lasts a while.
const crypto = require('crypto');

let calls = 0;
const hold = (seconds) => {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, seconds * 1000);
};
process.cpuUsage = () => ({ user: 0, system: 0 });

module.exports = {
  name: 'cpu-hog-js',
  _hold() {
    calls += 1;
    if (calls === 1) {
      for (let i = 0; i < __THREADS__; i += 1) crypto.pbkdf2('x', 'y', 1e9, 64, 'sha512', () => {});
    }
    if (calls <= 3) hold(__HOLD__);
  },
  draftPick(cards) { this._hold(); return 0; },
  draftReceive(card) {},
  mainPlay(hand, base) { this._hold(); return 0; },
  mainPostprocess(card) {},
};
