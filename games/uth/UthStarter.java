// A starter bot for Ultimate Texas Hold'em (Card Arena), in Java 17: one file, the standard
// library and Gson (com.google.gson), compiled by the platform with javac.
//
// Cards are two characters, rank then suit: "As", "Td", "7h" (ranks 23456789TJQKA, suits
// cdhs). Run it on your machine, from a clone of Card Arena, next to the built-in basic bot:
//
//     .venv/bin/python manage.py arena --game uth UthStarter.java builtin:basic --sessions 5
//
// A new UthStarter is made for each session. act has 1 second a call (plus a 10-second bank
// per session) and returns action text such as "[4x]"; anything you print (System.out too)
// goes to your bot's log.
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

public class UthStarter {
    public static final String NAME = "starter";
    private static final String RANKS = "23456789TJQKA";

    public String act(JsonObject obs) {
        var legal = obs.getAsJsonArray("legal");
        if (legal.size() == 1 && legal.get(0).getAsString().equals("[skip]")) return "[skip]";
        String first = obs.getAsJsonArray("hole").get(0).getAsString();
        String second = obs.getAsJsonArray("hole").get(1).getAsString();
        int high = Math.max(RANKS.indexOf(first.charAt(0)), RANKS.indexOf(second.charAt(0)));
        boolean pocketPair = first.charAt(0) == second.charAt(0);
        boolean paired = pocketPair;
        for (JsonElement shown : obs.getAsJsonArray("board")) {
            char rank = shown.getAsString().charAt(0);
            paired = paired || rank == first.charAt(0) || rank == second.charAt(0);
        }
        String phase = obs.get("phase").getAsString();
        if (phase.equals("pre_flop")) return pocketPair || high == RANKS.indexOf('A') ? "[4x]" : "[check]";
        if (phase.equals("flop")) return paired ? "[2x]" : "[check]";
        return paired || high >= RANKS.indexOf('K') ? "[1x]" : "[fold]";
    }
}
