// The original Last Card kit's Value, as Card Arena gives it to Java strategies.
package com.orchestral.shark;

public enum Value {
    ACE('A'), TWO('2'), THREE('3'), FOUR('4'), FIVE('5'), SIX('6'), SEVEN('7'), EIGHT('8'),
    NINE('9'), TEN('T'), JACK('J'), QUEEN('Q'), KING('K');

    private final char code;

    Value(char code) {
        this.code = code;
    }

    /** The value's letter in the platform's card codes ("Td": ten). */
    public char code() {
        return code;
    }

    public static Value of(char code) {
        for (Value value : values()) {
            if (value.code == code) return value;
        }
        throw new IllegalArgumentException("no value " + code);
    }
}
