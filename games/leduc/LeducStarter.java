// A starter bot for Leduc hold'em (Card Arena), in Java 17: one file, the standard library
// and Gson (com.google.gson), compiled by the platform with javac.
//
// Six cards, J, Q and K in two suits ("Js", "Qh"...). Each player antes 1 and gets one card;
// a betting round; a public card is turned; a second betting round. Actions: "f" folds (only
// facing a raise), "c" checks or calls, "r" raises (2 in the first round, 4 in the second, at
// most two raises a round). A pair with the public card wins, else the higher card. Run it on
// your machine, from a clone of Card Arena, against the built-in CFR bot:
//
//     .venv/bin/python manage.py arena --game leduc LeducStarter.java builtin:cfr --rounds 20
//
// A new LeducStarter is made for each match (100 hands). act has 1 second a call (plus a
// 10-second bank per match); anything you print (System.out too) goes to your bot's log.
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.util.ArrayList;
import java.util.List;

public class LeducStarter {
    public static final String NAME = "starter";

    public String act(JsonObject obs) {
        List<String> legal = new ArrayList<>();  // e.g. ["f", "c", "r"]
        for (JsonElement action : obs.getAsJsonArray("legal")) legal.add(action.getAsString());
        char rank = obs.get("card").getAsString().charAt(0);
        boolean turned = !obs.get("board").isJsonNull();  // null before the public card is turned
        char board = turned ? obs.get("board").getAsString().charAt(0) : ' ';
        boolean strong = (turned && board == rank) || (!turned && rank == 'K');
        if (strong) return legal.contains("r") ? "r" : "c";
        boolean weak = strength(rank) == 0 || (turned && strength(board) > strength(rank));
        if (weak && legal.contains("f")) return "f";
        return "c";
    }

    private static int strength(char rank) {
        return "JQK".indexOf(rank);
    }
}
