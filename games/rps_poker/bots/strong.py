"""Counts cards, searches ahead and models how the opponent plays.

Draft: a card is worth its number (more so near the top; the worths were fitted on self-play)
plus its chance to pair with a base later, i.e. how many unseen cards of the same number may
still end up in the remaining deck, which matters more the weaker the card. It keeps the card
worth more and passes the other.

Main phase: it remembers every card it has seen, so it knows the opponent's remaining cards
(the five it passed, plus each unseen card weighted by the chance that it is the opponent's)
and which numbers the bases still to come may have. With up to eight of its own cards left it
searches every hand and draw it may get and plays the card that maximizes its expected points
for the rest of the match; before that it plays the card whose chance to win now most exceeds
its expected worth in a later game. Either way it wins with the cheapest likely winner and
throws its weakest card at games it would lose anyway. Its guess at the opponent's card mixes
"any of its remaining cards" with "what a careful player would pick from a random hand of
them" (for a few degrees of thrift), weighted by how well each guess predicted the opponent's
plays so far. It is deterministic and falls back to index 0 rather than raise.
"""

import contextlib
import math
from itertools import repeat
from operator import add, mul

SYMBOLS = "RPS"
BEATS = {"R": "S", "S": "P", "P": "R"}
FULL_DECK = [s + str(n) for s in SYMBOLS for n in range(10)]
NUM = {c: int(c[1]) for c in FULL_DECK}


def wins(card, other, nb):
    """True if ``card`` beats ``other`` over a base of number ``nb`` (-1: a base pairing
    neither card)."""
    nc, no = NUM[card], NUM[other]
    if nc == no:
        return BEATS[card[0]] == other[0]
    if nc == nb:
        return True
    if no == nb:
        return False
    return nc > no


def future_win(card, other, pi):
    """Chance ``card`` beats ``other`` over a base whose number is drawn from ``pi``."""
    nc, no = NUM[card], NUM[other]
    if nc == no:
        return 1.0 if BEATS[card[0]] == other[0] else 0.0
    pc = pi[nc]
    return pc + (1.0 - pc - pi[no]) * (nc > no)


