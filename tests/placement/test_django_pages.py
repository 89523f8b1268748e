def test_plan_page_link_with_only_a_group_plans_with_defaults(admin_client, import_lab):
    from inventory.models import NodeGroup

    import_lab("demo.yaml")
    ring = NodeGroup.objects.get(members__spark__name="spark-03", auto=True, retired_at__isnull=True)
    response = admin_client.get(f"/plans/?group={ring.pk}")
    html = response.content.decode()
    assert response.status_code == 200
    assert f'<option value="{ring.pk}" selected' in html
    assert "recommended" in html.lower()
