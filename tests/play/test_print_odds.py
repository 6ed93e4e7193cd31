"""The print card's odds come from the table's maths: each weapon against DF 6 to 16 and
each spell's outcome tiers."""

import pytest
from django.test import Client

from tests.play.conftest import play_force

pytestmark = pytest.mark.django_db


def test_print_card_shows_weapon_and_spell_odds(alice):
    force = play_force(alice, "Printed")
    client = Client()
    client.force_login(alice)
    page = client.get(f"/forces/{force.pk}/print/").content.decode()
    # Ann: RA 4, Light Pistol: needs DF - 4, so 92% at DF 6 ... 8% at DF 16.
    row = page.split("Light Pistol <span")[1].split("</tr>")[0]
    cells = [c.split(">")[1] for c in row.split("<td")[1:]]
    assert [int(c.split("<")[0]) for c in cells] == [
        92,
        83,
        75,
        67,
        58,
        50,
        42,
        33,
        25,
        17,
        8,
    ]
    # Submachine Gun (ACC -1): a step harder.
    smg = page.split("Submachine Gun <span")[1].split("</tr>")[0]
    assert [int(c.split(">")[1].split("<")[0]) for c in smg.split("<td")[1:]][:2] == [83, 75]
    # Emma: CA 4, Healing Spring at Difficulty 7, each die 1/2: none 1/16, 1-2 10/16,
    # 3+ 5/16.
    assert "no effect 6% · 1-2 successes 63% · 3+ successes 31%" in page
