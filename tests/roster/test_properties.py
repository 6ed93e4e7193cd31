"""Property tests: the engine and the validation endpoint hold up under any input."""

import dataclasses

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from roster import documents
from roster.engine import FIRST_READ, MemberWhatIf, evaluate
from rules.loader import get_catalogue

pytestmark = pytest.mark.django_db

FIXTURE_SETTINGS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

any_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.text(max_size=12), children, max_size=4)
    ),
    max_leaves=20,
)

STATISTICS = ["ME", "RA", "CA", "DF", "HP", "FR"]
SKILLS = [
    "movement/catfall",
    "movement/determination",
    "melee/dual-wield",
    "ranged/dual-wield",
    "spellcasting/spell-focus",
    "spellcasting/supreme-spell-mastery",
    "spellcasting/spell-dilettante",
    "spellcasting/dragon-slayer",
    "spellcasting/additional-spell-slot",
    "support/extreme-determination",
    "technical/camera-hack",
    "nope/nothing",
]
EQUIPMENT = [
    "simple-weapon",
    "hand-weapon",
    "heavy-weapon-2h",
    "great-weapon",
    "light-pistol",
    "sniper-rifle",
    "light-machine-gun",
    "light-armour",
    "heavy-armour",
    "light-shield",
    "heavy-shield",
    "medical-kit",
    "tool-kit",
    "banana",
]
SPELLS = [
    "healing-spring",
    "clock-down",
    "seraphic-bolt",
    "eagle-eye",
    "dragon-slayer",
    "unerring-fates-arrow",
    "made-up",
]
SCHOOLS = ["restoration", "manipulation", "destruction", "amplification", "necromancy"]

names = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=1, max_size=12
).filter(str.strip)


@st.composite
def advancements(draw):
    advancement = {"line": draw(st.integers(1, 6))}
    if draw(st.booleans()):
        advancement["choice"] = draw(st.sampled_from(STATISTICS))
    if draw(st.booleans()):
        advancement["skill"] = draw(st.sampled_from(SKILLS))
        advancement["method"] = draw(st.sampled_from(["rolled", "picked"]))
        if draw(st.booleans()):
            advancement["rerolls"] = draw(st.integers(1, 4))
        if draw(st.booleans()):
            advancement["natural_12"] = True
    return advancement


purchases = st.one_of(
    st.fixed_dictionaries(
        {"line": st.integers(1, 6)},
        optional={"choice": st.sampled_from(STATISTICS), "between_battles": st.just(True)},
    ),
    st.fixed_dictionaries(
        {"skill": st.sampled_from(SKILLS)}, optional={"between_battles": st.just(True)}
    ),
)


@st.composite
def members(draw, *, canonical: bool = False):
    base_values = draw(
        st.one_of(st.permutations([3, 2, 2, 1]), st.lists(st.integers(-2, 7), min_size=4))
    )
    member = {
        "name": draw(names),
        "club": {
            "name": draw(names),
            "society": draw(st.sampled_from(["academic", "sporting", "technical", "drama"])),
            "choice": draw(st.sampled_from(STATISTICS)),
        },
        "base": dict(zip(["ME", "RA", "CA", "DF"], base_values[:4], strict=True)),
    }
    optional = {
        "role": st.sampled_from(["student", "student", "mentor"]),
        "free_advancements": st.lists(advancements(), max_size=3),
        "purchases": st.lists(purchases, max_size=4),
        "equipment": st.lists(st.sampled_from(EQUIPMENT), max_size=4),
        "core_schools": st.lists(st.sampled_from(SCHOOLS), max_size=2),
        "spells": st.lists(st.sampled_from(SPELLS), max_size=4),
        "spell_focus": st.booleans(),
        "mastery": st.none() | st.sampled_from(SPELLS),
        "xp": st.integers(0, 70),
        "level_ups": st.lists(advancements(), max_size=3),
    }
    for key, strategy in optional.items():
        if canonical or draw(st.booleans()):
            member[key] = draw(strategy)
    return member


@st.composite
def rosters(draw, *, canonical: bool = False):
    return {
        "format": "dbd-roster/1",
        "name": draw(names),
        "resources": draw(st.integers(1, 200)),
        "members": draw(st.lists(members(canonical=canonical), max_size=8)),
    }


def canonical_advancement(advancement: dict) -> dict:
    return {k: v for k, v in advancement.items() if not (k == "rerolls" and v == 0)}


