// A starter strategy for Last Card (Card Arena), written as the original kit's guide shows:
// a class implementing CardGameStrategy, reading a GameState and returning a Move built with
// Move.Builder, checked with LastCardMoveChecker. The kit's classes are Card Arena's own
// (docs/games/last-card.md, "Java"); a strategy written for the kit runs unchanged. Run it on
// your machine, from a clone of Card Arena, at tables of four with the built-in naive bot:
//
//     .venv/bin/python manage.py arena --game last-card YourStrategy.java --fill builtin:naive --games 100
//
// A new YourStrategy is made for every game. playCardFromHand has 1 second a call (plus a
// 10-second bank per game); anything you print (System.out too) goes to your bot's log.
package com.orchestral.shark;

public class YourStrategy implements CardGameStrategy {
    public static final String NAME = "naive-java";

    private final MoveChecker moveChecker = new LastCardMoveChecker();

    @Override
    public Move playCardFromHand(final GameState gameState) {
        // The naive strategy simply plays the first playable card in its hand
        for (int i = 0; i < gameState.getMyHand().size(); i++) {
            final Move move = new Move.Builder()
                .addCardPlayed(gameState.getMyHand().get(i))

                // call last card if we currently have 2 cards left
                // (ie we will have 1 card left next turn)
                .withLastCard(gameState.getMyHand().size() == 2)
                .build();

            if (moveChecker.isLegalMove(gameState, move)) {
                return move;
            }
        }
        return Move.PASS_MOVE;
    }
}
