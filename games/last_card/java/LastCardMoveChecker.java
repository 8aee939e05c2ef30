// The original Last Card kit's move checker, as Card Arena gives it to Java strategies: the
// rules of games/last_card/movecheck.py, which the arena judges every move with, in Java.
// Like the kit's, it cannot know whether you called last card on your previous turn:
// emptying your hand without that call is legal here (it costs two cards in the game); and
// an ace needs no suit chosen (Move.Builder's withSuit): it then keeps its own.
package com.orchestral.shark;

import java.util.HashSet;
import java.util.List;

public class LastCardMoveChecker implements MoveChecker {
    @Override
    public boolean isLegalMove(GameState gameState, Move move) {
        return problem(gameState, move) == null;
    }

    /** Why the move is illegal in the state, in the arena's words; null if it is legal. */
    public String problem(GameState state, Move move) {
        List<Card> cards = move.getCardsPlayed();
        if (cards.isEmpty()) return null;  // a pass is always allowed
        if (cards.size() > 4) return "at most 4 cards may be played in a move, not " + cards.size();
        for (Card card : cards) {
            if (!state.getMyHand().contains(card)) return card + " is not a card in your hand";
        }
        if (new HashSet<>(cards).size() != cards.size()) return "the same card is played twice";
        Card first = cards.get(0);
        Card last = cards.get(cards.size() - 1);
        for (Card card : cards) {
            if (card.getValue() != first.getValue()) return "all the cards of a move must have the same value";
        }
        Card top = state.getLastPlayedCard();
        if (state.getPunishmentCards() > 0) {
            if (first.getValue() != top.getValue()) {
                if (first.getValue() == Value.ACE) return "an ace cannot cancel a punishment";
                if (first.getSuit() == top.getSuit()) {
                    return "can't just play the same suit on a 2/5 to avoid punishment";
                }
                return "only a " + top.getValue() + " may be played on a pending punishment";
            }
        } else if (first.getValue() != Value.ACE) {
            if (top.getValue() == Value.ACE && state.getChosenSuit() != null) {
                if (first.getSuit() != state.getChosenSuit()) {
                    // (in the words of games/last_card/movecheck.py)
                    String suit = state.getChosenSuit().name().toLowerCase();
                    String one = suit.substring(0, suit.length() - 1);  // "spade"
                    return "the ace on top asks for " + suit + " and the " + name(first)
                            + " is not a " + one + ": play a " + one
                            + " or an ace, or pass and draw a card";
                }
            } else if (first.getSuit() != top.getSuit() && first.getValue() != top.getValue()) {
                // (a card says itself as "The KING of CLUBS", as in the kit)
                return first + " matches neither the suit nor the value of t"
                        + top.toString().substring(1);
            }
        }
        // an ace played without a suit chosen keeps its own suit, as in the kit
        if (last.getValue() == Value.ACE && cards.size() == state.getMyHand().size()) {
            return "you cannot end on an ace";
        }
        return null;
    }

    /** A card as people read it, as movecheck.py's card_name says it: "10 of diamonds". */
    private static String name(Card card) {
        String value = switch (card.getValue()) {
            case ACE -> "ace";
            case TEN -> "10";
            case JACK -> "jack";
            case QUEEN -> "queen";
            case KING -> "king";
            default -> String.valueOf(card.getValue().code());
        };
        return value + " of " + card.getSuit().name().toLowerCase();
    }
}
