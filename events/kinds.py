"""The kinds of event, each declared once with what it tells (docs/events.md lists them;
a test holds the two equal)."""

INVITED = "invited"
BATTLE_RECORDED = "battle-recorded"
AWAITING_CONFIRMATION = "battle-awaiting-confirmation"
BATTLE_CONFIRMED = "battle-confirmed"
BATTLE_VOIDED = "battle-voided"
LEVEL_UP_WAITING = "level-up-waiting"
FORCE_CHANGED = "force-changed"

KINDS: dict[str, str] = {
    INVITED: "An invitation was taken up or made: a player joined a campaign through its "
    "invitation link (to the player and the organiser), or a battle was started with your "
    "shared force and you are invited to take its side over (to you).",
    BATTLE_RECORDED: "A battle of a campaign was recorded, pending confirmation (to every "
    "player whose force took part, and the organiser).",
    AWAITING_CONFIRMATION: "A battle waits for your confirmation: you are an opponent of its "
    "recorder, or the organiser neither recording nor playing in it (R14a).",
    BATTLE_CONFIRMED: "A battle was confirmed: its XP and Resources are applied (to every "
    "player whose force took part, and the organiser).",
    BATTLE_VOIDED: "A battle was voided, pending or confirmed; a confirmed one's XP, "
    "Resources and level-ups are taken back (R15a) (to the same people).",
    LEVEL_UP_WAITING: "A confirmed battle, or new level thresholds, gave members of your "
    "force a level-up to take (R16, R17) (to the force's owner).",
    FORCE_CHANGED: "One of your forces changed: created, edited, rolled for, given XP by a "
    "battle, shared, deleted... every write that moves its version (to its owner).",
}

# Sent to a webhook by its test ping alone; never in the feed.
PING = "ping"
