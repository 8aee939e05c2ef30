// The original Last Card kit's Card, as Card Arena gives it to Java strategies.
package com.orchestral.shark;

import java.util.Objects;

public final class Card {
    private final Suit suit;
    private final Value value;

    public Card(Suit suit, Value value) {
        this.suit = Objects.requireNonNull(suit);
        this.value = Objects.requireNonNull(value);
    }

    public Suit getSuit() {
        return suit;
    }

    public Value getValue() {
        return value;
    }

    /** The platform's code of the card: value then suit ("Td", "As"). */
    public String code() {
        return "" + value.code() + suit.code();
    }

    /** The card of a platform's code ("Td"). */
    public static Card of(String code) {
        return new Card(Suit.of(code.charAt(1)), Value.of(code.charAt(0)));
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Card card && card.suit == suit && card.value == value;
    }

    @Override
    public int hashCode() {
        return Objects.hash(suit, value);
    }

    @Override
    public String toString() {
        return "The " + value + " of " + suit;
    }
}
