// A starter bot for Blackjack++ (Card Arena), in Java 17: one file, the standard library and
// Gson (com.google.gson), compiled by the platform with javac.
//
// You, the other player and the dealer each have an up card and a down card; you see the up
// cards and your own down card. Players act in turn: "hit" (draw a card, face up) or "stand";
// you are done when you stand, bust (over 21) or have hit max_hits times. The dealer then
// draws to 17. The three hands are ranked (a bust hand below any other) for 2, 1 and 0
// points; your payoff is your points minus the other player's. Run it on your machine, from
// a clone of Card Arena, against a built-in bot:
//
//     .venv/bin/python manage.py arena --game blackjack-pp BlackjackStarter.java builtin:simple --rounds 10
//
// A new BlackjackStarter is made for each match (50 deals). act has 1 second a call (plus a
// 10-second bank per match); anything you print (System.out too) goes to your bot's log.
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

public class BlackjackStarter {
    public static final String NAME = "starter";

    public String act(JsonObject obs) {
        int total = obs.get("total").getAsInt();  // yours, an ace counted 11 where it does not bust
        if (total <= 11) return "hit";  // no card can bust you
        int other = 1 - obs.get("position").getAsInt();
        int shown = value(obs.getAsJsonArray("up").get(other).getAsString());
        for (JsonElement card : obs.getAsJsonArray("hits").get(other).getAsJsonArray()) {
            shown += value(card.getAsString());
        }
        if (total >= 17) return "stand";
        return shown + 6 > total ? "hit" : "stand";
    }

    // A card's value: "As" is 1 (an ace may count 11), "Td", "Jh", "Qc", "Ks" are 10.
    private static int value(String card) {
        char rank = card.charAt(0);
        if (rank == 'A') return 1;
        return "TJQK".indexOf(rank) >= 0 ? 10 : rank - '0';
    }
}
