"""deploy/kubernetes, checked without a cluster, the way tests/test_compose.py checks compose: every
YAML parses, kustomization lists every manifest, every tenderflow container's args are a real CLI
command, every variable handed to tenderflow is a setting it knows, images and ports agree, each
Deployment has probes and resources, every Secret reference names a key the Secret has, and the
KEDA query is valid SQL against the real schema that counts exactly the OCR pool's work."""

from __future__ import annotations

import tomllib
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest
import yaml

from tenderflow.config import Settings
from tenderflow.queue import JobSpec, claim, complete, enqueue
from tenderflow.stages.compute import POOLS
from tests.test_compose import STANDARD_AWS_VARIABLES, resolve_command, settings_variables

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy" / "kubernetes"
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def documents_in(path: Path) -> list[dict[str, Any]]:
    return [document for document in yaml.safe_load_all(path.read_text()) if document]


MANIFESTS = {path.name: documents_in(path) for path in sorted(DEPLOY.glob("*.yaml"))}
KUSTOMIZATION = MANIFESTS["kustomization.yaml"][0]
APPLIED = [document for name in KUSTOMIZATION["resources"] for document in MANIFESTS[name]]
SECRET = MANIFESTS["secret.example.yaml"][0]
CONFIG_MAP = next(d for d in APPLIED if d["kind"] == "ConfigMap")


def by_kind(kind: str) -> dict[str, dict[str, Any]]:
    return {d["metadata"]["name"]: d for d in APPLIED if d["kind"] == kind}


DEPLOYMENTS = by_kind("Deployment")


def pod_specs() -> dict[str, dict[str, Any]]:
    workloads = {**DEPLOYMENTS, **by_kind("Job")}
    return {name: workload["spec"]["template"]["spec"] for name, workload in workloads.items()}


def tenderflow_containers() -> dict[str, dict[str, Any]]:
    return {f"{name}/{c['name']}": c for name, spec in pod_specs().items() for c in spec["containers"]
            if "tenderflow" in c["image"]}


def test_every_manifest_parses_and_kustomization_applies_all_but_the_secret_example() -> None:
    assert set(MANIFESTS) - {"kustomization.yaml", "secret.example.yaml"} == set(KUSTOMIZATION["resources"])
    for name, documents in MANIFESTS.items():
        assert documents, name
        for document in documents:
            assert {"apiVersion", "kind"} <= document.keys(), name
    assert set(DEPLOYMENTS) == {"tenderflow-api", "tenderflow-worker-ocr", "tenderflow-worker-extract"}
    assert set(by_kind("Job")) == {"tenderflow-migrate"}


@pytest.mark.parametrize("name", sorted(tenderflow_containers()))
def test_each_containers_args_are_a_tenderflow_command(name: str) -> None:
    args = tenderflow_containers()[name]["args"]
    command = resolve_command(args)
    assert command.callback is not None and command.name in args


def test_the_pools_are_the_two_worker_deployments() -> None:
    pools = {name: c["args"][:3] for name, c in tenderflow_containers().items() if c["args"][0] == "worker"}
    assert sorted(pools.values()) == [["worker", "--pool", "extract"], ["worker", "--pool", "ocr"]]


def test_every_variable_is_a_setting_and_every_secret_reference_a_key_of_the_secret() -> None:
    known = settings_variables() | STANDARD_AWS_VARIABLES
    assert set(CONFIG_MAP["data"]) <= known, sorted(set(CONFIG_MAP["data"]) - known)
    Settings.model_validate({key.removeprefix("TENDERFLOW_").lower(): value
                             for key, value in CONFIG_MAP["data"].items()})
    assert set(SECRET["stringData"]) <= known
    for name, container in tenderflow_containers().items():
        for source in container.get("envFrom", []):
            assert source["configMapRef"]["name"] == CONFIG_MAP["metadata"]["name"], name
        for variable in container.get("env", []):
            assert variable["name"] in known, f"{name}: {variable['name']} is no setting"
            reference = variable.get("valueFrom", {}).get("secretKeyRef")
            if reference is not None:
                assert reference["name"] == SECRET["metadata"]["name"], name
                assert reference["key"] in SECRET["stringData"], f"{name}: the Secret has no {reference['key']}"
            else:
                assert isinstance(variable["value"], str), name
        names = [v["name"] for v in container.get("env", [])]
        assert "DATABASE_URL" in names, f"{name} has no database"
    api = tenderflow_containers()["tenderflow-api/api"]
    assert "TENDERFLOW_ADMIN_TOKEN" in [v["name"] for v in api["env"]]


