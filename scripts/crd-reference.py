#!/usr/bin/env python3
"""Regenerates the field tables of docs/crd-reference.md from the chart's CRDs.

Each table sits between "<!-- fields: Kind -->" and "<!-- end fields -->"; the prose around
them is kept. The "on change" column states what the code does when a field changes
(actors/nodeclass_status/nodeclass_hash.cpp for ProxmoxNodeClass drift, the template builder's
plan for ProxmoxTemplate). test/docs/crd_reference_test.cpp fails when a CRD field has no row.
Usage: python3 scripts/crd-reference.py   (needs python3-yaml)
"""
import os
import re
import sys

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CRDS = os.path.join(ROOT, "chart", "karpenter-proxmox", "crds")
PAGE = os.path.join(ROOT, "docs", "crd-reference.md")

KINDS = {
    "ProxmoxNodeClass": "karpenter.proxmox.sinextra.dev_proxmoxnodeclasses.yaml",
    "ProxmoxTemplate": "karpenter.proxmox.sinextra.dev_proxmoxtemplates.yaml",
    "ProxmoxUnmanagedTemplate": "karpenter.proxmox.sinextra.dev_proxmoxunmanagedtemplates.yaml",
}

DRIFT = "drift (`NodeClassDrifted`): nodes are replaced"
IN_PLACE = "in place: synced into running VMs, no drift"
NEW_VMS = "new VMs only: steers placement, no drift"
NEW_CLONES = "new VMs only: how they are cloned, no drift"
NEXT_BUILD = "next template build only (existing templates and nodes unchanged)"
NEW_IMAGE = "new template built; nodes drift (`ImageDrifted`) once it is Ready"

# Longest matching prefix wins.
CHANGE = {
    "ProxmoxNodeClass": {
        "spec": DRIFT,
        "spec.placementStrategy": NEW_VMS,
        "spec.cloneMode": NEW_CLONES,
        "spec.tags": IN_PLACE,
        "spec.securityGroups": IN_PLACE,
        "spec.resourcePool": IN_PLACE,
    },
    "ProxmoxTemplate": {
        "spec": NEXT_BUILD,
        "spec.sourceImage.url": NEW_IMAGE,
        "spec.sourceImage.imageName": NEW_IMAGE,
        "spec.sourceImage.checksum": NEW_IMAGE,
        "spec.sourceImage.checksumType": "checked against the checksum; no rebuild",
    },
    "ProxmoxUnmanagedTemplate": {
        "spec": "new VMs only: they clone the template named now, no drift",
        "spec.tags": "accepted for compatibility; the code selects by templateName only",
    },
}


def text(value):
    """A default as YAML flow text, the way yaml-cpp prints it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {text(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(text(v) for v in value) + "]"
    return str(value)


def kind_of(schema):
    t = schema.get("type", "")
    if t == "array":
        item = schema.get("items", {})
        return f"[]{item.get('type', 'object')}"
    if t == "object" and "additionalProperties" in schema:
        return "map[string]" + schema["additionalProperties"].get("type", "string")
    return t or "any"


def limits(schema):
    out = []
    if "enum" in schema:
        out.append("one of " + ", ".join(f"`{text(v)}`" for v in schema["enum"]))
    for key, word in (("minimum", "min"), ("maximum", "max"), ("minLength", "min length"),
                      ("maxLength", "max length"), ("minItems", "min items"),
                      ("maxItems", "max items")):
        if key in schema:
            out.append(f"{word} {schema[key]}")
    if "pattern" in schema:
        out.append(f"pattern `{schema['pattern']}`")
    return "; ".join(out)


def walk(schema, path, required, rows):
    rows.append((path, schema, required))
    need = set(schema.get("required", []))
    for name, sub in (schema.get("properties") or {}).items():
        walk(sub, f"{path}.{name}", name in need, rows)
    items = schema.get("items") or {}
    need = set(items.get("required", []))
    for name, sub in (items.get("properties") or {}).items():
        walk(sub, f"{path}[].{name}", name in need, rows)


def change_of(kind, path):
    table = CHANGE[kind]
    key = max((k for k in table if path == k or path.startswith(k + ".") or
               path.startswith(k + "[]")), key=len)
    return table[key]


def cell(s):
    return " ".join(str(s).split()).replace("|", "\\|")


def table(kind):
    crd = yaml.safe_load(open(os.path.join(CRDS, KINDS[kind])))
    lines = ["| field | type | default | required | on change | description |",
             "|---|---|---|---|---|---|"]
    for version in crd["spec"]["versions"]:
        spec = version["schema"]["openAPIV3Schema"]["properties"]["spec"]
        rows = []
        walk(spec, "spec", True, rows)
        for path, schema, required in rows[1:]:
            default = f"`{text(schema['default'])}`" if "default" in schema else ""
            description = schema.get("description", "")
            extra = limits(schema)
            if extra:
                description = f"{description} ({extra})" if description else extra
            lines.append(f"| `{path}` | {kind_of(schema)} | {default} | "
                         f"{'yes' if required else ''} | {change_of(kind, path)} | "
                         f"{cell(description)} |")
    return "\n".join(lines)


def main():
    page = open(PAGE).read()
    for kind in KINDS:
        pattern = re.compile(rf"(<!-- fields: {kind} -->\n).*?(<!-- end fields -->)", re.S)
        if not pattern.search(page):
            sys.exit(f"{PAGE}: no '<!-- fields: {kind} -->' ... '<!-- end fields -->' block")
        page = pattern.sub(lambda m: m.group(1) + table(kind) + "\n" + m.group(2), page)
    open(PAGE, "w").write(page)


if __name__ == "__main__":
    main()
