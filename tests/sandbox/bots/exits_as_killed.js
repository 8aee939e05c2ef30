// Exits in the middle of the match with the status a SIGKILL would leave (128 + 9), as a
// losing bot would to have its match taken for the platform's trouble and played again.
{
  name: "exits_as_killed",
  draftPick(cards) { return 0; },
  draftReceive(card) { process.exit(__STATUS__); },
  mainPlay(cards, base) { return 0; },
  mainPostprocess(card) {},
},
