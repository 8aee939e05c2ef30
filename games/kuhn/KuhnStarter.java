// A starter bot for Kuhn poker (Card Arena), in Java 17: one file, the standard library and
// Gson (com.google.gson), compiled by the platform with javac.
//
// Three cards J < Q < K; each player antes 1 chip and gets one card. The first to act checks
// ("p") or bets 1 ("b"); facing a bet you fold ("p") or call ("b"). Run it on your machine,
// from a clone of Card Arena, against the built-in CFR bot:
//
//     .venv/bin/python manage.py arena --game kuhn KuhnStarter.java builtin:cfr --rounds 20
//
// A new KuhnStarter is made for each match (100 hands). act has 1 second a call (plus a
// 10-second bank per match); anything you print (System.out too) goes to your bot's log.
import com.google.gson.JsonObject;
import java.util.Random;

public class KuhnStarter {
    public static final String NAME = "starter";

    private final Random random = new Random();

    public String act(JsonObject obs) {
        String card = obs.get("card").getAsString();  // e.g. "Q"
        String history = obs.get("history").getAsString();  // e.g. "pb"
        if (history.endsWith("b")) {  // facing a bet: call with the king, sometimes the queen
            return card.equals("K") || (card.equals("Q") && random.nextDouble() < 0.3) ? "b" : "p";
        }
        if (card.equals("K")) return "b";
        if (card.equals("J")) return random.nextDouble() < 0.2 ? "b" : "p";  // bluff now and then
        return "p";
    }
}