@st.composite
def near_valid(draw):
    """A roster with one value swapped for junk, deep inside or at the top."""
    document = draw(rosters())
    junk = draw(any_json)
    if document["members"] and draw(st.booleans()):
        member = draw(st.sampled_from(document["members"]))
        member[draw(st.sampled_from([*member.keys(), "extra"]))] = junk
    else:
        document[draw(st.sampled_from(["format", "name", "resources", "members", "x"]))] = junk
    return document


@FIXTURE_SETTINGS
@given(value=any_json)
def test_any_json_value_never_makes_the_engine_raise(catalogue, value):
    evaluation = evaluate(value, catalogue)
    assert evaluation.malformed or evaluation.resources is not None


@FIXTURE_SETTINGS
@given(document=st.one_of(rosters(), near_valid()))
def test_near_valid_documents_never_make_the_engine_raise(catalogue, document):
    evaluation = evaluate(document, catalogue)
    if evaluation.malformed:
        assert not evaluation.members
        return
    assert evaluation.valid == (not evaluation.errors)
    assert evaluation.total_cost == sum(m.cost["total"] for m in evaluation.members)
    for member in evaluation.members:
        assert member.cost["total"] == member.cost["advancements"] + member.cost["equipment"]
        assert member.cost["advancements"] == sum(member.purchase_costs)
        assert member.cost["equipment"] == sum(member.equipment_costs)
        assert member.defence["melee"] <= 16
        assert member.defence["ranged"] <= 16
    for problem in evaluation.errors + evaluation.warnings:
        assert problem.pointer == "" or problem.pointer.startswith("/")
        assert problem.message


@FIXTURE_SETTINGS
@given(document=rosters(canonical=True))
def test_export_of_import_is_the_same_document(document):
    for member in document["members"]:
        member["free_advancements"] = [
            canonical_advancement(a) for a in member["free_advancements"]
        ]
        member["level_ups"] = [canonical_advancement(a) for a in member["level_ups"]]
    assert documents.export(documents.parse(document)) == document


@FIXTURE_SETTINGS
@given(document=rosters())
def test_export_is_canonical_and_keeps_the_evaluation(catalogue, document):
    exported = documents.export(documents.parse(document))
    assert documents.export(documents.parse(exported)) == exported
    assert evaluate(exported, catalogue).as_dict() == evaluate(document, catalogue).as_dict()


@FIXTURE_SETTINGS
@given(value=st.one_of(any_json, rosters(), near_valid()))
def test_fast_and_explaining_validators_agree(value):
    problems = documents.shape_problems(value)
    strict_errors = list(documents._VALIDATOR.iter_errors(value))
    assert bool(problems) == bool(strict_errors)


@FIXTURE_SETTINGS
@given(body=st.one_of(any_json, rosters(), near_valid()))
def test_validation_endpoint_never_answers_500(client, body):
    get_catalogue()
    response = client.post("/api/v1/rosters/validate/", body, content_type="application/json")
    assert response.status_code in (200, 400)
    payload = response.json()
    if response.status_code == 400:
        assert payload["errors"]
        assert all({"pointer", "code", "message"} <= set(e) for e in payload["errors"])
    else:
        assert payload["valid"] == (not payload["errors"])


@FIXTURE_SETTINGS
@given(
    original=members(),
    other=members(),
    swapped=st.sets(st.sampled_from(sorted(documents.MEMBER_SCHEMA["properties"]))),
    resources=st.integers(1, 200),
)
def test_a_what_if_resumed_from_a_snapshot_matches_a_full_evaluation(
    catalogue, original, other, swapped, resources
):
    """MemberWhatIf starts a variant at the first step reading a changed field (FIRST_READ);
    whatever fields change, the answer is the one a whole evaluation gives."""
    variant = {**original, **{k: other[k] for k in swapped if k in other}}
    try:
        parsed_original = documents.parse_member(original)
        parsed_variant = documents.parse_member(variant)
    except documents.MalformedDocument:
        assume(False)
    # The what-if's way to the variant: only the swapped properties read again.
    swapped_values = {k: other[k] for k in swapped if k in other}
    assert documents.with_fields(parsed_original, swapped_values) == parsed_variant
    explorer = MemberWhatIf(parsed_original, catalogue, resources=resources)
    whole = {"format": documents.FORMAT, "name": "W", "resources": resources}
    assert (
        explorer.evaluate(parsed_variant).as_dict()
        == evaluate({**whole, "members": [variant]}, catalogue).as_dict()
    )
    assert (
        explorer.evaluate().as_dict()
        == evaluate({**whole, "members": [original]}, catalogue).as_dict()
    )


def test_every_member_field_has_the_step_that_first_reads_it():
    assert set(FIRST_READ) == {f.name for f in dataclasses.fields(documents.Member)}
