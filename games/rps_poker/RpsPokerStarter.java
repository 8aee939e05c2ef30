// A starter bot for RPS Poker (Card Arena), in Java 17: one file, the standard library and
// Gson, compiled by the platform with javac. Methods are the contract's in camelCase.
//
// Cards are two-character strings, symbol then number: "R3" is rock 3, "S9" scissors 9.
// Run it against a built-in bot on your machine, from a clone of Card Arena:
//
//     .venv/bin/python manage.py arena --game rps-poker RpsPokerStarter.java builtin:simple --rounds 20
//
// A new RpsPokerStarter is made for every match. Each call has 1 second (plus a 10-second bank
// per match), and anything you print (System.out too) goes to your bot's log.
import java.util.ArrayList;
import java.util.List;

public class RpsPokerStarter {
    public static final String NAME = "starter";

    private final List<String> theirs = new ArrayList<>();  // cards we passed to the opponent

    // Two cards are offered: return 0 or 1, the one to keep (the other goes across).
    public int draftPick(List<String> cards) {
        boolean first = cards.get(0).charAt(1) >= cards.get(1).charAt(1);
        theirs.add(first ? cards.get(1) : cards.get(0));
        return first ? 0 : 1;
    }

    // The card the opponent passed to us. Nothing to answer.
    public void draftReceive(String card) {
    }

    // Return the index in `hand` of the card to play against the `base` card.
    public int mainPlay(List<String> hand, String base) {
        for (int i = 0; i < hand.size(); i++) {
            if (hand.get(i).charAt(1) == base.charAt(1)) return i;
        }
        // Beat as many of the opponent's known cards as we can; else throw our lowest card.
        int best = 0, bestWins = -1, lowest = 0;
        for (int i = 0; i < hand.size(); i++) {
            int count = 0;
            for (String card : theirs) count += wins(hand.get(i), card, base) ? 1 : 0;
            if (count > bestWins) {
                best = i;
                bestWins = count;
            }
            if (hand.get(i).charAt(1) < hand.get(lowest).charAt(1)) lowest = i;
        }
        return bestWins > 0 ? best : lowest;
    }

    // The card the opponent just played: it is no longer in their hand.
    public void mainPostprocess(String card) {
        theirs.remove(card);
    }

    // Whether card `mine` beats `other` with `base` turned up.
    private static boolean wins(String mine, String other, String base) {
        boolean myPair = mine.charAt(1) == base.charAt(1), theirPair = other.charAt(1) == base.charAt(1);
        if (myPair != theirPair) return myPair;
        if (mine.charAt(1) != other.charAt(1)) return mine.charAt(1) > other.charAt(1);
        String beats = "RSPR";  // rock beats scissors, scissors paper, paper rock
        return beats.indexOf("" + mine.charAt(0) + other.charAt(0)) >= 0;
    }
}
