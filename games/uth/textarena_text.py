"""TextArena's observation text for Ultimate Texas Hold'em, and an adapter that enters a
TextArena agent in the arena as a bot.

One file, standard library only: in the sandbox (the arena, the site) it sits beside your bot
file (``arena --no-sandbox`` puts it there too), so ``import textarena_text`` just works. An
agent written for TextArena's ``UltimateTexasHoldem-v0`` (a callable taking the
observation text and returning an action text) becomes a bot like this::

    from textarena_text import TextArenaBot

    class MyAgent:  # your TextArena agent, unchanged
        def __call__(self, observation: str) -> str:
            return "[check]"

    class Bot(TextArenaBot):
        agent_class = MyAgent

The adapter keeps the text TextArena's environment with its default wrappers would show the
agent (every message since the start of the session, each line tagged ``[GAME]`` or
``[Player]``), adds to it what each ``act(obs)`` tells (the cards turned, a refusal, the end
of the previous round from ``obs["last_round"]``), hands the whole text to the agent and
answers with the agent's action text. ``games/uth/env.py`` builds the same text with
``observation="textarena"``. The messages are TextArena's, character for character (the
differential test ``tests/uth/test_reference.py`` compares them with the real package); the
rules at the top are this project's own words, followed by TextArena's state block.
"""

from itertools import combinations

SUIT_SYMBOLS = {"c": "\u2663", "d": "\u2666", "h": "\u2665", "s": "\u2660"}
RANKS = "23456789TJQKA"
#: the engine's action texts by TextArena's names for them
ACTION_NAMES = {
    "[4x]": "play_bet_4x",
    "[2x]": "play_bet_2x",
    "[1x]": "play_bet_1x",
    "[check]": "check",
    "[fold]": "fold",
    "[skip]": "skip",
}
#: a five-card hand's category (as :func:`five_card_value` ranks it) by TextArena's name
HAND_NAMES = {
    10: "Royal Flush",
    9: "Straight Flush",
    8: "Four of a Kind",
    7: "Full House",
    6: "Flush",
    5: "Straight",
    4: "Three of a Kind",
    3: "Two Pair",
    2: "One Pair",
    1: "High Card",
}
SEPARATOR = "\u2500" * 50
#: the tags TextArena takes out of a player's action before showing it
ROLE_TAGS = ("[Player]", "[GAME]")


def card_text(code):
    """``Td`` as TextArena writes it: ``10\u2666``."""
    return ("10" if code[0] == "T" else code[0]) + SUIT_SYMBOLS[code[1]]


def cards_text(codes):
    return ", ".join(card_text(c) for c in codes)


def five_card_value(five):
    """A comparable value of five cards (``As``...): (category, ranks that break ties)."""
    values = sorted((RANKS.index(c[0]) + 2 for c in five), reverse=True)
    counts = {}
    for v in values:
        counts[v] = counts.get(v, 0) + 1
    # ranks by how many of each, then by rank: a full house's three before its pair
    grouped = sorted(counts, key=lambda v: (counts[v], v), reverse=True)
    shape = sorted(counts.values(), reverse=True)
    flush = len({c[1] for c in five}) == 1
    high = 0
    if len(counts) == 5:
        if values[0] - values[4] == 4:
            high = values[0]
        elif values == [14, 5, 4, 3, 2]:
            high = 5
    if high and flush:
        return (10 if high == 14 else 9, [high])
    if shape == [4, 1]:
        return (8, grouped)
    if shape == [3, 2]:
        return (7, grouped)
    if flush:
        return (6, values)
    if high:
        return (5, [high])
    if shape == [3, 1, 1]:
        return (4, grouped)
    if shape == [2, 2, 1]:
        return (3, grouped)
    if shape == [2, 1, 1, 1]:
        return (2, grouped)
    return (1, values)


def best_hand(cards):
    """The best five of ``cards`` as TextArena shows them: its name and the first five cards
    (in the order of ``combinations``) that make it."""
    best, chosen = (0, []), list(cards[:5])
    for five in combinations(cards, 5):
        value = five_card_value(five)
        if value > best:
            best, chosen = value, list(five)
    return HAND_NAMES[best[0]], chosen


def chips_text(value):
    """Chips as TextArena prints them (whole numbers; a half chip of the casino pay table
    as a decimal)."""
    return str(int(value)) if value == int(value) else str(value)