def test_one_pinned_image_the_packages_version_and_the_ports_agree() -> None:
    images = {c["image"] for c in tenderflow_containers().values()}
    assert len(images) == 1, images
    [image] = images
    assert image.rsplit(":", 1)[1] == VERSION, f"{image}: tag it with the package's version {VERSION}"
    api = tenderflow_containers()["tenderflow-api/api"]
    port = int(api["args"][api["args"].index("--port") + 1])
    [declared] = api["ports"]
    assert declared["containerPort"] == port
    [service] = by_kind("Service").values()
    assert service["spec"]["selector"] == DEPLOYMENTS["tenderflow-api"]["spec"]["template"]["metadata"]["labels"]
    assert [p["targetPort"] for p in service["spec"]["ports"]] == [declared["name"]]
    for probe in ("readinessProbe", "livenessProbe", "startupProbe"):
        handler = api[probe].get("httpGet") or api[probe].get("tcpSocket")
        assert handler["port"] in (declared["name"], port), probe
    assert api["readinessProbe"]["httpGet"]["path"] == "/healthz"
    assert "--host" in api["args"] and api["args"][api["args"].index("--host") + 1] == "0.0.0.0"


def test_every_deployment_has_probes_resources_and_a_grace_period_past_the_workers() -> None:
    grace = float(CONFIG_MAP["data"]["TENDERFLOW_SHUTDOWN_GRACE_SECONDS"])
    for name, deployment in DEPLOYMENTS.items():
        spec = deployment["spec"]
        assert spec["selector"]["matchLabels"].items() <= spec["template"]["metadata"]["labels"].items(), name
        [container] = spec["template"]["spec"]["containers"]
        assert "livenessProbe" in container, name
        for kind in ("requests", "limits"):
            assert {"cpu", "memory"} <= container["resources"][kind].keys(), (name, kind)
        mounts = {m["mountPath"] for m in container["volumeMounts"]}
        assert CONFIG_MAP["data"]["TENDERFLOW_DATA_DIR"] in mounts, f"{name}: no writable data directory"
        if container["args"][0] == "worker":
            assert spec["template"]["spec"]["terminationGracePeriodSeconds"] > grace, name
            probe = container["livenessProbe"]["exec"]["command"]
            assert probe[0] == "tenderflow" and resolve_command(probe[1:]).callback is not None


def keda_trigger() -> dict[str, Any]:
    [scaled] = by_kind("ScaledObject").values()
    assert scaled["spec"]["scaleTargetRef"]["name"] == "tenderflow-worker-ocr" in DEPLOYMENTS
    [trigger] = scaled["spec"]["triggers"]
    assert trigger["type"] == "postgresql"
    [auth] = by_kind("TriggerAuthentication").values()
    assert trigger["authenticationRef"]["name"] == auth["metadata"]["name"]
    [secret] = auth["spec"]["secretTargetRef"]
    assert (secret["parameter"], secret["name"], secret["key"]) == ("connection", SECRET["metadata"]["name"],
                                                                    "DATABASE_URL")
    assert float(trigger["metadata"]["targetQueryValue"]) > 0
    return trigger


def test_the_keda_query_counts_the_ocr_pools_runnable_and_running_jobs(conn: psycopg.Connection[Any]) -> None:
    query = keda_trigger()["metadata"]["query"]
    assert conn.execute(query).fetchone() == (0,)
    for job_type in POOLS["ocr"] + POOLS["extract"]:
        for n in range(3):
            enqueue(conn, JobSpec(type=job_type, payload={"n": n}))
    later = datetime.now(UTC) + timedelta(hours=1)
    enqueue(conn, JobSpec(type="ocr.pages", payload={"later": True}, run_after=later))  # backing off
    [running] = claim(conn, worker_id="k8s-test", types=["ocr.pages"], limit=1, lease_seconds=60)
    [done] = claim(conn, worker_id="k8s-test", types=["ocr.plan"], limit=1, lease_seconds=60)
    complete(conn, [done])
    # Every OCR-pool job runnable or running, nothing of the extract pool, nothing finished or waiting.
    assert conn.execute(query).fetchone() == (3 * len(POOLS["ocr"]) - 1,)
    assert running.type in POOLS["ocr"]
