// The original Last Card kit's Move, as Card Arena gives it to Java strategies: the cards you
// play (none: a pass), the suit you choose with an ace, and whether you call last card.
package com.orchestral.shark;

import java.util.ArrayList;
import java.util.List;

public final class Move {
    /** The move that plays nothing: you draw a card, or take the pending punishment. */
    public static final Move PASS_MOVE = new Move(List.of(), null, false);

    private final List<Card> cardsPlayed;
    private final Suit suit;
    private final boolean lastCard;

    private Move(List<Card> cardsPlayed, Suit suit, boolean lastCard) {
        this.cardsPlayed = List.copyOf(cardsPlayed);
        this.suit = suit;
        this.lastCard = lastCard;
    }

    public List<Card> getCardsPlayed() {
        return cardsPlayed;
    }

    /** The suit chosen with an ace played last (null: none chosen). */
    public Suit getSuit() {
        return suit;
    }

    public boolean isLastCard() {
        return lastCard;
    }

    @Override
    public String toString() {
        return cardsPlayed.isEmpty() ? "pass" : "play " + cardsPlayed
                + (suit == null ? "" : " choosing " + suit) + (lastCard ? " and call last card" : "");
    }

    public static class Builder {
        private final List<Card> cards = new ArrayList<>();
        private Suit suit;
        private boolean lastCard;

        public Builder addCardPlayed(Card card) {
            cards.add(card);
            return this;
        }

        public Builder withSuit(Suit suit) {
            this.suit = suit;
            return this;
        }

        public Builder withLastCard(boolean lastCard) {
            this.lastCard = lastCard;
            return this;
        }

        public Move build() {
            return new Move(cards, suit, lastCard);
        }
    }
}