class TextArenaText:
    """The observation text of one session, message by message, as TextArena's environment
    and its default observation wrapper (``LLMObservationWrapper``) write it."""

    def __init__(self, start_chips, ante, max_rounds, blind_pay=None):
        self.ante = ante
        self.max_rounds = max_rounds
        self._lines = []
        self._text = ""
        self.game(rules(start_chips, ante, max_rounds, blind_pay) + state_block(start_chips))

    @property
    def text(self):
        """The whole text so far (joined once per question, not once per message)."""
        if self._lines:
            self._text += "".join(self._lines)
            self._lines = []
        return self._text

    def game(self, message):
        self._lines.append("\n[GAME] " + message)

    def player(self, action):
        """The action the player sent, as the environment shows it: bracketed if it has no
        bracket (TextArena's action wrapper), without role tags."""
        if "[" not in action and "]" not in action:
            action = "[" + action + "]"
        for tag in ROLE_TAGS:
            action = action.replace(tag, "")
        self._lines.append("\n[Player] " + action)

    def round_started(self, round_no, chips, hole):
        """A round dealt: ``chips`` after its ante and blind."""
        self.game(
            f"\U0001f3ae Round {round_no} started! Bets: ANTE ${self.ante}, BLIND ${self.ante}."
            f" You have {chips_text(chips)} chips remaining."
        )
        self.game(f"\U0001f3b4 Your hand: {cards_text(hole)}")

    def turned(self, board):
        """The board after the flop (three cards) or the river (five)."""
        if len(board) == 3:
            self.game(f"\U0001f0cf FLOP revealed: {cards_text(board)}")
        else:
            self.game(f"\U0001f0cf RIVER revealed: {cards_text(board[3:])}")

    def refused(self, legal, final=False):
        """An action refused; ``legal`` the engine's legal action texts. The ``final`` one
        (a second refusal, which ends the session) gets no invitation to try again."""
        names = ", ".join(f"[{ACTION_NAMES[a]}]" for a in legal)
        if not final:
            self.game(
                "You attempted an invalid move. Reason: Invalid action for current phase."
                f" Available actions: {names} Please resubmit a valid move and remember to"
                " follow the game rules to avoid penalties."
            )
        self.game(f"\u274c Invalid action! Available actions: {names}")

    def settled(self, r):
        """A round's end, from the engine's hand history entry ``r`` (``UthState.rounds``):
        the fold, the showdown, each bet, the net, and the end of the session if it ends."""
        if r["folded"]:
            self.game("\U0001f0cf You folded.")
        self.game(f"\U0001f3c1 SHOWDOWN! Dealer's hand: {cards_text(r['dealer'])}")
        self.game(f"\U0001f0cf Community cards: {cards_text(r['board'])}")
        for who, hole in (("Player", r["player"]), ("Dealer", r["dealer"])):
            name, five = best_hand(list(hole) + list(r["board"]))
            self.game(f"\U0001f3b4 {who}'s best hand: {name} ({cards_text(five)})")
        bets, results = r["bets"], r["results"]
        kinds = ("ante", "blind") if r["folded"] or not bets["play"] else ("ante", "blind", "play")
        for kind in kinds:
            self.game(_bet_line(kind.upper(), bets[kind], results[kind], r["folded"]))
        net = r["net"]
        self.game(
            f"\U0001f389 Round {r['round']} completed! Net gain: +${chips_text(net)}"
            if net > 0
            else f"\U0001f4b8 Round {r['round']} completed! Net loss: ${chips_text(net)}"
        )
        self.game(SEPARATOR)
        if r["chips"] <= 0:
            self.game("\U0001f3c1 GAME OVER! You're out of chips. Dealer wins!")
        elif r["round"] >= self.max_rounds:
            self.game(
                f"\U0001f3c1 GAME OVER! {self.max_rounds} rounds completed. You have"
                f" ${chips_text(r['chips'])} chips - YOU WIN!"
            )


def _bet_line(kind, bet, result, folded):
    if folded:
        return f"\u274c {kind} bet LOST! -${bet} (folded)"
    if result > 0:
        return f"\u2705 {kind} bet WON! +${chips_text(result)}"
    if result == 0:
        return f"\U0001f504 {kind} bet PUSHED! ${bet} returned"
    return f"\u274c {kind} bet LOST! -${bet}"


#: the blind's pay table of TextArena (winnings per chip, by hand), the ``default`` variant
DEFAULT_BLIND_PAY = {
    "royal_flush": 500,
    "straight_flush": 50,
    "four_of_a_kind": 10,
    "full_house": 3,
    "flush": 3,
    "straight": 1,
}


