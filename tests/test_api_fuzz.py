"""schemathesis against the whole OpenAPI schema: no 500s, answers that match the schema,
bad input refused with 4xx. Authenticated as a real user, with that user's data present."""

import pytest
import schemathesis
from django.core import signals
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from accounts.tokens import create_api_token
from campaign import services as campaign_services
from roster import services as roster_services
from tests.campaign.conftest import record
from tests.roster.builders import emma, force, student

# Ids of the fuzzing user's own objects, so some requests reach real data, not only 404s.
KNOWN: dict[str, list[int]] = {}


# Building the schema needs no database, so it is loaded once, when the module is.
schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", get_wsgi_application())


@schemathesis.hook
def flatmap_path_parameters(context, path_parameters):
    """Half the time, point path parameters at the fuzzing user's own objects."""
    # Negative cases carry values of the wrong type on purpose: leave those untouched.
    if not path_parameters or not all(type(v) is int for v in path_parameters.values()):
        return st.just(path_parameters)
    known = {k: st.sampled_from(v) for k, v in KNOWN.items() if k in path_parameters and v}
    if not known:
        return st.just(path_parameters)
    return st.one_of(
        st.just(path_parameters),
        st.fixed_dictionaries({k: st.just(v) for k, v in path_parameters.items()} | known),
    )


@pytest.fixture(autouse=True)
def _keep_the_test_connection():
    """schemathesis calls the WSGI app directly, so Django's request signals would close
    the database connection mid-test (PostgreSQL); Django's own test client unhooks them
    the same way."""
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


@pytest.fixture
def fuzzer(django_user_model):
    """A player with a token, a legal force, and a campaign with two forces in it."""
    user = django_user_model.objects.create_user("fuzzer", password="pw-fuzzer-12345")
    rival = django_user_model.objects.create_user("rival", password="pw-rival-12345")
    _, token = create_api_token(user=user, name="fuzzing")
    document = force(emma(), student("Ann"), student("Ben"), student("Cat"))
    mine = roster_services.import_force(owner=user, document=document)
    theirs = roster_services.import_force(owner=rival, document=document)
    campaign = campaign_services.create_campaign(organiser=user, name="Fuzz League")
    campaign_services.join_campaign(user=rival, token=campaign.invite_token)
    red = campaign_services.enter_force(campaign=campaign, player=user, force=mine)
    blue = campaign_services.enter_force(campaign=campaign, player=rival, force=theirs)
    battle = record(campaign, rival, red, blue, winner=None)  # pending: the fuzzer may confirm
    KNOWN.clear()
    KNOWN.update(
        force_id=[mine.pk, red.force_id],
        member_index=[0, 1],
        campaign_id=[campaign.pk],
        campaign_force_id=[red.pk, blue.pk],
        member_id=list(red.force.members.values_list("pk", flat=True)),
        battle_id=[battle.pk],
        level_up_index=[0],
    )
    # The in-process transport does not undo gzip; compression has its own tests.
    return {"Authorization": f"Token {token}", "Accept-Encoding": "identity"}


@schema.parametrize()
@settings(
    max_examples=25,
    deadline=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
@pytest.mark.django_db
def test_api_holds_up_under_generated_requests(case, fuzzer):
    case.call_and_validate(headers=fuzzer)
