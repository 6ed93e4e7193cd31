"""Builders for the table's pure tests (`play.table`), no database: a figure's numbers, a
planned attack, the problems of a refusal, and a battle on the table run one action at a
time as the service runs it."""

import json

from dbd_site.errors import Problem
from play import table
from play.table.attacks import AttackDeclaration, Situation
from play.table.figures import Figure
from tests.play.conftest import Dice


def figure(
    name="Hank",
    *,
    ME=3,
    RA=2,
    CA=2,
    DF=8,
    HP=10,
    FR=5,
    defence=None,
    skills=(),
    equipment=(),
    spells=(),
    spell_focus=False,
    mastery=None,
):
    return Figure(
        name=name,
        stats={"ME": ME, "RA": RA, "CA": CA, "DF": DF, "HP": HP, "FR": FR},
        defence=defence or {"melee": DF, "ranged": DF},
        skills=frozenset(skills),
        equipment=tuple(equipment),
        spells=tuple(spells),
        spell_focus=spell_focus,
        mastery=mastery,
    )


def plan(catalogue, attacker, target, kind, weapon, situation=None, mode=0):
    return table.attacks.plan_attack(
        attacker,
        target,
        kind,
        weapon,
        situation or Situation(),
        equipment=catalogue.equipment,
        mode=mode,
    )


def codes(error):
    return [(p.pointer, p.code) for p in error.value.problems]


def problems(error) -> list[Problem]:
    """Every problem of a refusal, whole: pointer, code and message."""
    return list(error.value.problems)


def decoded(value):
    """`value` as the battle stores it and reads it back (JSON): its strings are new
    objects, as a stored status or a declared kind is when an action reads it."""
    return json.loads(json.dumps(value))


class Battle:
    """A battle on the table, no database: the figures by id ("a1" on side 0...), one
    action at a time, each on the state as stored (read back from JSON, as the service
    reads it) and kept only if the action is."""

    def __init__(self, catalogue, **figures):
        self.catalogue = catalogue
        self.figures = {fid: f for fid, (_, f) in figures.items()}
        self.state = table.state.new_state(figures)
        self.seq = 1
        self.last: table.state.Table | None = None

    def stored(self) -> table.state.BattleState:
        """The state as the next action reads it."""
        return decoded(self.state)

    def __call__(self, rule, declared=None, *, faces=(), entered=None, player=None):
        rng = Dice(*faces) if faces else Dice(1)
        t = table.state.Table(
            state=self.stored(),
            figures=self.figures,
            sides=["Red", "Blue"],
            dice=table.dice.Dice(rng, entered),
            catalogue=self.catalogue,
            seq=self.seq + 1,
            player_sides=None if player is None else frozenset({player}),
        )
        outcome = table.decisions.run(t, rule, declared)
        t.dice.finish()
        if faces:
            assert len(t.dice.rolled) == len(faces), (t.dice.rolled, faces)
        self.state, self.seq, self.last = t.state, self.seq + 1, t
        return outcome

    def __getitem__(self, fid):
        return self.state["figures"][fid]

    def attack(self, attacker, target, kind, weapon, *faces, entered=None, **situation):
        declared = AttackDeclaration(
            attacker, target, *decoded([kind, weapon]), 0, Situation(**situation)
        )  # the kind and weapon as the API decodes them
        return self(table.attacks.attack, declared, faces=faces, entered=entered)

    def cast(self, caster, spell, *faces, target=None, entered=None, **options):
        declared = table.spells.Cast(caster, spell, target, **options)
        return self(table.spells.cast_spell, declared, faces=faces, entered=entered)

    def activated(self, fid):
        return self(table.turn.end_activation_of, table.turn.Activation(fid))

    def new_turn(self):
        return self(table.turn.new_turn)

    def passes(self, decision=None):
        return self(table.decisions.pass_decision, table.decisions.Answer(decision))

    def plan(self, attacker, target, kind, weapon, **situation):
        declared = AttackDeclaration(attacker, target, kind, weapon, 0, Situation(**situation))
        return table.attacks.plan_declared(
            self.stored(), self.figures, declared, self.catalogue.equipment
        )
