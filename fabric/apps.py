from django.apps import AppConfig


class FabricConfig(AppConfig):
    name = "fabric"
    verbose_name = "Fabric verification and network set-up"

    def ready(self) -> None:
        # the group page lists every finding code it may show
        from topology.engine import register_finding_code

        from .nccl import FABRIC_CODES

        for code, (severity, description) in FABRIC_CODES.items():
            register_finding_code(code, severity="error" if severity == "critical" else severity,
                                  description=description)
