"""Where the server's dice come from: one home, beneath every app that rolls.

A real roll (a skill on R5's table, a level-up's skill, R17) uses the operating system's
randomness; the rules that roll take the dice as an injected `random.Random`, so tests
pass seeded or scripted dice instead, or swap this function for a whole request.
"""

import random


def server_dice() -> random.Random:
    """The dice of a real roll made on the server."""
    return random.SystemRandom()
