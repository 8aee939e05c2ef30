// The original Last Card kit's MoveChecker, as Card Arena gives it to Java strategies.
package com.orchestral.shark;

public interface MoveChecker {
    boolean isLegalMove(GameState gameState, Move move);
}
