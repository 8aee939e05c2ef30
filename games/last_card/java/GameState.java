// The original Last Card kit's GameState, as Card Arena gives it to Java strategies: a game
// of last card at one point in time, as the player to move sees it.
package com.orchestral.shark;

import java.util.List;

public final class GameState {
    private final List<Card> myHand;
    private final Card lastPlayedCard;
    private final List<Integer> playerHandSizes;
    private final int deckSize;
    private final List<Card> playedCards;
    private final Suit chosenSuit;
    private final int punishmentCards;
    private final int seat;
    private final int direction;

    public GameState(List<Card> myHand, Card lastPlayedCard, List<Integer> playerHandSizes,
            int deckSize, List<Card> playedCards, Suit chosenSuit, int punishmentCards, int seat,
            int direction) {
        this.myHand = List.copyOf(myHand);
        this.lastPlayedCard = lastPlayedCard;
        this.playerHandSizes = List.copyOf(playerHandSizes);
        this.deckSize = deckSize;
        this.playedCards = List.copyOf(playedCards);
        this.chosenSuit = chosenSuit;
        this.punishmentCards = punishmentCards;
        this.seat = seat;
        this.direction = direction;
    }

    /** Your hand: you play some of these cards. */
    public List<Card> getMyHand() {
        return myHand;
    }

    /** The last played card: you generally have to match its suit or value. */
    public Card getLastPlayedCard() {
        return lastPlayedCard;
    }

    /** The number of cards in each player's hand, by seat. */
    public List<Integer> getPlayerHandSizes() {
        return playerHandSizes;
    }

    /** The number of cards in the deck. */
    public int getDeckSize() {
        return deckSize;
    }

    /** The cards played, in order (the pile but its top is shuffled back when the deck runs out). */
    public List<Card> getPlayedCards() {
        return playedCards;
    }

    /** The suit chosen with the ace on top (null when the last played card is no ace). */
    public Suit getChosenSuit() {
        return chosenSuit;
    }

    /** The cards you pick up if you pass (or make an illegal move): a pending 2 or 5; 0 if none. */
    public int getPunishmentCards() {
        return punishmentCards;
    }

    /** Your seat at the table (Card Arena's, not the kit's). */
    public int getSeat() {
        return seat;
    }

    /** The direction of play: 1, or -1 after a jack (Card Arena's, not the kit's). */
    public int getDirection() {
        return direction;
    }
}
