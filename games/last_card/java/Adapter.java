// Card Arena's adapter for the original Last Card kit: a class that implements
// CardGameStrategy plays Last Card's protocol (play(state) -> move, as JSON), its
// playCardFromHand called with the kit's GameState and its Move sent back.
package card_arena;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import com.orchestral.shark.Card;
import com.orchestral.shark.CardGameStrategy;
import com.orchestral.shark.GameState;
import com.orchestral.shark.Move;
import com.orchestral.shark.Suit;
import com.orchestral.shark.Value;
import java.util.ArrayList;
import java.util.List;

public final class Adapter {
    private Adapter() {
    }

    /** What a built jar must hold for this adapter, in a refusal's words (JarImport's). */
    public static final String TAKES = "the kit's strategy (CardGameStrategy)";

    /** Whether a class of a built jar is a bot this adapter plays: a kit strategy. */
    public static boolean accepts(Class<?> type) {
        return CardGameStrategy.class.isAssignableFrom(type);
    }

    /** The bot the host calls: a kit strategy made to play the protocol, else the bot itself. */
    public static Object wrap(Object bot) {
        return bot instanceof CardGameStrategy strategy ? new StrategyBot(strategy) : bot;
    }

    public static final class StrategyBot {
        private final CardGameStrategy strategy;

        StrategyBot(CardGameStrategy strategy) {
            this.strategy = strategy;
        }

        public JsonObject play(JsonObject state) {
            Move move = strategy.playCardFromHand(gameState(state));
            if (move == null) move = Move.PASS_MOVE;
            JsonObject answer = new JsonObject();
            JsonArray cards = new JsonArray();
            for (Card card : move.getCardsPlayed()) cards.add(card.code());
            answer.add("cards", cards);
            Suit suit = move.getSuit();
            List<Card> played = move.getCardsPlayed();
            if (suit == null && !played.isEmpty()) {
                Card last = played.get(played.size() - 1);
                if (last.getValue() == Value.ACE) suit = last.getSuit();  // the kit's default
            }
            if (suit == null) {
                answer.add("suit", JsonNull.INSTANCE);
            } else {
                answer.addProperty("suit", String.valueOf(suit.code()));
            }
            answer.addProperty("last_card", move.isLastCard());
            return answer;
        }
    }

    static GameState gameState(JsonObject state) {
        JsonElement suit = state.get("active_suit");
        List<Integer> sizes = new ArrayList<>();
        for (JsonElement size : state.getAsJsonArray("hand_sizes")) sizes.add(size.getAsInt());
        return new GameState(
                cards(state.getAsJsonArray("hand")),
                Card.of(state.get("last_played").getAsString()),
                sizes,
                state.get("deck_size").getAsInt(),
                cards(state.getAsJsonArray("played_cards")),
                suit == null || suit.isJsonNull() ? null : Suit.of(suit.getAsString().charAt(0)),
                state.get("punishment").getAsInt(),
                state.get("seat").getAsInt(),
                state.get("direction").getAsInt());
    }

    private static List<Card> cards(JsonArray codes) {
        List<Card> cards = new ArrayList<>();
        for (JsonElement code : codes) cards.add(Card.of(code.getAsString()));
        return cards;
    }
}
