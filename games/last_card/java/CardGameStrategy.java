// The original Last Card kit's strategy interface: implement it, as YourStrategy does.
package com.orchestral.shark;

public interface CardGameStrategy {
    Move playCardFromHand(GameState gameState);
}