def _ratio(pays):
    """Winnings per chip as odds: 3 is ``3:1``, 1.5 is ``3:2``."""
    for per in (1, 2, 3, 4):
        if pays * per == int(pays * per):
            return f"{int(pays * per)}:{per}"
    return f"{pays}:1"


def rules(start_chips, ante, max_rounds, blind_pay=None):
    """The rules, in this project's words (the first message, before the state block);
    ``blind_pay`` the session's pay table (``obs["blind_pay"]``), TextArena's by default."""
    pays = ", ".join(
        f"{_ratio(won)} {hand.replace('_', ' ')}"
        for hand, won in (blind_pay or DEFAULT_BLIND_PAY).items()
    )
    return (
        "ULTIMATE TEXAS HOLD'EM: you against the dealer, one 52-card deck shuffled every"
        " round.\n\n"
        f"You have {start_chips} chips. Every round costs an ANTE and a BLIND of ${ante}"
        " each; you get two cards, the dealer two hidden ones, and five shared cards lie face"
        f" down. The session ends after {max_rounds} rounds (a win if you still have chips) or"
        " when your chips are 0 or less at the start of a round (a loss).\n\n"
        "You may make one PLAY bet a round, the earlier the bigger:\n"
        f"- PRE-FLOP: [4x] (a PLAY bet of ${4 * ante}) or [check]; then three shared cards"
        " are shown.\n"
        f"- FLOP: [2x] (${2 * ante}) or [check] if you have not bet, else [skip]; then the"
        " last two are shown.\n"
        f"- RIVER: [1x] (${ante}) or [fold] (losing ANTE and BLIND) if you have not bet, else"
        " [skip].\n\n"
        "At the SHOWDOWN each side plays its best five of seven cards. The dealer qualifies"
        " with a pair or better. ANTE: pays 1:1 if you win against a qualifying dealer, is"
        " returned if the dealer does not qualify. PLAY: pays 1:1 if you win. BLIND: pays"
        f" {pays}, and is returned for a smaller winning hand. A losing bet is lost; a tie"
        " returns every bet.\n\n"
        "Answer with one action in square brackets: [4x], [2x], [1x], [check] or [c],"
        " [fold] or [f], [skip] or [s].\n\n"
    )


def state_block(start_chips):
    """The state TextArena shows with its rules: the session before its first deal."""
    return (
        "\U0001f3af ROUND 0\n"
        f"\U0001f4b0 Chips: {start_chips}\n"
        "\U0001f3b4 Your hand: No cards yet\n"
        "\U0001f4ca Current bets: Ante $0, Blind $0, Play $0\n"
        "\U0001f4cb Phase: PRE-ROUND\n"
        "\U0001f3af Available actions: \n\n"
    )


class TextArenaBot:
    """An arena bot that plays a TextArena agent: set ``agent_class`` to the agent's class
    (made once per session, with no arguments) in a subclass named ``Bot``, or override
    :meth:`make_agent` to make it with arguments."""

    agent_class = None

    def __init__(self):
        self.agent = self.make_agent()
        self.view = None
        self.answer = None
        self.round = 0
        self.phase = ""

    def make_agent(self):
        """The session's agent: a callable from the observation text to an action text."""
        if self.agent_class is None:
            raise TypeError("set agent_class to your TextArena agent's class")
        return self.agent_class()

    def observation(self, obs):
        """The text up to this decision, from what ``obs`` says happened since the last."""
        if self.view is None:
            ante = obs["ante"]
            start = obs["chips"] + 2 * ante
            self.view = TextArenaText(start, ante, obs["max_rounds"], obs.get("blind_pay"))
            self.view.round_started(obs["round"], obs["chips"], obs["hole"])
        else:
            self.view.player(self.answer)
            if obs.get("error"):
                self.view.refused(obs["legal"])
            elif obs["round"] != self.round:
                self.view.settled(obs["last_round"])
                self.view.round_started(obs["round"], obs["chips"], obs["hole"])
            elif obs["phase"] != self.phase:
                self.view.turned(obs["board"])
        self.round, self.phase = obs["round"], obs["phase"]
        return self.view.text

    def act(self, obs):
        self.answer = self.agent(self.observation(obs))
        if not isinstance(self.answer, str):
            raise TypeError(f"the agent answered {type(self.answer).__name__}, not text")
        return self.answer
