// Replaces its realm's JSON.stringify in its first match, with one that would write a reply
// of its own making (a second line) if the host's realm code used it for the next match's
// replies: the realm's code keeps the JSON functions it found when the realm was made.
{
  name: "patches-json",
  draftPick(cards) {
    if (!globalThis.patched) {
      globalThis.patched = true;
      const real = JSON.stringify;
      JSON.stringify = (v) => (typeof v === 'number' ? '0}\n{"type":"return","value":1' : real(v));
    }
    return 0;
  },
  draftReceive(card) {},
  mainPlay(cards, base) { return 0; },
  mainPostprocess(card) {},
}
