// Replaces its realm's JSON.stringify in its first match, with one that would write a reply
// of its own making (a second line) if the host's realm code used it for the next match's
// replies, and its String and Array.isArray, which would name no method of its own and
// refuse the notices folded into a call: the realm's code keeps the built-ins it found when
// the realm was made.
{
  name: "patches-json",
  draftPick(cards) {
    if (!globalThis.patched) {
      globalThis.patched = true;
      const real = JSON.stringify;
      JSON.stringify = (v) => (typeof v === 'number' ? '0}\n{"type":"return","value":1' : real(v));
      globalThis.String = () => '_forged';
      Array.isArray = () => false;
    }
    return 0;
  },
  draftReceive(card) {},
  mainPlay(cards, base) { return 0; },
  mainPostprocess(card) {},
}
