// Tries to remember the deals it was shown from one match to the next in static fields. At
// its first call of each match it says on stderr, as one JSON line, how many matches its
// process has played and whether it knows this match's deal (the first cards it is shown).
import java.util.ArrayList;
import java.util.List;

public class Remembers {
    private static final List<List<String>> DEALS = new ArrayList<>();
    private static int matches = 0;
    private boolean first = true;

    public Remembers() {
        matches++;
    }

    public int draftPick(List<String> cards) {
        if (first) {
            first = false;
            System.err.println("{\"matches\": " + matches + ", \"again\": " + DEALS.contains(cards) + "}");
            DEALS.add(cards);
        }
        return 0;
    }

    public void draftReceive(String card) {
    }

    public int mainPlay(List<String> hand, String base) {
        return 0;
    }

    public void mainPostprocess(String card) {
    }
}
