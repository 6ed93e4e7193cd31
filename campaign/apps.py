from django.apps import AppConfig


class CampaignConfig(AppConfig):
    name = "campaign"

    def ready(self) -> None:
        # Campaign copies of forces are judged by the campaign's rules on every write
        # (R17a, R18a); the roster's write path asks through this registry, so the
        # roster app never imports this one.
        from campaign.policy import POLICY_CODES, policy_for_force
        from roster import policy

        policy.register(policy_for_force, POLICY_CODES)
