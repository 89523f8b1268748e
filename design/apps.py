from django.apps import AppConfig


class DesignConfig(AppConfig):
    name = "design"
    verbose_name = "Lab designer"