class Bot:
    name = "strong"
    quick = True  # decides within milliseconds: a live table calls it on its event loop

    #: draft worth of a card by number (fitted on self-play: the gain per card in points)
    card_worth = (-0.279, -0.233, -0.185, -0.123, -0.067, 0.005, 0.073, 0.163, 0.266, 0.38)
    #: draft worth of one expected pairing base, scaled by how weak the card is otherwise
    pair_worth = 0.3
    #: how much a card's expected worth in a later game counts against playing it now
    thrift = 1.0
    #: search exhaustively once this many of my cards are left
    search_cards = 8
    #: thrift values of the modelled careful opponents
    opponent_thrifts = (0.0, 0.5, 1.0)
    #: a careful opponent still plays any of its cards this often
    noise = 0.1
    #: weight of the careful-opponent models: prior log-odds and bounds
    smart_prior = -2.5
    smart_min = 0.01
    smart_max = 0.5

    def __init__(self):
        self.mine = []  # my 10-card deck as it builds up
        self.given = []  # cards I passed: known to be in the opponent's deck
        self.received = []  # cards the opponent passed me
        self.bases = []  # base cards revealed so far
        self.opponent_played = []
        self.my_played = []
        self.smart_logodds = self.smart_prior
        self.model_loglik = [0.0] * len(self.opponent_thrifts)
        self.prediction = None  # (random-play distribution, model distributions)

    # ---- draft --------------------------------------------------------------------------
    def draft_pick(self, cards):
        try:
            values = [self._draft_value(c, cards) for c in cards]
            pick = 0 if values[0] >= values[1] else 1
            self.mine.append(cards[pick])
            self.given.append(cards[1 - pick])
            return pick
        except Exception:  # noqa: BLE001 - a bot must answer, never raise
            return 0

    def _draft_value(self, card, offer):
        n = NUM[card]
        seen = set(self.mine) | set(self.given) | set(offer)
        unseen = len(FULL_DECK) - len(seen)
        # ten of the unseen cards will be the remaining deck, i.e. the bases
        p_base = 10.0 / unseen if unseen > 0 else 0.0
        pairing = sum(1 for s in SYMBOLS if s + card[1] not in seen) * p_base
        return self.card_worth[n] + self.pair_worth * pairing * (9 - n) / 9.0

    def draft_receive(self, card):
        self.mine.append(card)
        self.received.append(card)

    # ---- main ---------------------------------------------------------------------------
    def main_play(self, hand, base):
        try:
            index = self._play(list(hand), base)
        except Exception:  # noqa: BLE001 - a bot must answer, never raise
            index = 0
        try:
            if not isinstance(index, int) or isinstance(index, bool):
                index = 0
            if not 0 <= index < len(hand):
                index = 0
            self.my_played.append(hand[index])
        except Exception:  # noqa: BLE001 - a bot must answer, never raise
            index = 0
        return index

    def main_postprocess(self, card):
        with contextlib.suppress(Exception):  # learning is optional; answering is not
            self._learn(card)
        self.prediction = None
        self.opponent_played.append(card)

    def _learn(self, card):
        """Update the opponent models with the card the opponent actually played."""
        if self.prediction is None:
            return
        rand, dists = self.prediction
        p_rand = rand.get(card, 0.0)
        if p_rand <= 0:
            return
        post = self._model_posterior()
        p_smart = 0.0
        for k, dist in enumerate(dists):
            p = (1 - self.noise) * dist.get(card, 0.0) + self.noise * p_rand
            p_smart += post[k] * p
            self.model_loglik[k] += math.log(p)
        self.smart_logodds += math.log(p_smart) - math.log(p_rand)

    def _model_posterior(self):
        top = max(self.model_loglik)
        post = [math.exp(x - top) for x in self.model_loglik]
        total = sum(post)
        return [x / total for x in post]

    def _play(self, hand, base):
        self.prediction = None
        self.bases.append(base)
        seen = set(self.mine) | set(self.given) | set(self.bases) | set(self.opponent_played)
        pool = [c for c in FULL_DECK if c not in seen]
        given = set(self.given)
        unknown_left = 5 - sum(1 for c in self.opponent_played if c not in given)
        share = unknown_left / len(pool) if pool and unknown_left > 0 else 0.0
        # the opponent's remaining cards, each weighted by the chance it holds it
        opp = {c: 1.0 for c in self.given if c not in self.opponent_played}
        if share > 0:
            for c in pool:
                opp[c] = share
        total = sum(opp.values())
        if total <= 0:
            return 0
        rand = {o: w / total for o, w in opp.items()}
        # number distribution of the bases still to come: unseen cards not the opponent's
        pi = [0.0] * 10
        n_bases = len(pool) * (1.0 - share)
        if n_bases > 1e-9:
            for c in pool:
                pi[NUM[c]] += (1.0 - share) / n_bases
        nb = NUM[base]
        dists = self._careful_plays(opp, total, nb, pool, share)
        self.prediction = (rand, dists)
        if len(hand) <= 1:
            return 0
        smart = 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, self.smart_logodds))))
        smart = min(self.smart_max, max(self.smart_min, smart))
        post = self._model_posterior()
        play = {}
        for o, p_rand in rand.items():
            p_model = sum(pk * d[o] for pk, d in zip(post, dists, strict=True))
            p_model = (1 - self.noise) * p_model + self.noise * p_rand
            play[o] = (1 - smart) * p_rand + smart * p_model
        mine_left = [c for c in self.mine if c not in self.my_played]
        if (
            len(mine_left) <= self.search_cards
            and len(set(hand)) == len(hand)
            and set(hand) <= set(mine_left)
        ):
            return self._search(hand, nb, mine_left, play, rand, pi)
        best, best_value = 0, None
        for i, card in enumerate(hand):
            now = sum(p for o, p in play.items() if wins(card, o, nb))
            later = sum(p * future_win(card, o, pi) for o, p in rand.items())
            value = round(now - self.thrift * later, 9)
            if best_value is None or value > best_value:
                best, best_value = i, value
        return best

    def _careful_plays(self, opp, total, nb, pool, share):
        """For each modelled opponent thrift, the distribution of the opponent's card if it
        holds a random hand of its remaining cards and plays the one with the best chance to
        win now minus thrift times its worth later, judged by what it knows of my cards."""
        # what the opponent knows: the cards it passed me; the rest of mine are unseen to it
        unknown_to_it = [c for c in self.mine if c not in self.received]
        my_unknown = [c for c in unknown_to_it if c not in self.my_played]
        k = len(my_unknown)
        its_pool = dict.fromkeys(my_unknown, 1.0)
        for c in pool:
            its_pool[c] = 1.0 - share
        size = sum(its_pool.values())
        mine = {c: 1.0 for c in self.received if c not in self.my_played}
        pi = [0.0] * 10
        if size > 1e-9:
            mine_share = k / size
            for c, m in its_pool.items():
                mine[c] = mine.get(c, 0.0) + m * mine_share
                pi[NUM[c]] += m * (1.0 - mine_share)
            n_bases = size - k
            pi = [p / n_bases for p in pi] if n_bases > 1e-9 else [0.0] * 10
        my_total = sum(mine.values()) or 1.0
        parts = []
        for o in opp:
            now = later = 0.0
            for x, wx in mine.items():
                if wins(o, x, nb):
                    now += wx
                later += wx * future_win(o, x, pi)
            parts.append((now / my_total, later / my_total, o))
        hand_size = min(3, max(1, round(total)))
        dists = []
        for thrift in self.opponent_thrifts:
            ranked = sorted(((now - thrift * later, o) for now, later, o in parts), reverse=True)
            higher = 0.0
            dist = {}
            for _, o in ranked:
                w = opp[o]
                # o is in the hand and every other card of the hand ranks lower
                p = w * hand_size / total
                for j in range(hand_size - 1):
                    rest = total - 1 - j
                    p *= max(0.0, (rest - higher) / rest) if rest > 0 else 0.0
                dist[o] = p
                higher += w
            z = sum(dist.values())
            if z > 0:
                dists.append({o: p / z for o, p in dist.items()})
            else:
                dists.append({o: w / total for o, w in opp.items()})
        return dists

    def _search(self, hand, nb, mine_left, play, rand, pi):
        """The card of the hand worth the most points over the rest of the match."""
        best, best_value = 0, None
        for i, v in enumerate(self._expected_points(hand, nb, mine_left, play, rand, pi)):
            v = round(v, 9)
            if best_value is None or v > best_value:
                best, best_value = i, v
        return best

    def _expected_points(self, hand, nb, mine_left, play, rand, pi):
        """Expected points of the rest of the match for each card in hand, searching every
        hand and draw; later games have a base number drawn from ``pi`` and an opponent card
        drawn from ``rand``."""
        cards = list(mine_left)
        n_cards = len(cards)
        relevant = {NUM[c] for c in cards} | {NUM[o] for o in rand}
        groups = {}
        for n in range(10):
            if pi[n] > 1e-12:
                key = n if n in relevant else -1
                groups[key] = groups.get(key, 0.0) + pi[n]
        keys = list(groups)
        probs = [groups[k] for k in keys]
        opp_items = list(rand.items())
        win_p = [[sum(p for o, p in opp_items if wins(c, o, n)) for n in keys] for c in cards]
        bits = [1 << i for i in range(n_cards)]
        # Memos by (hand << 16) | deck. Each function looks a state up before calling for it:
        # most states are reached many times, and a call costs more than the lookup.
        memo = {}
        memo_after = {}
        member_cache = {}

        def members(mask):
            """The (card's row of win_p, bit) of each card in ``mask``."""
            m = member_cache.get(mask)
            if m is None:
                m = [(win_p[i], bit) for i, bit in enumerate(bits) if mask & bit]
                member_cache[mask] = m
            return m

        def after(hand_mask, deck_mask):
            """Expected points once a card has been played from the hand: draw, then go on."""
            if not deck_mask:
                key = hand_mask << 16
                v = memo.get(key)
                return value(hand_mask, 0, key) if v is None else v
            drawn = members(deck_mask)
            values = []
            for _, bit in drawn:
                key = ((hand_mask | bit) << 16) | (deck_mask ^ bit)
                v = memo.get(key)
                values.append(value(hand_mask | bit, deck_mask ^ bit, key) if v is None else v)
            return sum(values) / len(drawn)

        def value(hand_mask, deck_mask, key):
            if not hand_mask:
                return 0.0
            held = members(hand_mask)
            rests = []
            for _, bit in held:
                rest_key = ((hand_mask ^ bit) << 16) | deck_mask
                r = memo_after.get(rest_key)
                if r is None:
                    r = memo_after[rest_key] = after(hand_mask ^ bit, deck_mask)
                rests.append(r)
            if len(held) == 1:
                v = rests[0] + sum(map(mul, probs, held[0][0]))
            else:
                # each base group's best card: its chance to win now plus what is left after it
                # (measured from the first card's rest, so the first row needs no shift)
                r0 = rests[0]
                shifted = [
                    map(add, row, repeat(r - r0))
                    for (row, _), r in zip(held[1:], rests[1:], strict=True)
                ]
                v = r0 + sum(map(mul, probs, map(max, held[0][0], *shifted)))
            memo[key] = v
            return v

        pos = {c: i for i, c in enumerate(cards)}
        hand_mask = 0
        for c in hand:
            hand_mask |= bits[pos[c]]
        deck_mask = ((1 << n_cards) - 1) ^ hand_mask
        try:
            return [
                sum(p for o, p in play.items() if wins(card, o, nb))
                + after(hand_mask ^ bits[pos[card]], deck_mask)
                for card in hand
            ]
        finally:
            # the two functions call each other through their cells: a cycle that only the
            # garbage collector would free, with every memo; unbinding them frees it now
            value = after = None
