"""docker-compose.yml and the Dockerfile, checked without Docker: every tenderflow command in the
compose file parses as a real CLI command (typer's click group, options included), every variable
handed to tenderflow is a setting it knows (or a standard AWS variable), and the wiring holds
(health checks behind `service_healthy`, one-shots behind `service_completed_successfully`)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
import typer.main
import yaml

from tenderflow.cli import app
from tenderflow.config import Settings

ROOT = Path(__file__).resolve().parent.parent
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
SERVICES: dict[str, dict[str, Any]] = COMPOSE["services"]
TENDERFLOW_SERVICES = {name: s for name, s in SERVICES.items() if s.get("image", "").startswith("tenderflow")}
# Read by boto3 itself (tenderflow passes S3 credentials through, never handles them).
STANDARD_AWS_VARIABLES = {
    "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_DEFAULT_REGION", "AWS_REGION",
    "AWS_PROFILE", "AWS_CA_BUNDLE", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3",
}


def settings_variables() -> set[str]:
    """Every environment variable the Settings object reads: TENDERFLOW_<FIELD> and the aliases."""
    names = set()
    for field_name, field in Settings.model_fields.items():
        names.add(f"TENDERFLOW_{field_name.upper()}")
        alias = field.validation_alias
        if alias is not None:
            names.update(str(choice) for choice in getattr(alias, "choices", [alias]))
    return names


def resolve_command(args: list[str]) -> Any:
    """Parse `tenderflow <args>` the way the CLI would, down to the leaf command, options included;
    a usage error (unknown command or option) raises as it would for a user, with exit code 2.

    Typer's command objects are click's (recent typer vendors its own copy), so groups are told
    apart by what they can do rather than by class.
    """
    command: Any = typer.main.get_command(app)
    context = command.make_context("tenderflow", list(args))
    while hasattr(command, "resolve_command"):
        remaining = [*getattr(context, "_protected_args", []), *context.args]
        name, sub, rest = command.resolve_command(context, remaining)
        assert sub is not None and name is not None, f"no command in {args}"
        context = sub.make_context(name, rest, parent=context)
        command = sub
    return command


def test_the_tenderflow_services_are_all_there() -> None:
    assert set(TENDERFLOW_SERVICES) == {"migrate", "api", "worker-ocr", "worker-extract"}
    assert {"postgres", "minio", "create-bucket"} <= set(SERVICES)


@pytest.mark.parametrize("name", sorted(TENDERFLOW_SERVICES))
def test_each_services_command_exists_in_the_cli(name: str) -> None:
    args = TENDERFLOW_SERVICES[name]["command"]
    command = resolve_command(args)
    assert command.callback is not None and command.name in args and not hasattr(command, "resolve_command")


@pytest.mark.parametrize("args", [["worker", "--pools", "ocr"], ["db", "migrat"], ["serve", "--hots", "x"]])
def test_the_command_check_catches_a_typo(args: list[str]) -> None:
    with pytest.raises(Exception) as refused:  # click's UsageError, whichever copy of click typer uses
        resolve_command(args)
    assert getattr(refused.value, "exit_code", None) == 2, refused.value


def test_every_variable_handed_to_tenderflow_is_a_setting_or_a_standard_aws_variable() -> None:
    known = settings_variables() | STANDARD_AWS_VARIABLES
    assert "DATABASE_URL" in known and "TENDERFLOW_ADMIN_TOKEN" in known
    for name, service in TENDERFLOW_SERVICES.items():
        variables = set(service.get("environment", {}))
        assert variables, name
        assert variables <= known, f"{name}: unknown variables {sorted(variables - known)}"
        for variable, value in service["environment"].items():
            assert isinstance(value, str), f"{name}: {variable} should be a string, not {type(value).__name__}"
        # Every value must also pass the settings' own validation.
        values = {key: value for key, value in service["environment"].items()
                  if key.startswith("TENDERFLOW_") and "${" not in value}
        Settings.model_validate({key.removeprefix("TENDERFLOW_").lower(): value for key, value in values.items()})


def test_dependencies_wait_for_health_and_for_one_shots_to_finish() -> None:
    for name, service in SERVICES.items():
        for dependency, rule in (service.get("depends_on") or {}).items():
            assert dependency in SERVICES, f"{name} depends on unknown {dependency}"
            condition = rule["condition"]
            if condition == "service_healthy":
                assert "healthcheck" in SERVICES[dependency], f"{dependency} has no health check"
            else:
                assert condition == "service_completed_successfully", (name, dependency, condition)
                assert SERVICES[dependency].get("restart") == "no", f"{dependency} is a one-shot: restart 'no'"
    for name in ("postgres", "minio", "api", "worker-ocr", "worker-extract"):
        assert "healthcheck" in SERVICES[name], name
    assert SERVICES["postgres"]["healthcheck"]["test"][1] == "pg_isready"
    assert SERVICES["migrate"]["command"] == ["db", "migrate"]
    assert SERVICES["api"]["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    pools = {tuple(SERVICES[n]["command"][:3]) for n in ("worker-ocr", "worker-extract")}
    assert pools == {("worker", "--pool", "ocr"), ("worker", "--pool", "extract")}


def test_the_dockerfile_installs_tesseract_languages_poppler_and_the_package() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    for package in ("tesseract-ocr", "tesseract-ocr-eng", "tesseract-ocr-deu", "tesseract-ocr-fra",
                    "tesseract-ocr-osd", "poppler-utils"):
        assert re.search(rf"\s{re.escape(package)}(\s|\\)", dockerfile), package
    assert re.search(r"pip install .*\s\.(\s|$)", dockerfile)
    assert 'ENTRYPOINT ["tenderflow"]' in dockerfile
    for name, service in TENDERFLOW_SERVICES.items():
        assert service.get("build") == "." and service["image"] == f"tenderflow:{VERSION}", name
    assert 'HEALTHCHECK' in dockerfile and 'CMD ["tenderflow", "health"]' in dockerfile
    resolve_command(["health"])


def test_every_image_is_pinned_to_a_release() -> None:
    for name, service in SERVICES.items():
        image = service["image"]
        repository, _, tag = image.rpartition(":")
        assert repository and tag and tag != "latest" and re.search(r"\d", tag), f"{name}: {image} is not pinned"
    assert SERVICES["minio"]["image"].startswith("minio/minio:RELEASE.")
    assert SERVICES["create-bucket"]["image"].startswith("minio/mc:RELEASE.")


def test_no_password_is_written_in_the_compose_file() -> None:
    """Secrets come from the environment (or .env): `${NAME:?…}` refuses to start without them."""
    secrets = {"POSTGRES_PASSWORD", "MINIO_ROOT_PASSWORD", "AWS_SECRET_ACCESS_KEY", "TENDERFLOW_ADMIN_TOKEN"}
    seen = set()
    for name, service in SERVICES.items():
        for variable, value in (service.get("environment") or {}).items():
            if variable in secrets:
                seen.add(variable)
                assert re.fullmatch(r"\$\{[A-Z_]+:\?[^}]+\}", value), f"{name}: {variable} is written in the file"
            if variable == "DATABASE_URL":
                assert "${POSTGRES_PASSWORD:?" in value, name
    assert seen == secrets
    bucket = " ".join(SERVICES["create-bucket"]["command"])
    assert '"$$MINIO_ROOT_PASSWORD"' in bucket and "secret" not in bucket


def test_workers_are_healthy_while_they_heartbeat_not_while_the_database_answers() -> None:
    for name in ("worker-ocr", "worker-extract"):
        check = SERVICES[name]["healthcheck"]["test"]
        assert check == ["CMD", "tenderflow", "health", "--worker"], name
        resolve_command(check[2:])
    assert SERVICES["api"]["healthcheck"]["test"] == ["CMD", "tenderflow", "health", "--api"]
