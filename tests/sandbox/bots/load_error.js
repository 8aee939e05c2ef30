// Fails while being loaded.
module.exports = (() => {
  throw new Error("hostile bot failing at load");
})();
