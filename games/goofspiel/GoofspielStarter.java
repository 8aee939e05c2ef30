// A starter bot for Goofspiel (Card Arena), in Java 17: one file, the standard library and
// Gson (com.google.gson), compiled by the platform with javac.
//
// Each player holds cards 1..13; the prizes 1..13 are shuffled and turned up one at a time.
// Both players bid one of their cards at once; the higher bid takes the prize's points, equal
// bids discard it, and bid cards are gone. Most prize points wins the deal. Run it on your
// machine, from a clone of Card Arena, against the built-in bot:
//
//     .venv/bin/python manage.py arena --game goofspiel GoofspielStarter.java builtin:matching --rounds 20
//
// A new GoofspielStarter is made for each match (3 deals). act has 1 second a call (plus a
// 10-second bank per match); anything you print (System.out too) goes to your bot's log.
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

public class GoofspielStarter {
    public static final String NAME = "starter";

    public int act(JsonObject obs) {
        int prize = obs.get("prize").getAsInt();
        int theirBest = 0;
        for (JsonElement card : obs.getAsJsonArray("opponent_hand")) theirBest = Math.max(theirBest, card.getAsInt());
        int closest = -1, lowestWinner = -1, smallest = -1;
        for (JsonElement element : obs.getAsJsonArray("hand")) {  // e.g. [1, 4, 9, 12]
            int card = element.getAsInt();
            if (card > theirBest && (lowestWinner < 0 || card < lowestWinner)) lowestWinner = card;
            if (closest < 0 || Math.abs(card - prize) < Math.abs(closest - prize)) closest = card;
            if (smallest < 0 || card < smallest) smallest = card;
        }
        // a big prize: the smallest card that beats all of theirs; a small one (3 or less):
        // not worth a good card, so our smallest; else the card nearest the prize
        if (prize >= 10 && lowestWinner > 0) return lowestWinner;
        return prize <= 3 ? smallest : closest;
    }
}
