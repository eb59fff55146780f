#!/usr/bin/env python3
"""One copy of the test rendering for `podman kube play`, from `kubectl kustomize` on stdin.

    instance.py NAME HTTP_PORT METRICS_PORT RICKANDMORTY_URL UNIVERSITIES_URL [KEY=VALUE...]

podman runs one pod per Deployment, named after it (NAME-pod-0), and its claims as named volumes:
two copies on one machine need their own names, claims and ports (they share the host's
network), and so do its emptyDirs (podman 4.3 makes each a named volume of the pod volume's
name, shared by every pod that names it so). KEY=VALUE pairs are more settings; they go into the ConfigMap because in podman 4.3
`envFrom` wins over `env`. Only the kinds podman plays are kept (Deployment, ConfigMap,
PersistentVolumeClaim, Secret)."""
import sys
import yaml

name, http_port, metrics_port, rm_url, uni_url = sys.argv[1:6]
extra = dict(arg.split("=", 1) for arg in sys.argv[6:])
fill = {"@HTTP_PORT@": http_port, "@METRICS_PORT@": metrics_port,
        "@RICKANDMORTY_URL@": rm_url, "@UNIVERSITIES_URL@": uni_url}
docs = [d for d in yaml.safe_load_all(sys.stdin) if d]
kept = [d for d in docs if d["kind"] in ("Deployment", "ConfigMap", "PersistentVolumeClaim", "Secret")]
renamed = {}
for d in kept:
    old = d["metadata"]["name"]
    new = old.replace("rnm", name, 1)
    renamed[(d["kind"], old)] = new
    d["metadata"]["name"] = new
for d in kept:
    if d["kind"] == "ConfigMap":
        for key, value in d["data"].items():
            for placeholder, filled in fill.items():
                value = value.replace(placeholder, filled)
            d["data"][key] = value
        d["data"].update(extra)
    if d["kind"] == "Deployment":
        pod = d["spec"]["template"]["spec"]
        # podman 4.3 makes an emptyDir a named volume called as the pod's volume: two copies'
        # `sockets` would be one folder, and each copy's Gateway would bind the other's socket.
        for v in pod.get("volumes", []):
            if "emptyDir" in v:
                v["name"] = f"{name}-{v['name']}"
        for c in pod["containers"]:
            for m in c.get("volumeMounts", []):
                if any(v["name"] == f"{name}-{m['name']}" for v in pod["volumes"]):
                    m["name"] = f"{name}-{m['name']}"
        for v in pod.get("volumes", []):
            claim = v.get("persistentVolumeClaim")
            if claim:
                claim["claimName"] = renamed[("PersistentVolumeClaim", claim["claimName"])]
        for c in pod["containers"]:
            for ref in c.get("envFrom", []):
                if "configMapRef" in ref:
                    ref["configMapRef"]["name"] = renamed[("ConfigMap", ref["configMapRef"]["name"])]
            # On the host's network podman takes containerPorts for port mappings, which it
            # refuses there: the ports go, and the probes name the port by number.
            named = {p["name"]: int({"http": http_port, "metrics": metrics_port}.get(p["name"], p["containerPort"]))
                     for p in c.pop("ports", [])}
            for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
                get = c.get(probe, {}).get("httpGet")
                if get and get["port"] in named:
                    get["port"] = named[get["port"]]
yaml.safe_dump_all(kept, sys.stdout, sort_keys=False)
