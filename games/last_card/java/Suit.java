// The original Last Card kit's Suit, as Card Arena gives it to Java strategies.
package com.orchestral.shark;

public enum Suit {
    SPADES('s'), CLUBS('c'), DIAMONDS('d'), HEARTS('h');

    private final char code;

    Suit(char code) {
        this.code = code;
    }

    /** The suit's letter in the platform's card codes ("7h": hearts). */
    public char code() {
        return code;
    }

    public static Suit of(char code) {
        for (Suit suit : values()) {
            if (suit.code == code) return suit;
        }
        throw new IllegalArgumentException("no suit " + code);
    }
}
